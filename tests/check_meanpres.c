/* check_meanpres.c — what each norm does to a row's mean and spread, with
 * gamma = 1 and beta = 0.
 *
 * LayerNorm re-centres: every output row has mean 0 and variance
 * var/(var + eps), i.e. 1 for unit-scale data. RMSNorm does not re-centre
 * (the one word less): an output row keeps the mean of its input, divided
 * by the input's RMS, and its mean square is ms/(ms + eps). The input rows
 * are offset on purpose (means from -3.5 to 3.5, std 2), so a LayerNorm
 * that forgets the mean, or an RMSNorm that subtracts it, cannot pass. */
#include <math.h>

#include "harness.h"

enum { ROWS = 8 };

/* |mean| of a LayerNorm output row stays below this. The float mean of a
 * row is off by about 1e-7 x |mean|/std, and that is what remains after
 * subtraction; 1e-5 leaves a wide margin and still catches a kernel that
 * re-centres with the wrong mean (or not at all: then |mean| ~ 0.8). */
static const double MEAN_BOUND = 1e-5;

static nl_problem offset_rows(size_t d, uint64_t seed)
{
    nl_problem p = nl_problem_new(ROWS, d);
    for (size_t r = 0; r < ROWS; r++)
        nl_fill_gauss(p.x + r * d, d, (double)r - 3.5, 2.0, seed + r);
    return p;
}

static void check_layernorm_row(const nl_impl *impl, const nl_problem *p, size_t r)
{
    nl_row_stats in = nl_stats_of(p->x + r * p->d, p->d);
    nl_row_stats out = nl_stats_of(p->y + r * p->d, p->d);
    ck_assert_msg(fabs(out.mean) < MEAN_BOUND,
                  "%s, d = %zu, row %zu: mean of the output is %.3g, expected "
                  "|mean| < %.0e (the input's mean was %.3g). Did you subtract "
                  "the mean before scaling?",
                  impl->name, p->d, r, out.mean, MEAN_BOUND, in.mean);
    double want = in.var / (in.var + NL_TEST_EPS);
    ck_assert_msg(fabs(out.var - want) <= 4 * impl->tol,
                  "%s, d = %zu, row %zu: variance of the output is %.9g, expected "
                  "%.9g (= var/(var + eps), about 1). Did you divide by "
                  "sqrt(variance + eps), with the variance taken around the mean?",
                  impl->name, p->d, r, out.var, want);
}

static void check_rmsnorm_row(const nl_impl *impl, const nl_problem *p, size_t r)
{
    nl_row_stats in = nl_stats_of(p->x + r * p->d, p->d);
    nl_row_stats out = nl_stats_of(p->y + r * p->d, p->d);
    double rms = sqrt(in.ms + NL_TEST_EPS);
    double want_mean = in.mean / rms;
    ck_assert_msg(fabs(out.mean - want_mean) <= 2 * impl->tol,
                  "%s, d = %zu, row %zu: mean of the output is %.6g, expected "
                  "mean(x)/rms(x) = %.6g / %.6g = %.6g. RMSNorm does not "
                  "re-centre: the mean must survive the scaling.",
                  impl->name, p->d, r, out.mean, in.mean, rms, want_mean);
    double want_ms = in.ms / (in.ms + NL_TEST_EPS);
    ck_assert_msg(fabs(out.ms - want_ms) <= 4 * impl->tol,
                  "%s, d = %zu, row %zu: mean square of the output is %.9g, "
                  "expected %.9g (= ms/(ms + eps), about 1). Did you divide by "
                  "sqrt(mean of x^2 + eps)?",
                  impl->name, p->d, r, out.ms, want_ms);
}

START_TEST(rows_come_out_with_the_right_moments)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t widths[] = {7, 64, 1000, 4097};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        nl_problem p = offset_rows(widths[k], 40 + 10 * k);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        for (size_t r = 0; r < ROWS; r++) {
            if (impl->norm == NL_LAYERNORM)
                check_layernorm_row(impl, &p, r);
            else
                check_rmsnorm_row(impl, &p, r);
        }
        nl_problem_free(&p);
    }
}
END_TEST

START_TEST(rmsnorm_keeps_an_offset_layernorm_removes_it)
{
    /* The contrast in one number per row: with inputs of mean 0.5 and
     * std 2, RMSNorm's output mean is 0.5/sqrt(4.25) = 0.24, LayerNorm's is
     * 0. Stated separately so that the failure names the concept. */
    NL_IMPL_OR_SKIP(impl, _i);
    nl_problem p = nl_problem_new(1, 1000);
    nl_fill_gauss(p.x, 1000, 0.5, 2.0, 77);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    double m = nl_stats_of(p.y, 1000).mean;
    /* The expected mean is the drawn row's own mean over its own root mean
     * square: the sample of 1000 values wanders about 0.24 by a few
     * hundredths from one seed (NL_TEST_SEED) to the next, so a fixed band
     * around 0.24 would fail a correct kernel for some seeds. */
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < 1000; i++) {
        sum += p.x[i];
        sumsq += (double)p.x[i] * p.x[i];
    }
    double want = (sum / 1000) / sqrt(sumsq / 1000 + NL_TEST_EPS);
    if (impl->norm == NL_LAYERNORM)
        ck_assert_msg(fabs(m) < MEAN_BOUND,
                      "%s: LayerNorm of a row with mean 0.5 has output mean %.3g; "
                      "re-centring should make it 0", impl->name, m);
    else
        ck_assert_msg(fabs(m - want) < 1e-4,
                      "%s: RMSNorm of a row with mean 0.5, std 2 has output mean "
                      "%.3g; it should keep the offset: this row's mean over its "
                      "root mean square is %.4f (about 0.5/sqrt(4.25) = 0.24). %s",
                      impl->name, m, want,
                      fabs(m) < 1e-3 ? "Did you subtract the mean? RMSNorm must not."
                                     : "Check the scaling.");
    nl_problem_free(&p);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("meanpres");
    TCase *tc = tcase_create("meanpres");
    tcase_add_loop_test(tc, rows_come_out_with_the_right_moments, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, rmsnorm_keeps_an_offset_layernorm_removes_it, 0, (int)nl_impl_count());
    suite_add_tcase(s, tc);
    return s;
}
