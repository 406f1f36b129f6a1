/* check_backward_fd.c — the derivation itself: the analytic gradient in
 * double (nl_backward_reference) against central finite differences of the
 * forward (nl_backward_numeric), for LayerNorm, RMSNorm and Gemma's (1 + w)
 * RMSNorm; and the invariants the gradients must keep, for the reference
 * and for every float implementation:
 *   LayerNorm: sum_i dx[i] = 0 per row (y does not change when x shifts);
 *   RMSNorm with eps = 0: x . dx = 0 per row (y does not change when x
 *   scales), whatever gamma is. */
#include <math.h>
#include <stdlib.h>

#include "grad.h"

enum { FD_ROWS = 6, FD_D = 23 };

static void fd_agrees(nl_norm norm, int offset)
{
    size_t n = FD_ROWS * FD_D;
    float *x = nl_alloc(n * sizeof(float)), *dy = nl_alloc(n * sizeof(float));
    float gamma[FD_D];
    double *a = malloc(n * 2 * sizeof(double)), ga[FD_D], gn[FD_D], ba[FD_D], bn[FD_D];
    ck_assert(x && dy && a);
    double *num = a + n;
    nl_fill_gauss(x, n, 0.5, 2.0, 3);
    nl_fill_gauss(dy, n, 0.0, 1.0, 4);
    nl_fill_gauss(gamma, FD_D, offset ? 0.0 : 1.0, 0.3, 5); /* Gemma stores w ~ 0 */
    ck_assert_int_eq(nl_backward_reference(norm, x, gamma, dy, 1e-5, offset, FD_ROWS, FD_D,
                                           a, ga, ba), 0);
    ck_assert_int_eq(nl_backward_numeric(norm, x, gamma, dy, 1e-5, offset, 1e-6, FD_ROWS, FD_D,
                                         num, gn, bn), 0);
    const char *name = offset ? "Gemma RMSNorm (1 + w)" : nl_norm_name(norm);
    /* h = 1e-6: truncation ~h^2 = 1e-12, rounding ~1e-16 / h = 1e-10 of
     * the loss: 1e-6 leaves a wide margin and still catches any wrong
     * term (those are errors of order one). */
    double e = nl_grad_rel_err_d(a, num, n);
    ck_assert_msg(e < 1e-6, "%s: the analytic dx differs from finite differences by %.3g "
                  "(relative; expected < 1e-6): the formula in nl_backward_reference is wrong",
                  name, e);
    e = nl_grad_rel_err_d(ga, gn, FD_D);
    ck_assert_msg(e < 1e-6, "%s: analytic dgamma vs finite differences: %.3g (expected < 1e-6)%s",
                  name, e, offset ? "; for (1 + w), dL/dw = dL/dgamma" : "");
    if (norm == NL_LAYERNORM) {
        e = nl_grad_rel_err_d(ba, bn, FD_D);
        ck_assert_msg(e < 1e-6, "LayerNorm: analytic dbeta vs finite differences: %.3g", e);
    }
    nl_free(x);
    nl_free(dy);
    free(a);
}

START_TEST(layernorm_reference_matches_finite_differences) { fd_agrees(NL_LAYERNORM, 0); }
END_TEST
START_TEST(rmsnorm_reference_matches_finite_differences) { fd_agrees(NL_RMSNORM, 0); }
END_TEST
START_TEST(gemma_rmsnorm_reference_matches_finite_differences) { fd_agrees(NL_RMSNORM, 1); }
END_TEST

/* The finite differences must be able to fail: the RMSNorm gradient is
 * not the LayerNorm one. */
START_TEST(finite_differences_tell_the_norms_apart)
{
    size_t n = FD_ROWS * FD_D;
    float *x = nl_alloc(n * sizeof(float)), *dy = nl_alloc(n * sizeof(float)), gamma[FD_D];
    double *a = malloc(2 * n * sizeof(double)), g1[FD_D], g2[FD_D], b[FD_D];
    ck_assert(x && dy && a);
    nl_fill_gauss(x, n, 0.5, 2.0, 3);
    nl_fill_gauss(dy, n, 0.0, 1.0, 4);
    nl_fill_gauss(gamma, FD_D, 1.0, 0.3, 5);
    nl_backward_reference(NL_LAYERNORM, x, gamma, dy, 1e-5, 0, FD_ROWS, FD_D, a, g1, b);
    nl_backward_numeric(NL_RMSNORM, x, gamma, dy, 1e-5, 0, 1e-6, FD_ROWS, FD_D, a + n, g2, NULL);
    double e = nl_grad_rel_err_d(a, a + n, n);
    ck_assert_msg(e > 0.1, "LayerNorm's analytic dx and RMSNorm's numeric dx agree to %.3g on "
                  "data of mean 0.5: the check could not tell a wrong gradient from a right one", e);
    nl_free(x);
    nl_free(dy);
    free(a);
}
END_TEST

