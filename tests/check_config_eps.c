/* check_config_eps.c — finding eps in a config.json: every key spelling in
 * use, nested text_config, a missing key (the architecture's default), a
 * key whose name disagrees with the norm, and Python's NaN/Infinity.
 * This is the suite of exercise 04-eps-key. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define FIX "tests/fixtures/configs/"

static nl_config parse_ok(const char *json)
{
    nl_config c;
    int rc = nl_config_parse(json, strlen(json), "inline.json", &c);
    ck_assert_msg(rc == NL_OK, "this config should parse, but the reader said: %s\n  config: %s",
                  nl_last_error(), json);
    return c;
}

static void expect_eps(const nl_config *c, double eps, const char *key)
{
    ck_assert_msg(strcmp(c->eps_key, key) == 0,
                  "%s: eps key is '%s', expected '%s'%s", c->file, c->eps_key, key,
                  c->eps_key[0] == '\0' ? " (nothing found: is every name in the list tried, "
                                          "and text_config looked into?)" : "");
    ck_assert_msg(c->eps == eps, "%s: eps is %g, expected %g (from %s)", c->file, c->eps, eps, key);
    ck_assert_msg(!c->eps_is_default, "%s: eps came from %s, yet it is marked a default", c->file, key);
}

START_TEST(top_level_key)
{
    nl_config c = parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 64, "
                           "\"num_hidden_layers\": 2, \"rms_norm_eps\": 1e-05}");
    expect_eps(&c, 1e-5, "rms_norm_eps");
    nl_config_free(&c);
}
END_TEST

/* Every spelling in the list is found, whatever the model_type. */
START_TEST(every_key_spelling)
{
    const char *const *names = nl_eps_key_names();
    size_t n = 0;
    while (names[n])
        n++;
    ck_assert_msg(n >= 5, "only %zu eps key names are known; expected at least the five in use", n);
    for (size_t i = 0; i < n; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"model_type\": \"not_a_known_family\", \"hidden_size\": 64,"
                 " \"num_hidden_layers\": 2, \"%s\": 3e-06}", names[i]);
        nl_config c = parse_ok(json);
        expect_eps(&c, 3e-6, names[i]);
        nl_config_free(&c);
    }
}
END_TEST

/* llava: the language model under text_config, a vision tower beside it
 * with its own (different) eps.  The LM's is the one that counts. */
START_TEST(nested_text_config)
{
    nl_config c = parse_ok("{\"model_type\": \"llava\","
                           " \"vision_config\": {\"layer_norm_eps\": 1e-06, \"hidden_size\": 1024},"
                           " \"text_config\": {\"model_type\": \"llama\", \"hidden_size\": 4096,"
                           "   \"num_hidden_layers\": 32, \"rms_norm_eps\": 1e-05}}");
    expect_eps(&c, 1e-5, "text_config.rms_norm_eps");
    ck_assert_msg(strcmp(c.model_type, "llama") == 0,
                  "model_type is '%s'; the language model's (text_config.model_type) is 'llama'",
                  c.model_type);
    ck_assert_msg(c.hidden_size == 4096, "hidden size %zu: the vision tower's, not the LM's 4096?",
                  c.hidden_size);
    nl_config_free(&c);
}
END_TEST

/* Both the root and text_config hold an eps: the language model's own
 * (text_config) wins, whichever the file lists first. */
START_TEST(text_config_before_the_root)
{
    nl_config c = parse_ok("{\"model_type\": \"llava\", \"rms_norm_eps\": 1e-06,"
                           " \"text_config\": {\"model_type\": \"llama\", \"hidden_size\": 4096,"
                           "   \"num_hidden_layers\": 32, \"rms_norm_eps\": 1e-05}}");
    ck_assert_msg(strcmp(c.eps_key, "rms_norm_eps") != 0,
                  "eps came from the root ('rms_norm_eps' = %g), but text_config has its own: "
                  "look in the language model's object (text_config) first, the root only when "
                  "it has none; a root value may belong to another part of the model", c.eps);
    expect_eps(&c, 1e-5, "text_config.rms_norm_eps");
    nl_config_free(&c);
}
END_TEST

