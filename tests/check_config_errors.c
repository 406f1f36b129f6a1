/* check_config_errors.c — `normlab config` on bad input, run as a user
 * runs it: the built program, its stderr and its exit status.  Every bad
 * file gets a message naming the file, the key and the problem; the other
 * files in the same run are still reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define FIX "tests/fixtures/configs/"

/* `normlab config ARGS...`; a crash or a hang fails the test at once. */
static nl_run_result *run(const char *const *args)
{
    static nl_run_result r;
    const char *argv[32] = {"config"};
    size_t n = 1;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    nl_run_normlab(&r, argv, NULL);
    ck_assert_msg(r.exited && !r.timed_out, "normlab config %s did not exit by itself "
                  "(signal %d, or killed after %.0f s)\nstderr: %s",
                  args[0] ? args[0] : "", r.code, nl_run_time_limit(), r.err);
    return &r;
}

static const struct { const char *file, *key, *problem; } bad[] = {
    {FIX "bad/not-json.json", "line 3", "not JSON"},
    {FIX "bad/array.json", "top level", "expected an object"},
    {FIX "bad/eps-string.json", "rms_norm_eps", "is a string"},
    {FIX "bad/hidden-negative.json", "hidden_size", "is -4, expected a positive whole number"},
    {FIX "bad/empty.json", "empty file", "expected a JSON object"},
    {FIX "bad/no-such-file.json", "cannot open", "No such file"},
};

START_TEST(each_bad_file)
{
    const char *args[] = {bad[_i].file, NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "normlab config %s: exit status %d, expected 1\nstderr: %s",
                  bad[_i].file, r->code, r->err);
    ck_assert_msg(strstr(r->err, bad[_i].file) && strstr(r->err, bad[_i].key) &&
                      strstr(r->err, bad[_i].problem),
                  "the message for %s should name the file, '%s' and '%s'; it was:\n  %s", bad[_i].file,
                  bad[_i].key, bad[_i].problem, r->err);
}
END_TEST

/* One bad file among good ones: the good ones are still reported. */
START_TEST(others_still_reported)
{
    const char *args[] = {"--tsv", FIX "gpt2.json", FIX "bad/eps-string.json", FIX "Mistral-7B-v0.1.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "a run with one bad file must exit 1, got %d", r->code);
    ck_assert_msg(strstr(r->out, "gpt2\t") && strstr(r->out, "Mistral-7B-v0.1\t"),
                  "the good files before and after the bad one should be in the table:\n%s", r->out);
    ck_assert_msg(strstr(r->err, "eps-string.json"), "the bad file should be named on stderr: %s", r->err);
}
END_TEST

START_TEST(json_lines)
{
    const char *args[] = {"--json", FIX "Qwen3-0.6B.json", FIX "bad/empty.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "exit %d, expected 1 (one file bad)", r->code);
    size_t lines = 0;
    for (const char *p = r->out; *p; p++)
        lines += *p == '\n';
    ck_assert_msg(lines == 2, "--json prints one line per file; got %zu lines:\n%s", lines, r->out);
    const char *fields[] = {"\"file\":", "\"model_type\":\"qwen3\"", "\"norm\":\"RMSNorm\"", "\"bias\":false",
                            "\"weight\":true", "\"weight_offset\":false", "\"eps\":1e-06",
                            "\"eps_key\":\"rms_norm_eps\"", "\"eps_is_default\":false", "\"hidden_size\":1024",
                            "\"num_layers\":28", "\"norms_per_layer\":4", "\"norm_layers\":113",
                            "\"norm_params\":65536", "\"params_saved\":65536", "\"error\":"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(strstr(r->out, fields[i]), "--json output lacks %s:\n%s", fields[i], r->out);
}
END_TEST

START_TEST(default_eps_is_null_key)
{
    const char *args[] = {"--json", FIX "families/olmo-1b.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    ck_assert_msg(strstr(r->out, "\"eps_key\":null") && strstr(r->out, "\"eps_is_default\":true"),
                  "olmo has no eps key: eps_key should be null and eps_is_default true:\n%s", r->out);
}
END_TEST

START_TEST(help_and_usage)
{
    const char *help[] = {"--help", NULL};
    nl_run_result *r = run(help);
    ck_assert_msg(r->code == 0, "--help should exit 0, got %d", r->code);
    const char *fields[] = {"file", "model_type", "norm", "bias", "weight_offset", "eps_key",
                            "eps_is_default", "hidden_size", "num_layers", "norms_per_layer",
                            "norm_layers", "norm_params", "params_saved"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(strstr(r->out, fields[i]), "--help should document the field %s", fields[i]);

    const char *unknown[] = {"--frobnicate", FIX "gpt2.json", NULL};
    r = run(unknown);
    ck_assert_msg(r->code == 2, "an unknown option should exit 2, got %d", r->code);
    ck_assert_msg(strstr(r->err, "--frobnicate"), "the message should name the option: %s", r->err);

    const char *none[] = {NULL};
    r = run(none);
    ck_assert_msg(r->code == 2, "no file at all is a usage error (2), got %d", r->code);
}
END_TEST

/* The done-when of issue 4: the nine-model table. */
START_TEST(nine_model_table)
{
    const char *args[] = {"--tsv", FIX "gpt2.json", FIX "pythia-410m.json", FIX "phi-2.json",
                          FIX "stablelm-3b-4e1t.json", FIX "TinyLlama-1.1B-Chat-v1.0.json",
                          FIX "Qwen3-0.6B.json", FIX "SmolLM2-360M.json", FIX "OLMo-2-0425-1B.json",
                          FIX "Mistral-7B-v0.1.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    const char *rows[] = {
        "phi-2\tphi\tLayerNorm\t32\t2560\t1e-05\tlayer_norm_eps\t1\t33\t168960\t84480\n",
        "Qwen3-0.6B\tqwen3\tRMSNorm\t28\t1024\t1e-06\trms_norm_eps\t4\t113\t65536\t65536\n",
        "OLMo-2-0425-1B\tolmo2\tRMSNorm\t16\t2048\t1e-06\trms_norm_eps\t4\t65\t133120\t133120\n",
    };
    for (size_t i = 0; i < 3; i++)
        ck_assert_msg(strstr(r->out, rows[i]), "the table lacks the corrected row\n  %sit printed:\n%s",
                      rows[i], r->out);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("config_errors");
    TCase *tc = tcase_create("cli");
    tcase_add_loop_test(tc, each_bad_file, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, others_still_reported);
    tcase_add_test(tc, json_lines);
    tcase_add_test(tc, default_eps_is_null_key);
    tcase_add_test(tc, help_and_usage);
    tcase_add_test(tc, nine_model_table);
    suite_add_tcase(s, tc);
    return s;
}