/* Shift invariance: LayerNorm(x + c) = LayerNorm(x), so moving every x of
 * a row by the same amount changes nothing: sum_i dx[i] = 0. */
/* dx from the float outputs, or from the double reference when ref. */
#define DX(p, k, ref) ((ref) ? (p)->ref_dx[k] : (double)(p)->dx[k])

static void row_sums_zero(const nl_bwd_problem *p, int ref, const char *who, double tol)
{
    for (size_t r = 0; r < p->rows; r++) {
        double s = 0.0, mag = 0.0;
        for (size_t i = 0; i < p->d; i++) {
            s += DX(p, r * p->d + i, ref);
            mag += fabs(DX(p, r * p->d + i, ref));
        }
        ck_assert_msg(fabs(s) <= tol * mag, "%s: row %zu of dx sums to %g, expected 0 (within "
                      "%.0e of sum |dx| = %g): LayerNorm ignores a shift of x, so its gradient "
                      "has no component along (1, ..., 1). Is the mean(g) term there?",
                      who, r, s, tol, mag);
    }
}

/* Scale invariance with eps = 0: RMSNorm(a x) = RMSNorm(x), so
 * x . dx = 0 per row, for any gamma. */
static void orthogonal_to_x(const nl_bwd_problem *p, int ref, const char *who, double tol)
{
    for (size_t r = 0; r < p->rows; r++) {
        double s = 0.0, mag = 0.0;
        for (size_t i = 0; i < p->d; i++) {
            s += (double)p->x[r * p->d + i] * DX(p, r * p->d + i, ref);
            mag += fabs((double)p->x[r * p->d + i] * DX(p, r * p->d + i, ref));
        }
        ck_assert_msg(fabs(s) <= tol * mag, "%s: x . dx = %g on row %zu, expected 0 (within "
                      "%.0e of %g): with eps = 0 RMSNorm ignores the scale of x, so dx has no "
                      "component along x. A coupling term that is missing, or has the wrong "
                      "power of rstd, breaks exactly this", who, s, r, tol, mag);
    }
}

static void invariant(nl_norm norm, int i)
{
    NL_BWD_OR_SKIP(impl, norm, (size_t)i);
    float eps = norm == NL_RMSNORM ? 0.0f : NL_TEST_EPS;
    nl_bwd_problem p = nl_bwd_problem_new(norm, 37, 301, eps, 21);
    if (norm == NL_LAYERNORM)
        row_sums_zero(&p, 1, "nl_backward_reference", 1e-12);
    else
        orthogonal_to_x(&p, 1, "nl_backward_reference", 1e-12);
    nl_bwd_run(impl, &p);
    /* float: each dx carries a few ulps, and the sums cancel them only to
     * ~sqrt(d) ulps of sum |dx| */
    if (norm == NL_LAYERNORM)
        row_sums_zero(&p, 0, impl->name, 1e-5);
    else
        orthogonal_to_x(&p, 0, impl->name, 1e-5);
    nl_bwd_problem_free(&p);
}

START_TEST(layernorm_dx_sums_to_zero) { invariant(NL_LAYERNORM, _i); }
END_TEST
START_TEST(rmsnorm_dx_orthogonal_to_x) { invariant(NL_RMSNORM, _i); }
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("backward_fd");
    TCase *tc = tcase_create("fd");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, layernorm_reference_matches_finite_differences);
    tcase_add_test(tc, rmsnorm_reference_matches_finite_differences);
    tcase_add_test(tc, gemma_rmsnorm_reference_matches_finite_differences);
    tcase_add_test(tc, finite_differences_tell_the_norms_apart);
    tcase_add_loop_test(tc, layernorm_dx_sums_to_zero, 0, (int)nl_bwd_count(NL_LAYERNORM));
    tcase_add_loop_test(tc, rmsnorm_dx_orthogonal_to_x, 0, (int)nl_bwd_count(NL_RMSNORM));
    suite_add_tcase(s, tc);
    return s;
}
