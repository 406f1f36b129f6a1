/* check_mpi_norm.c — build/normlab-mpi under mpirun with 1 to 4 ranks:
 * RMSNorm's one all-reduce, rows split instead of columns, empty shards,
 * rows = 0, the same bits for the same P, bf16 storage (--dtype bf16),
 * and the command line.
 * (LayerNorm's Chan merge has its own suite, check_mpi_chan.c.) */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define TOL 1e-6        /* stated by code/mpi/cli/main.c */
#define TOL_ULP_BF16 1.0 /* --dtype bf16, in ulps of bf16: stated there too */

/* Runs normlab-mpi and returns its max error after checking it is within
 * tol; `unit` is what must follow the number ("ulp of bf16"), or NULL for
 * the f32 report's plain absolute error. */
static double expect_within(int ranks, const char *const *args, double tol, const char *unit)
{
    nl_run_result r;
    nl_run_mpi(&r, ranks, args);
    double err = nl_mpi_max_error(&r);
    char cmd[256] = "";
    for (size_t i = 0; args[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", args[i]);
    ck_assert_msg(err <= tol && r.exited && r.code == 0,
                  "normlab-mpi%s on %d rank(s): max error %g, expected <= %g (exit %d)\n%s%s",
                  cmd, ranks, err, tol, r.code, r.out, r.err);
    if (unit) {
        const char *line = strstr(r.out, "max error: ");
        ck_assert_msg(line && strstr(line, unit) && strstr(line, unit) < strchr(line, '\n'),
                      "normlab-mpi%s: the max error line should be in \"%s\"\n%s", cmd, unit,
                      r.out);
    }
    return err;
}

static void expect_accurate(int ranks, const char *const *args)
{
    expect_within(ranks, args, TOL, NULL);
}

/* Runs that must agree with the reference, each with its number of
 * ranks. 4099 columns split unevenly over 2, 3 and 4 ranks; 3 columns
 * over 4 ranks leave one with none; 5 rows over 4 ranks are 2 + 1 + 1 + 1
 * and 3 rows over 4 leave a rank with no row; rows = 0 is a no-op. */
#define HIDDEN_RMS "--norm", "rms", "--shard", "hidden"
#define ROWS_SPLIT "--shard", "rows"
static const struct {
    int ranks;
    const char *args[12];
} accurate[] = {
    {1, {HIDDEN_RMS, "--rows", "64", "--d", "4099", "--mean", "3"}},
    {2, {HIDDEN_RMS, "--rows", "64", "--d", "4099", "--mean", "3"}},
    {3, {HIDDEN_RMS, "--rows", "64", "--d", "4099", "--mean", "3"}},
    {4, {HIDDEN_RMS, "--rows", "64", "--d", "4099", "--mean", "3"}},
    {4, {HIDDEN_RMS, "--rows", "8", "--d", "3"}},
    {1, {"--norm", "ln", ROWS_SPLIT, "--rows", "5", "--d", "7"}},
    {3, {"--norm", "ln", ROWS_SPLIT, "--rows", "5", "--d", "7"}},
    {2, {"--norm", "rms", ROWS_SPLIT, "--rows", "3", "--d", "33"}},
    {4, {"--norm", "rms", ROWS_SPLIT, "--rows", "3", "--d", "33"}},
    {1, {"--norm", "rms", ROWS_SPLIT, "--rows", "0", "--d", "7"}},
    {2, {"--norm", "ln", "--shard", "hidden", "--rows", "0", "--d", "7"}},
    {3, {"--norm", "rms", ROWS_SPLIT, "--rows", "0", "--d", "7"}},
    {4, {"--norm", "ln", "--shard", "hidden", "--rows", "0", "--d", "7"}},
};

START_TEST(agrees_with_reference)
{
    NL_MPI_OR_SKIP();
    expect_accurate(accurate[_i].ranks, accurate[_i].args);
}
END_TEST

/* --dtype bf16: x and y stored in bf16, the statistics as for f32, y
 * rounded once; the error is in ulps of bf16 against the double reference
 * on the same bf16 inputs. Both norms, both shards, 1 to 4 ranks: _i is
 * ranks - 1 + 4 * case. 1001 columns split unevenly; 5 rows over 4 ranks. */
static const char *const bf16_cases[][14] = {
    {"--norm", "ln", "--shard", "hidden", "--rows", "16", "--d", "1001", "--mean", "3",
     "--dtype", "bf16"},
    {"--norm", "rms", "--shard", "hidden", "--rows", "16", "--d", "1001", "--mean", "3",
     "--dtype", "bf16"},
    {"--norm", "ln", "--shard", "rows", "--rows", "5", "--d", "257", "--dtype", "bf16"},
    {"--norm", "rms", "--shard", "rows", "--rows", "5", "--d", "257", "--dtype=bf16"},
};

START_TEST(bf16_within_an_ulp)
{
    NL_MPI_OR_SKIP();
    expect_within(_i % 4 + 1, bf16_cases[_i / 4], TOL_ULP_BF16, "ulp of bf16");
}
END_TEST

/* y really is rounded to bf16: over 64 x 4099 outputs some lie near a
 * halfway point between bf16 values, so the worst is close to 0.5 ulp. A
 * y left in float would be some 2^-16 ulp off everywhere and fail this;
 * so would a report in absolute units. The storage line says bf16. */
START_TEST(bf16_output_is_rounded)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "rms", "--shard", "hidden", "--rows", "64", "--d", "4099",
                          "--dtype", "bf16", NULL};
    double err = expect_within(2, args, TOL_ULP_BF16, "ulp of bf16");
    ck_assert_msg(err >= 0.25, "bf16 output %g ulp from the reference at worst: expected near "
                  "0.5, as when y is rounded to bf16 once (is y still float?)", err);
    nl_run_result r;
    nl_run_mpi(&r, 1, args);
    ck_assert_msg(strstr(r.out, "storage: x and y in bf16"),
                  "normlab-mpi --dtype bf16 printed no 'storage: x and y in bf16' line\n%s", r.out);
    /* The statistics travel as for f32: the same bytes per row. */
    const char *f32[] = {"--norm", "rms", "--shard", "hidden", "--rows", "64", "--d", "4099", NULL};
    nl_run_result a, b;
    nl_run_mpi(&a, 2, args);
    nl_run_mpi(&b, 2, f32);
    const char *sa = strstr(a.out, "statistics: "), *sb = strstr(b.out, "statistics: ");
    ck_assert_msg(sa && sb && strcspn(sa, "\n") == strcspn(sb, "\n") &&
                      !strncmp(sa, sb, strcspn(sa, "\n")),
                  "bf16 and f32 should send the same statistics\nbf16:\n%s\nf32:\n%s", a.out,
                  b.out);
    ck_assert_msg(!strstr(b.out, "storage:") && !strstr(b.out, "ulp"),
                  "the f32 report should be as before (no storage line, no ulps)\n%s", b.out);
}
END_TEST