/* An architecture in no table: the eps key's name is all there is to go on
 * (exercise 04 finds it; it lives here, not in config_count, so that
 * exercise 05's score does not depend on exercise 04). */
START_TEST(unknown_is_a_guess)
{
    nl_config c;
    ck_assert_msg(nl_config_read(FIX "families/unknown-rms.json", &c) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(c.guessed, "model_type 'my_new_arch' is in no table: the result must say it is a guess");
    ck_assert_msg(c.shape.norm == NL_RMSNORM, "with only rms_norm_eps to go on, the guess is RMSNorm");
    ck_assert_msg(c.note && strstr(c.note, "guess"), "the note should say it was guessed; it says: %s",
                  c.note ? c.note : "(none)");
    nl_config_free(&c);
}
END_TEST

/* OLMo writes no eps and hard-codes 1e-5 in OlmoLayerNorm. */
START_TEST(missing_key_is_the_default)
{
    nl_config c = parse_ok("{\"model_type\": \"olmo\", \"hidden_size\": 2048, \"num_hidden_layers\": 16}");
    ck_assert_msg(c.eps_is_default, "olmo has no eps key: eps should be marked a default");
    ck_assert_msg(c.eps == 1e-5, "olmo's default eps is 1e-5 (modeling_olmo.py), got %g", c.eps);
    ck_assert_msg(c.eps_key[0] == '\0', "no key was in the file, yet eps_key is '%s'", c.eps_key);
    nl_config_free(&c);
}
END_TEST

/* Gemma-3 multimodal: no eps in text_config, a vision eps beside it. */
START_TEST(missing_nested_key_ignores_other_towers)
{
    nl_config c;
    ck_assert_msg(nl_config_read(FIX "families/gemma-3-4b.json", &c) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(c.eps_is_default && c.eps == 1e-6,
                  "gemma-3-4b: text_config has no eps, so eps is Gemma-3's default 1e-6; got %g from '%s' "
                  "(the vision tower's key must not be taken)", c.eps, c.eps_key);
    nl_config_free(&c);
}
END_TEST

/* The key's name is not the norm: T5 and Mamba read layer_norm_epsilon
 * and build RMSNorm. */
START_TEST(key_name_is_not_the_kind)
{
    static const char *const files[] = {FIX "families/t5-small.json", FIX "families/mamba-130m.json"};
    for (size_t i = 0; i < 2; i++) {
        nl_config c;
        ck_assert_msg(nl_config_read(files[i], &c) == NL_OK, "%s", nl_last_error());
        ck_assert_msg(strcmp(c.eps_key, "layer_norm_epsilon") == 0, "%s: key '%s'", files[i], c.eps_key);
        ck_assert_msg(c.shape.norm == NL_RMSNORM,
                      "%s: the key says layer_norm_epsilon but the model builds RMSNorm; got %s",
                      files[i], nl_norm_name(c.shape.norm));
        nl_config_free(&c);
    }
}
END_TEST

/* The nine models of the seed, as their files are written. */
START_TEST(nine_fixtures)
{
    static const struct { const char *file; double eps; const char *key; } want[] = {
        {"gpt2", 1e-5, "layer_norm_epsilon"},     {"pythia-410m", 1e-5, "layer_norm_eps"},
        {"phi-2", 1e-5, "layer_norm_eps"},        {"stablelm-3b-4e1t", 1e-5, "layer_norm_eps"},
        {"TinyLlama-1.1B-Chat-v1.0", 1e-5, "rms_norm_eps"}, {"Qwen3-0.6B", 1e-6, "rms_norm_eps"},
        {"SmolLM2-360M", 1e-5, "rms_norm_eps"},   {"OLMo-2-0425-1B", 1e-6, "rms_norm_eps"},
        {"Mistral-7B-v0.1", 1e-5, "rms_norm_eps"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, FIX "%s.json", want[i].file);
        nl_config c;
        ck_assert_msg(nl_config_read(path, &c) == NL_OK, "%s", nl_last_error());
        expect_eps(&c, want[i].eps, want[i].key);
        nl_config_free(&c);
    }
}
END_TEST

START_TEST(python_literals_prepass)
{
    const char *in = "{\"a\": NaN, \"b\": \"NaN \\\" Infinity\", \"c\": -Infinity, \"d\": [Infinity]}";
    const char *want = "{\"a\": \"\\u001bnormlab:NaN\", \"b\": \"NaN \\\" Infinity\", \"c\": -1e999, \"d\": [1e999]}";
    size_t n;
    char *out = nl_json_from_python(in, strlen(in), &n);
    ck_assert_ptr_nonnull(out);
    ck_assert_msg(strcmp(out, want) == 0,
                  "pre-pass of\n  %s\ngave\n  %s\nexpected\n  %s\n(literals outside strings only; "
                  "an escaped quote does not end a string)", in, out, want);
    ck_assert_msg(n == strlen(want), "reported length %zu, actual %zu", n, strlen(want));
    free(out);
}
END_TEST

START_TEST(python_literals_parse)
{
    nl_config c;
    ck_assert_msg(nl_config_read(FIX "families/python-literals.json", &c) == NL_OK,
                  "a config with NaN, Infinity and -Infinity in unrelated fields must parse: %s",
                  nl_last_error());
    expect_eps(&c, 1e-5, "rms_norm_eps");
    nl_config_free(&c);
}
END_TEST

START_TEST(eps_not_finite_or_text)
{
    static const char *const bad[] = {
        "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, \"rms_norm_eps\": NaN}",
        "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, \"rms_norm_eps\": Infinity}",
        "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, \"rms_norm_eps\": -1e-6}",
        "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, \"rms_norm_eps\": \"1e-5\"}",
        "{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1, \"rms_norm_eps\": null}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nl_config c;
        int rc = nl_config_parse(bad[i], strlen(bad[i]), "bad.json", &c);
        ck_assert_msg(rc == NL_EARG, "accepted an unusable eps: %s (eps read as %g)", bad[i], c.eps);
        ck_assert_msg(strstr(nl_last_error(), "bad.json") && strstr(nl_last_error(), "rms_norm_eps"),
                      "the message should name the file and the key; got: %s", nl_last_error());
        nl_config_free(&c);
    }
}
END_TEST

/* A byte-order mark, CRLF line ends and no model_type at all. */
START_TEST(bom_crlf_no_model_type)
{
    const char *json = "\xEF\xBB\xBF{\r\n  \"d_model\": 256,\r\n  \"n_layers\": 3,\r\n"
                       "  \"norm_eps\": 1e-05\r\n}\r\n";
    nl_config c = parse_ok(json);
    expect_eps(&c, 1e-5, "norm_eps");
    ck_assert_msg(c.guessed && strstr(c.note, "no model_type"),
                  "without model_type the kind is a guess, and the note should say so: %s", c.note);
    nl_config_free(&c);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("config_eps");
    TCase *tc = tcase_create("eps");
    tcase_add_test(tc, top_level_key);
    tcase_add_test(tc, every_key_spelling);
    tcase_add_test(tc, nested_text_config);
    tcase_add_test(tc, text_config_before_the_root);
    tcase_add_test(tc, unknown_is_a_guess);
    tcase_add_test(tc, missing_key_is_the_default);
    tcase_add_test(tc, missing_nested_key_ignores_other_towers);
    tcase_add_test(tc, key_name_is_not_the_kind);
    tcase_add_test(tc, nine_fixtures);
    tcase_add_test(tc, python_literals_prepass);
    tcase_add_test(tc, python_literals_parse);
    tcase_add_test(tc, eps_not_finite_or_text);
    tcase_add_test(tc, bom_crlf_no_model_type);
    suite_add_tcase(s, tc);
    return s;
}
