/* check_mpi_chan.c — LayerNorm over a row split across MPI ranks: the
 * (n, mean, M2) summaries merged by the Chan MPI_Op (code/mpi/chan_op.c,
 * exercise 14) against the (sum, sum of squares) MPI_SUM.
 *
 * Each test runs build/normlab-mpi under `mpirun -np P --oversubscribe`
 * for P between 1 and 4 and reads the max error it printed against the serial
 * double reference. With one rank MPI never calls the operation, so the
 * tests that can catch a wrong merge are those with P >= 2. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* The tolerance normlab-mpi states (code/mpi/cli/main.c): the output is
 * computed in double from exact statistics and rounded once to float. */
#define TOL 1e-6

static void expect_accurate(int ranks, const char *what, const char *const *args)
{
    nl_run_result r;
    nl_run_mpi(&r, ranks, args);
    double err = nl_mpi_max_error(&r);
    ck_assert_msg(err <= TOL && r.exited && r.code == 0,
                  "LayerNorm, %s, %d rank(s), --method chan: max error %g, expected <= %g "
                  "(exit %d). Hint: the merged summary of a row must be exactly the one of the "
                  "whole row; does chan_reduce merge every lower[i] into upper[i] with "
                  "nl_chan_merge, for all *len elements?\n%s%s",
                  what, ranks, err, TOL, r.code, r.out, r.err);
}

/* Rows near 4e4 with unit spread: E[x^2] and E[x]^2 agree in every digit
 * a float holds, so only a merge of centred summaries is right. */
START_TEST(chan_offset)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "16",
                          "--d", "1000", "--mean", "4e4", NULL};
    expect_accurate(_i, "offset data (mean 4e4, std 1, d = 1000)", args);
}
END_TEST

/* 4099 columns (nl_shard_of): 2050 + 2049, 1367 + 1366 + 1366, 1025 x 3 + 1024. */
START_TEST(chan_uneven)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "64",
                          "--d", "4099", NULL};
    expect_accurate(_i, "uneven shards (d = 4099)", args);
}
END_TEST

/* Fewer columns than ranks: some ranks hold nothing and send n = 0,
 * which the merge must treat as the identity. */
START_TEST(chan_tiny_shards)
{
    NL_MPI_OR_SKIP();
    const char *d = _i == 3 ? "5" : "2";
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "32",
                          "--d", d, "--mean", "100", NULL};
    char what[64];
    snprintf(what, sizeof what, "d = %s over %d ranks, mean 100", d, _i);
    expect_accurate(_i, what, args);
}
END_TEST

/* The lesson kept on purpose: the same rows with (sum, sum of squares)
 * in float and MPI_SUM come out visibly wrong, and the program says so
 * with exit 1. */
START_TEST(sums_fail_on_offset)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "sums", "--rows", "16",
                          "--d", "1000", "--mean", "4e4", NULL};
    nl_run_result r;
    nl_run_mpi(&r, _i, args);
    double err = nl_mpi_max_error(&r);
    ck_assert_msg(!(err <= 1e-2) && r.exited && r.code == 1,
                  "--method sums on rows near 4e4 over %d rank(s): max error %g (exit %d), "
                  "expected > 1e-2 and exit 1: E[x^2] - E[x]^2 in float must cancel here; if "
                  "this passes, the sums are no longer what chapter 11 shows failing\n%s%s",
                  _i, err, r.code, r.out, r.err);
}
END_TEST

/* The same P gives the same bits, run after run: what Open MPI does on
 * one machine with one configuration (it picks the same algorithm each
 * time), not a promise of the standard, which lets the bracketing change;
 * a commutative operation would pass this too. The promise is
 * chan_rank_order's. */
START_TEST(chan_same_bits_same_ranks)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "16",
                          "--d", "1001", "--mean", "4e4", NULL};
    nl_run_result a, b;
    nl_run_mpi(&a, _i, args);
    unsigned long long fa = nl_mpi_fingerprint(&a);
    nl_run_mpi(&b, _i, args);
    unsigned long long fb = nl_mpi_fingerprint(&b);
    ck_assert_msg(fa == fb, "two runs with %d ranks gave different outputs (fingerprints %016llx "
                  "and %016llx): the reduction order changed between runs", _i, fa, fb);
}
END_TEST

/* --method chan-ordered folds the summaries on rank 0 with MPI_Reduce_local
 * and the Chan operation, left to right in rank order, and compares every
 * row's merged (n, mean, M2) bit for bit with the serial fold
 * nl_chan_merge(lower, upper): a fixed answer, whatever the MPI. An
 * operation that merges in the wrong order, nl_chan_merge(upper, lower),
 * is as accurate (the accuracy tests pass it) but rounds the mean
 * differently. Not on rows near 4e4, where the shard means are large and
 * the correction tiny, so both orders round to the same double; on
 * centred rows (mean 0) the two terms are of one size and 38 to 52 of the
 * 64 rows differ (2 to 4 ranks). */
START_TEST(chan_rank_order)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan-ordered",
                          "--rows", "64", "--d", "4099", NULL};
    nl_run_result r;
    nl_run_mpi(&r, _i, args);
    const char *line = strstr(r.out, "rank order: ");
    size_t same = 0, rows = 0;
    int parsed = line && sscanf(line, "rank order: merged (n, mean, M2) equal the serial fold in "
                                      "rank order in %zu of %zu rows", &same, &rows) == 2;
    ck_assert_msg(parsed && rows == 64 && same == rows && r.exited && r.code == 0,
                  "--method chan-ordered, %d ranks, d = 4099, mean 0: %zu of 64 rows merged "
                  "in rank order (exit %d), expected all 64. Hint: MPI calls chan_reduce(in, "
                  "inout) with in holding the LOWER ranks' summaries and wants inout = in (op) "
                  "inout: upper[i] = nl_chan_merge(lower[i], upper[i]). Written "
                  "nl_chan_merge(upper[i], lower[i]), the operands are swapped: as accurate, "
                  "so the error tests pass, but the mean rounds differently and the order MPI "
                  "defines is not the one computed\n%s%s",
                  _i, same, r.code, r.out, r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("mpi_chan");
    TCase *tc = tcase_create("chan");
    /* Each test starts mpirun with up to 4 ranks on a small machine. */
    tcase_set_timeout(tc, 120);
    /* First: for the swapped merge, the only test that fails, so its
     * message is the first line of feedback either way. */
    tcase_add_loop_test(tc, chan_rank_order, 2, 5);
    tcase_add_loop_test(tc, chan_offset, 1, 5);
    tcase_add_loop_test(tc, chan_uneven, 2, 5);
    tcase_add_loop_test(tc, chan_tiny_shards, 3, 5);
    tcase_add_loop_test(tc, sums_fail_on_offset, 2, 5);
    tcase_add_loop_test(tc, chan_same_bits_same_ranks, 3, 4);
    suite_add_tcase(s, tc);
    return s;
}
