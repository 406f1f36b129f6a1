/* check_invariance.c — the symmetries that tell the two norms apart.
 *
 * LayerNorm(x + c) = LayerNorm(x): re-centring removes any shift.
 * RMSNorm(x + c) != RMSNorm(x): it has no mean to remove (the one word
 * less), so a shift changes its output a lot.
 * Both are scale-invariant: N(a x) = N(x) for a > 0. With eps the identity
 * is exact only if eps scales with the variance, N(a x; a^2 eps) = N(x; eps),
 * and that is the form tested: no allowance for eps is needed.
 * Both are odd with beta = 0: N(-x) = -N(x). */
#include <math.h>

#include "harness.h"

enum { ROWS = 5, D = 1000 };

/* max |u - v| over n values; NaN if either holds a NaN. */
static double max_diff(const float *u, const float *v, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)u[i] - (double)v[i]);
        if (isnan(e))
            return NAN;
        if (e > worst)
            worst = e;
    }
    return worst;
}

/* Runs impl on x (ROWS x D) with eps into y. */
static void run_on(const nl_impl *impl, nl_problem *p, const float *x, float eps, float *y)
{
    const float *beta = impl->norm == NL_LAYERNORM ? p->beta : NULL;
    int rc = impl->fn(x, p->gamma, beta, eps, p->rows, p->d, y);
    ck_assert_msg(rc == 0, "%s failed (code %d): %s", impl->name, rc, nl_last_error());
}

START_TEST(shift_changes_rmsnorm_not_layernorm)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const float shifts[] = {4.0f, -2.5f};
    nl_problem p = nl_problem_new(ROWS, D);
    nl_fill_gauss(p.x, ROWS * D, 0.0, 1.0, 11);
    float *xs = nl_alloc(ROWS * D * sizeof(float));
    float *ys = nl_alloc(ROWS * D * sizeof(float));
    ck_assert(xs && ys);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; k++) {
        float c = shifts[k];
        for (size_t i = 0; i < ROWS * D; i++)
            xs[i] = p.x[i] + c;
        run_on(impl, &p, xs, NL_TEST_EPS, ys);
        double diff = max_diff(p.y, ys, ROWS * D);
        if (impl->norm == NL_LAYERNORM) {
            /* Each implementation is within tol of the truth on both
             * inputs; the shifted one is offset by |c| std, which scales
             * the rounding error of a float mean by up to 1 + |c|. */
            double bound = 2 * impl->tol * (1.0 + fabs(c));
            ck_assert_msg(diff <= bound,
                          "%s: LayerNorm(x + %g) differs from LayerNorm(x) by %.3g "
                          "(allowed %.3g). Re-centring should cancel any shift: is the "
                          "mean subtracted everywhere it should be?",
                          impl->name, c, diff, bound);
        } else {
            ck_assert_msg(diff > 0.5,
                          "%s: RMSNorm(x + %g) differs from RMSNorm(x) by only %.3g; "
                          "RMSNorm keeps the mean, so shifting unit-scale data by %g "
                          "must move the output by more than 0.5. Are you "
                          "subtracting the mean? RMSNorm must not.",
                          impl->name, c, diff, c);
        }
    }
    nl_free(xs);
    nl_free(ys);
    nl_problem_free(&p);
}
END_TEST

START_TEST(scale_leaves_both_unchanged)
{
    NL_IMPL_OR_SKIP(impl, _i);
    /* Powers of two scale every float exactly; 3 and 0.1 add one rounding
     * per input, far below tol. The spread (std 0.01, variance 1e-4) is
     * chosen so that eps is a tenth of the variance: eps in the wrong
     * place then shows, instead of hiding below the rounding. */
    const float scales[] = {0.125f, 4.0f, 1024.0f, 3.0f, 0.1f};
    nl_problem p = nl_problem_new(ROWS, D);
    nl_fill_gauss(p.x, ROWS * D, 0.005, 0.01, 12);
    float *xs = nl_alloc(ROWS * D * sizeof(float));
    float *ys = nl_alloc(ROWS * D * sizeof(float));
    ck_assert(xs && ys);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        float a = scales[k];
        for (size_t i = 0; i < ROWS * D; i++)
            xs[i] = a * p.x[i];
        run_on(impl, &p, xs, NL_TEST_EPS * a * a, ys);
        double diff = max_diff(p.y, ys, ROWS * D);
        ck_assert_msg(diff <= 2 * impl->tol,
                      "%s: %s(%g x, eps = %g) differs from %s(x, eps = %g) by %.3g "
                      "(allowed %.3g). Dividing by the spread of the row should "
                      "cancel any positive scale: is eps added inside the square "
                      "root, to the variance (not to the standard deviation)?",
                      impl->name, nl_norm_name(impl->norm), a, NL_TEST_EPS * a * a,
                      nl_norm_name(impl->norm), NL_TEST_EPS, diff, 2 * impl->tol);
    }
    nl_free(xs);
    nl_free(ys);
    nl_problem_free(&p);
}
END_TEST

START_TEST(negating_the_input_negates_the_output)
{
    NL_IMPL_OR_SKIP(impl, _i);
    nl_problem p = nl_problem_new(ROWS, D);
    nl_fill_gauss(p.x, ROWS * D, 0.5, 1.0, 13);
    float *xs = nl_alloc(ROWS * D * sizeof(float));
    float *ys = nl_alloc(ROWS * D * sizeof(float));
    ck_assert(xs && ys);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    for (size_t i = 0; i < ROWS * D; i++)
        xs[i] = -p.x[i];
    run_on(impl, &p, xs, NL_TEST_EPS, ys);
    for (size_t i = 0; i < ROWS * D; i++)
        ys[i] = -ys[i];
    double diff = max_diff(p.y, ys, ROWS * D);
    ck_assert_msg(diff <= 2 * impl->tol,
                  "%s: -%s(-x) differs from %s(x) by %.3g (allowed %.3g); with "
                  "beta = 0 both norms are odd functions. An absolute value or "
                  "a squared term where a plain one belongs breaks this.",
                  impl->name, nl_norm_name(impl->norm), nl_norm_name(impl->norm),
                  diff, 2 * impl->tol);
    nl_free(xs);
    nl_free(ys);
    nl_problem_free(&p);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("invariance");
    TCase *tc = tcase_create("invariance");
    tcase_add_loop_test(tc, shift_changes_rmsnorm_not_layernorm, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, scale_leaves_both_unchanged, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, negating_the_input_negates_the_output, 0, (int)nl_impl_count());
    suite_add_tcase(s, tc);
    return s;
}
