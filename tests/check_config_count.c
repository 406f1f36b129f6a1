/* check_config_count.c — parameter counting: one norm, a whole model's
 * norms, and what RMSNorm saves; then the real counts of every fixture,
 * worked out by hand from the modeling code (chapter 4's table), which is
 * where the textbook 2L + 1 goes wrong.  The suite of exercise
 * 05-param-count. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define FIX "tests/fixtures/configs/"

static const nl_norm_shape LN = {NL_LAYERNORM, 1, 1, 0};
static const nl_norm_shape LN_NOB = {NL_LAYERNORM, 1, 0, 0};
static const nl_norm_shape LN_BARE = {NL_LAYERNORM, 0, 0, 0};
static const nl_norm_shape RMS = {NL_RMSNORM, 1, 0, 0};
static const nl_norm_shape RMS_1PW = {NL_RMSNORM, 1, 0, 1};

START_TEST(one_norm)
{
    static const struct { nl_norm_shape s; const char *what; size_t per_width; } cases[] = {
        {{NL_LAYERNORM, 1, 1, 0}, "LayerNorm: gamma and beta", 2},
        {{NL_LAYERNORM, 1, 0, 0}, "LayerNorm without bias (Cohere): gamma only", 1},
        {{NL_LAYERNORM, 0, 0, 0}, "LayerNorm without weight or bias (OLMo): nothing learned", 0},
        {{NL_RMSNORM, 1, 0, 0}, "RMSNorm: gamma only", 1},
        {{NL_RMSNORM, 1, 1, 0}, "RMSNorm with the bias flag set: RMSNorm has no shift to learn", 1},
        {{NL_RMSNORM, 1, 0, 1}, "RMSNorm scaling by (1 + w) (Gemma): still d numbers", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = nl_norm_layer_params(cases[i].s, 768);
        ck_assert_msg(got == cases[i].per_width * 768, "%s, width 768: expected %zu parameters, got %zu",
                      cases[i].what, cases[i].per_width * 768, got);
    }
}
END_TEST

START_TEST(many_norms)
{
    /* Mistral-7B: 2 per block x 32 blocks + 1 final, width 4096. */
    const nl_norm_group g[] = {{64, 4096, 0, "blocks"}, {1, 4096, 0, "final"}};
    ck_assert_msg(nl_norm_total_params(RMS, g, 2) == 65 * 4096,
                  "65 RMSNorms of width 4096: expected %d, got %zu", 65 * 4096, nl_norm_total_params(RMS, g, 2));
    ck_assert_msg(nl_norm_total_params(LN, g, 2) == 2 * 65 * 4096,
                  "65 LayerNorms of width 4096: expected %d, got %zu", 2 * 65 * 4096,
                  nl_norm_total_params(LN, g, 2));
    /* Groups of different widths (QK-norms at head_dim), one without bias. */
    const nl_norm_group q[] = {{10, 64, 0, "blocks"}, {10, 8, 1, "per-head, no bias"}};
    size_t want = 10 * 128 + 10 * 8;
    ck_assert_msg(nl_norm_total_params(LN, q, 2) == want,
                  "LayerNorm groups {10 x 64 with bias, 10 x 8 without}: expected %zu, got %zu "
                  "(does a group's nobias drop its beta?)", want, nl_norm_total_params(LN, q, 2));
    ck_assert_msg(nl_norm_total_params(LN, q, 0) == 0, "no groups, no parameters");
}
END_TEST

START_TEST(saved)
{
    const nl_norm_group g[] = {{64, 4096, 0, "blocks"}, {1, 4096, 0, "final"}};
    ck_assert_msg(nl_norm_params_saved(RMS, g, 2) == 266240,
                  "Mistral's 65 RMSNorms save one beta of 4096 each: 266240, got %zu",
                  nl_norm_params_saved(RMS, g, 2));
    ck_assert_msg(nl_norm_params_saved(RMS_1PW, g, 2) == 266240, "(1 + w) RMSNorm saves the same beta");
    ck_assert_msg(nl_norm_params_saved(LN, g, 2) == 266240,
                  "a LayerNorm model would save its betas by switching: 266240, got %zu",
                  nl_norm_params_saved(LN, g, 2));
    ck_assert_msg(nl_norm_params_saved(LN_NOB, g, 2) == 0,
                  "a LayerNorm without bias has no beta left to save, got %zu", nl_norm_params_saved(LN_NOB, g, 2));
    ck_assert_msg(nl_norm_params_saved(LN_BARE, g, 2) == 0,
                  "a norm with no parameters saves none, got %zu", nl_norm_params_saved(LN_BARE, g, 2));
}
END_TEST

typedef struct { const char *file; size_t per_block, layers, params, saved; } want_t;

static void check_file(const want_t *w)
{
    char path[256];
    snprintf(path, sizeof path, FIX "%s.json", w->file);
    nl_config c;
    ck_assert_msg(nl_config_read(path, &c) == NL_OK, "%s", nl_last_error());
    size_t textbook = 2 * c.num_layers + 1;
    ck_assert_msg(c.norms_per_layer == w->per_block, "%s: %zu norms per block, expected %zu",
                  w->file, c.norms_per_layer, w->per_block);
    ck_assert_msg(c.norm_layers == w->layers,
                  "%s: %zu norm layers, expected %zu (the textbook 2L+1 would say %zu)", w->file,
                  c.norm_layers, w->layers, textbook);
    ck_assert_msg(c.norm_params == w->params, "%s: %zu norm parameters, expected %zu", w->file,
                  c.norm_params, w->params);
    ck_assert_msg(c.params_saved == w->saved, "%s: RMSNorm saves %zu, expected %zu", w->file,
                  c.params_saved, w->saved);
    nl_config_free(&c);
}