START_TEST(same_bits_same_ranks)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "rms", "--shard", "hidden", "--rows", "16", "--d", "1001", NULL};
    nl_run_result a, b;
    nl_run_mpi(&a, _i, args);
    nl_run_mpi(&b, _i, args);
    unsigned long long fa = nl_mpi_fingerprint(&a), fb = nl_mpi_fingerprint(&b);
    ck_assert_msg(fa == fb, "two RMSNorm runs with %d ranks gave different outputs "
                  "(fingerprints %016llx and %016llx)", _i, fa, fb);
}
END_TEST

/* Bad input: exit 2 and one message naming the problem. The first case
 * runs on 2 ranks: every rank parses, only rank 0 may speak. */
static const struct {
    const char *args[12];
    const char *says;
} bad_input[] = {
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "hidden", "--bogus", "1"}, "'--bogus'"},
    {{"--rows", "4", "--d", "4", "--shard", "hidden"}, "--norm is required"},
    {{"--norm", "ln", "--rows=abc", "--d", "4", "--shard", "hidden"}, "--rows must be"},
    {{"--norm", "ln", "--rows", "4", "--d", "0", "--shard", "hidden"}, "--d must be"},
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "columns"}, "--shard must be"},
    {{"--norm", "rms", "--rows", "4", "--d", "4", "--shard", "hidden", "--method", "chan"},
     "--method chan is for --norm ln"},
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "hidden", "--dtype", "f16"},
     "fp16 storage is not built"},
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "hidden", "--dtype", "bfloat"},
     "--dtype must be f32 or bf16, got 'bfloat'"},
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "hidden", "--dtype="},
     "--dtype must be f32 or bf16"},
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard"}, "--shard needs a value"},
    {{"--norm", "ln", "--rows", "100000", "--d", "100000", "--shard", "rows"}, "more than"},
};

START_TEST(bad_input_exits_2)
{
    NL_MPI_OR_SKIP();
    nl_run_result r;
    nl_run_mpi(&r, _i == 0 ? 2 : 1, bad_input[_i].args);
    const char *says = bad_input[_i].says;
    const char *first = strstr(r.err, says);
    ck_assert_msg(r.exited && r.code == 2 && first,
                  "bad input (case %d): expected exit 2 and a message containing \"%s\"; got "
                  "exit %d\nstderr: %s", _i, says, r.code, r.err);
    ck_assert_msg(!strstr(first + 1, says),
                  "case %d: the message \"%s\" came twice: only rank 0 should speak\n%s", _i,
                  says, r.err);
}
END_TEST

START_TEST(help_and_equals_form)
{
    NL_MPI_OR_SKIP();
    const char *help[] = {"--help", NULL};
    nl_run_result r;
    nl_run_mpi(&r, 1, help);
    ck_assert_msg(r.code == 0 && strstr(r.out, "usage: mpirun -np P normlab-mpi") &&
                      strstr(r.out, "[--dtype f32|bf16]"),
                  "normlab-mpi --help: expected exit 0 and the usage on stdout; exit %d\n%s%s",
                  r.code, r.out, r.err);
    const char *eq[] = {"--norm=ln", "--rows=3", "--d=5", "--shard=hidden", "--method=chan", NULL};
    expect_accurate(2, eq);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("mpi_norm");
    TCase *tc = tcase_create("norm");
    tcase_set_timeout(tc, 120);   /* mpirun with up to 4 ranks, twice */
    tcase_add_loop_test(tc, agrees_with_reference, 0, (int)(sizeof accurate / sizeof accurate[0]));
    tcase_add_loop_test(tc, bf16_within_an_ulp, 0,
                        4 * (int)(sizeof bf16_cases / sizeof bf16_cases[0]));
    tcase_add_test(tc, bf16_output_is_rounded);
    tcase_add_loop_test(tc, same_bits_same_ranks, 4, 5);
    tcase_add_loop_test(tc, bad_input_exits_2, 0, (int)(sizeof bad_input / sizeof bad_input[0]));
    tcase_add_test(tc, help_and_equals_form);
    suite_add_tcase(s, tc);
    return s;
}
