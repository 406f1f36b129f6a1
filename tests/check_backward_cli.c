/* check_backward_cli.c — `normlab gradcheck`: passes on the registered
 * kernels, names every one of them, and refuses bad usage with exit 2 and
 * a message naming the option. */
#include <string.h>

#include "grad.h"

START_TEST(gradcheck_passes_and_names_every_kernel)
{
    nl_run_result r;
    const char *args[] = {"gradcheck", "--rows", "9", "--d", "41", NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "normlab gradcheck exited %d; stdout:\n%s\nstderr:\n%s",
                  r.code, r.out, r.err);
    ck_assert_msg(strstr(r.out, "every bound holds"), "no verdict line in:\n%s", r.out);
    size_t n;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strstr(r.out, all[i].name), "gradcheck does not mention %s:\n%s",
                      all[i].name, r.out);
}
END_TEST

START_TEST(gradcheck_rmsnorm_invariant_with_eps_zero)
{
    nl_run_result r;
    const char *args[] = {"gradcheck", "--norm", "rms", "--eps", "0", "--gemma", NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "exit %d:\n%s%s", r.code, r.out, r.err);
    ck_assert_msg(strstr(r.out, "x . dx") && strstr(r.out, "(1 + w)"),
                  "with --eps 0 --gemma the table should show the x . dx invariant and say "
                  "(1 + w):\n%s", r.out);
}
END_TEST

static const struct { const char *args[7]; const char *says; } bad[] = {
    {{"gradcheck", "--norm", "batch", NULL}, "--norm"},
    {{"gradcheck", "--d", "1", NULL}, "--d"},
    {{"gradcheck", "--rows", "0", NULL}, "--rows"},
    {{"gradcheck", "--eps", "-1", NULL}, "--eps"},
    {{"gradcheck", "--rows", "4096", "--d", "4096", NULL}, "finite differences"},
    {{"gradcheck", "--frobnicate", NULL}, "--frobnicate"},
};

START_TEST(gradcheck_refuses_bad_usage)
{
    nl_run_result r;
    nl_run_normlab(&r, bad[_i].args, NULL);
    ck_assert_msg(r.exited && r.code == 2, "normlab %s %s %s: exit %d, expected 2 (usage); "
                  "stderr: %s", bad[_i].args[1], bad[_i].args[2] ? bad[_i].args[2] : "",
                  bad[_i].args[2] && bad[_i].args[3] ? bad[_i].args[3] : "", r.code, r.err);
    ck_assert_msg(strstr(r.err, bad[_i].says), "the message should name '%s'; stderr: %s",
                  bad[_i].says, r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("backward_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gradcheck_passes_and_names_every_kernel);
    tcase_add_test(tc, gradcheck_rmsnorm_invariant_with_eps_zero);
    tcase_add_loop_test(tc, gradcheck_refuses_bad_usage, 0, sizeof bad / sizeof bad[0]);
    suite_add_tcase(s, tc);
    return s;
}
