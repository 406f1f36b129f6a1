/* check_welford.c — Welford's update and Chan's merge, on their own.
 *
 * Three promises: pushing values one at a time gives the mean and M2 of a
 * careful two-pass computation, even far from zero; merging the summaries
 * of two parts gives the summary of the whole, wherever the split; and an
 * empty summary is the identity of the merge. */
#include <math.h>
#include <stdio.h>

#include "harness.h"

enum { N = 1001 };

/* Mean and M2 of v[0..n) by two passes in long double: the yardstick. */
static nl_moments two_pass(const float *v, size_t n)
{
    long double sum = 0.0L, m2 = 0.0L;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    long double mean = n ? sum / (long double)n : 0.0L;
    for (size_t i = 0; i < n; i++)
        m2 += (v[i] - mean) * (v[i] - mean);
    return (nl_moments){(double)n, (double)mean, (double)m2};
}

static nl_moments push_all(const float *v, size_t n)
{
    nl_moments m = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < n; i++)
        nl_welford_push(&m, v[i]);
    return m;
}

/* |a - b| relative to the larger magnitude and to `scale`, the size of
 * the quantity's natural unit (so a mean of 0 is not judged relatively). */
static int within(double a, double b, double scale, double rel)
{
    return fabs(a - b) <= rel * fmax(scale, fmax(fabs(a), fabs(b)));
}

static const char PUSH_HINT[] =
    "Welford: n += 1; the mean moves by (x - mean)/n; M2 grows by "
    "(x - old mean) * (x - new mean).";
static const char MERGE_HINT[] =
    "Chan: with delta = b.mean - a.mean, the mean is a.mean + delta * b.n/n "
    "and M2 is a.M2 + b.M2 + delta^2 * a.n * b.n / n.";

static void assert_same(nl_moments got, nl_moments want, double spread,
                        double rel, const char *what, const char *hint)
{
    ck_assert_msg(got.n == want.n, "%s: count is %g, expected %g. %s", what, got.n,
                  want.n, hint);
    ck_assert_msg(within(got.mean, want.mean, spread, rel),
                  "%s: mean is %.17g, expected %.17g (relative error allowed %.0e). %s",
                  what, got.mean, want.mean, rel, hint);
    ck_assert_msg(within(got.m2, want.m2, spread * spread, rel),
                  "%s: M2 is %.17g, expected %.17g (relative error allowed %.0e). %s",
                  what, got.m2, want.m2, rel, hint);
}

START_TEST(push_matches_two_pass)
{
    /* (mean, std): unit scale, an offset that sinks E[x^2]-E[x]^2 even in
     * double at 1e8, and huge values whose squares overflow float. */
    const double data[][2] = {{0.0, 1.0}, {1e4, 1.0}, {1e8, 1.0}, {0.0, 1e20}};
    float v[N];
    for (size_t k = 0; k < sizeof data / sizeof data[0]; k++) {
        nl_fill_gauss(v, N, data[k][0], data[k][1], 70 + k);
        char what[96];
        snprintf(what, sizeof what, "Welford over %d values of mean %g, std %g",
                 N, data[k][0], data[k][1]);
        /* The deviations x - mean are rounded at the double mean's
         * spacing, |mean| * 2^-53: at 1e8 that is 1e-8 against float
         * inputs spaced 8 apart, so the bound grows with the mean (the
         * unstable formula is off by O(1) there, far beyond it). */
        double rel = 1e-9 * (1.0 + data[k][0] / 1e6);
        assert_same(push_all(v, N), two_pass(v, N), data[k][1], rel, what, PUSH_HINT);
    }
}
END_TEST