/* The seed's nine models, corrected. */
static const want_t nine[] = {
    {"gpt2", 2, 25, 38400, 19200},
    {"pythia-410m", 2, 49, 100352, 50176},
    {"phi-2", 1, 33, 168960, 84480},                /* parallel block: one norm */
    {"stablelm-3b-4e1t", 2, 65, 332800, 166400},
    {"TinyLlama-1.1B-Chat-v1.0", 2, 45, 92160, 92160},
    {"Qwen3-0.6B", 4, 113, 65536, 65536},           /* + q_norm, k_norm of head_dim 128 */
    {"SmolLM2-360M", 2, 65, 62400, 62400},
    {"OLMo-2-0425-1B", 4, 65, 133120, 133120},      /* post-norms + QK-norm over 2048 */
    {"Mistral-7B-v0.1", 2, 65, 266240, 266240},
};

START_TEST(nine_models)
{
    check_file(&nine[_i]);
}
END_TEST

static const want_t families[] = {
    {"families/gemma-2b", 2, 37, 75776, 75776},
    {"families/gemma-2-2b", 4, 105, 241920, 241920},
    {"families/gemma-3-4b", 6, 205, 368128, 368128},
    {"families/olmo-1b", 2, 33, 0, 0},
    {"families/cohere-command-r", 1, 41, 335872, 0},
    {"families/t5-small", 2, 32, 16384, 16384},
    {"families/bert-base-uncased", 2, 25, 38400, 19200},
    {"families/falcon-7b", 1, 33, 299904, 149952},
    {"families/bloom-560m", 2, 50, 102400, 51200},
    {"families/opt-125m", 2, 25, 38400, 19200},
    {"families/mamba-130m", 1, 25, 19200, 19200},
    {"families/deepseek-v3", 4, 245, 1006592, 1006592},
    {"families/phi-3-mini", 2, 65, 199680, 199680},
    {"families/llava-1.5-7b", 2, 65, 266240, 266240},
};

START_TEST(other_families)
{
    check_file(&families[_i]);
}
END_TEST

/* Switches in the config change what is built. */
START_TEST(config_switches)
{
    static const struct { const char *json; size_t per_block, layers; const char *why; } cases[] = {
        {"{\"model_type\":\"falcon\",\"hidden_size\":64,\"num_hidden_layers\":4,\"new_decoder_architecture\":true}",
         2, 9, "Falcon's new decoder layout has ln_attn and ln_mlp"},
        {"{\"model_type\":\"falcon\",\"hidden_size\":64,\"num_hidden_layers\":4,\"parallel_attn\":false}",
         2, 9, "a sequential Falcon block has two norms"},
        {"{\"model_type\":\"opt\",\"hidden_size\":64,\"num_hidden_layers\":4,\"do_layer_norm_before\":false}",
         2, 8, "post-norm OPT (350m) has no final norm"},
        {"{\"model_type\":\"stablelm\",\"hidden_size\":64,\"num_hidden_layers\":4,\"use_parallel_residual\":true}",
         1, 5, "StableLM with a parallel residual has one norm per block"},
        {"{\"model_type\":\"phi\",\"hidden_size\":64,\"num_hidden_layers\":4,\"num_attention_heads\":4,"
         "\"qk_layernorm\":true}", 3, 13, "Phi with qk_layernorm adds two head-width norms per block"},
        {"{\"model_type\":\"some_new_model\",\"hidden_size\":64,\"num_hidden_layers\":4,\"layer_norm_eps\":1e-5}",
         2, 9, "an unknown model is guessed as 2L + 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nl_config c;
        ck_assert_msg(nl_config_parse(cases[i].json, strlen(cases[i].json), "inline.json", &c) == NL_OK,
                      "%s", nl_last_error());
        ck_assert_msg(c.norms_per_layer == cases[i].per_block && c.norm_layers == cases[i].layers,
                      "%s: expected %zu per block, %zu in all; got %zu and %zu\n  config: %s", cases[i].why,
                      cases[i].per_block, cases[i].layers, c.norms_per_layer, c.norm_layers, cases[i].json);
        nl_config_free(&c);
    }
}
END_TEST

START_TEST(whole_model)
{
    nl_config c;
    ck_assert_msg(nl_config_read(FIX "Mistral-7B-v0.1.json", &c) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(c.model_params == 7241732096u,
                  "Mistral-7B-v0.1 has 7241732096 parameters (embedding, 32 blocks, untied head); got %zu",
                  c.model_params);
    nl_config_free(&c);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("config_count");
    TCase *tc = tcase_create("count");
    tcase_add_test(tc, one_norm);
    tcase_add_test(tc, many_norms);
    tcase_add_test(tc, saved);
    tcase_add_loop_test(tc, nine_models, 0, sizeof nine / sizeof nine[0]);
    tcase_add_loop_test(tc, other_families, 0, sizeof families / sizeof families[0]);
    tcase_add_test(tc, config_switches);
    tcase_add_test(tc, whole_model);
    suite_add_tcase(s, tc);
    return s;
}
