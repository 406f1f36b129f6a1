/* check_mpi_norm.c — build/normlab-mpi under mpirun with 1 to 4 ranks:
 * RMSNorm's one all-reduce, rows split instead of columns, empty shards,
 * rows = 0, the same bits for the same P, and the command line.
 * (LayerNorm's Chan merge has its own suite, check_mpi_chan.c.) */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define TOL 1e-6   /* stated by code/mpi/cli/main.c */

static void expect_accurate(int ranks, const char *const *args)
{
    nl_run_result r;
    nl_run_mpi(&r, ranks, args);
    double err = nl_mpi_max_error(&r);
    char cmd[256] = "";
    for (size_t i = 0; args[i]; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", args[i]);
    ck_assert_msg(err <= TOL && r.exited && r.code == 0,
                  "normlab-mpi%s on %d rank(s): max error %g, expected <= %g (exit %d)\n%s%s",
                  cmd, ranks, err, TOL, r.code, r.out, r.err);
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
    {{"--norm", "ln", "--rows", "4", "--d", "4", "--shard", "hidden", "--dtype", "bf16"},
     "--dtype must be"},
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
    ck_assert_msg(r.code == 0 && strstr(r.out, "usage: mpirun -np P normlab-mpi"),
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
    tcase_add_loop_test(tc, same_bits_same_ranks, 4, 5);
    tcase_add_loop_test(tc, bad_input_exits_2, 0, (int)(sizeof bad_input / sizeof bad_input[0]));
    tcase_add_test(tc, help_and_equals_form);
    suite_add_tcase(s, tc);
    return s;
}