START_TEST(merging_the_parts_gives_the_whole)
{
    const size_t splits[] = {0, 1, 2, N / 3, N / 2, N - 1, N};
    const double means[] = {0.0, 1e4};
    float v[N];
    for (size_t j = 0; j < sizeof means / sizeof means[0]; j++) {
        nl_fill_gauss(v, N, means[j], 1.0, 80 + j);
        nl_moments whole = push_all(v, N);
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            size_t s = splits[k];
            nl_moments merged = nl_chan_merge(push_all(v, s), push_all(v + s, N - s));
            char what[96];
            snprintf(what, sizeof what, "merge of [0, %zu) and [%zu, %d), mean %g",
                     s, s, N, means[j]);
            /* Each push rounds a deviation from a double mean of size
             * |mean|, so the two orders of summation part by about
             * |mean| * 2^-53 per value: relative 1e-12 at mean 0, scaled
             * by the mean (a wrong merge is off by O(1)). */
            double rel = 1e-12 * (1.0 + means[j] / 100.0);
            assert_same(merged, whole, 1.0, rel, what, MERGE_HINT);
        }
    }
}
END_TEST

START_TEST(merging_many_pieces_gives_the_whole)
{
    /* The way SIMD lanes and threads use it: one summary per piece,
     * merged left to right. */
    float v[N];
    nl_fill_gauss(v, N, 3.0, 2.0, 90);
    const size_t piece = 37; /* does not divide N */
    nl_moments acc = {0.0, 0.0, 0.0};
    for (size_t s = 0; s < N; s += piece) {
        size_t len = s + piece <= N ? piece : N - s;
        acc = nl_chan_merge(acc, push_all(v + s, len));
    }
    assert_same(acc, two_pass(v, N), 2.0, 1e-12, "merge of pieces of 37 values", MERGE_HINT);
}
END_TEST

START_TEST(empty_summary_is_the_identity)
{
    float v[N];
    nl_fill_gauss(v, N, 1e4, 1.0, 95);
    nl_moments m = push_all(v, N), empty = {0.0, 0.0, 0.0};
    nl_moments left = nl_chan_merge(empty, m), right = nl_chan_merge(m, empty);
    ck_assert_msg(left.n == m.n && left.mean == m.mean && left.m2 == m.m2,
                  "merge(empty, m) = {n %g, mean %.17g, M2 %.17g}, expected m itself "
                  "{n %g, mean %.17g, M2 %.17g}", left.n, left.mean, left.m2, m.n, m.mean, m.m2);
    ck_assert_msg(right.n == m.n && right.mean == m.mean && right.m2 == m.m2,
                  "merge(m, empty) = {n %g, mean %.17g, M2 %.17g}, expected m itself "
                  "{n %g, mean %.17g, M2 %.17g}", right.n, right.mean, right.m2, m.n, m.mean, m.m2);
    nl_moments none = nl_chan_merge(empty, empty);
    ck_assert_msg(none.n == 0.0 && none.mean == 0.0 && none.m2 == 0.0,
                  "merging two empty summaries must give an empty one, not "
                  "{n %g, mean %g, M2 %g} (0/0 is NaN)", none.n, none.mean, none.m2);
}
END_TEST

START_TEST(merging_one_value_at_a_time)
{
    /* A single value is the summary {1, x, 0}; merging those one by one is
     * Welford's update written another way, so it must reach the same
     * moments (checked against two passes, so a broken push is not
     * blamed on the merge). */
    float v[N];
    nl_fill_gauss(v, N, -2.0, 0.5, 99);
    nl_moments merged = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < N; i++)
        merged = nl_chan_merge(merged, (nl_moments){1.0, v[i], 0.0});
    assert_same(merged, two_pass(v, N), 0.5, 1e-12, "merging one value at a time", MERGE_HINT);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("welford");
    TCase *tc = tcase_create("welford");
    tcase_add_test(tc, push_matches_two_pass);
    tcase_add_test(tc, merging_the_parts_gives_the_whole);
    tcase_add_test(tc, merging_many_pieces_gives_the_whole);
    tcase_add_test(tc, empty_summary_is_the_identity);
    tcase_add_test(tc, merging_one_value_at_a_time);
    suite_add_tcase(s, tc);
    return s;
}
