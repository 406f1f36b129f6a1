/* check_block_dyt.c — what DyT (y = gamma * tanh(alpha x) + beta) does
 * and does not preserve, next to RMSNorm (chapter 9).
 *
 *   - RMSNorm is scale invariant: RMSNorm(c x) = RMSNorm(x) for c > 0
 *     (up to eps); DyT is not: scaling a row by 10 changes it.
 *   - DyT is bounded: |y - beta| <= |gamma|, whatever x; a norm's output
 *     grows with d (its rms is 1, its largest entry up to sqrt(d)).
 *   - Near 0, DyT is linear: y ~ gamma * alpha * x + beta.
 *   - It is element-wise: a NaN spoils one element, not its row. */
#include <math.h>
#include <string.h>

#include "harness.h"

enum { ROWS = 4, D = 256 };

/* max |a - b| (a plain comparison: aarch64 GCC 12's vectoriser fails on
 * an fmax reduction here with an internal compiler error). */
static double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        if (e > m)
            m = e;
    }
    return m;
}

START_TEST(rmsnorm_is_scale_invariant_dyt_is_not)
{
    float x[ROWS * D], cx[ROWS * D], y1[ROWS * D], y2[ROWS * D], g[D];
    nl_fill_gauss(x, ROWS * D, 0.0, 1.0, 11);
    nl_fill_const(g, D, 1.0f);
    for (size_t i = 0; i < ROWS * D; i++)
        cx[i] = 10.0f * x[i];
    const nl_impl *rms = nl_find_impl("rmsnorm_fused");
    ck_assert(rms);
    rms->fn(x, g, NULL, 1e-6f, ROWS, D, y1);
    rms->fn(cx, g, NULL, 1e-6f, ROWS, D, y2);
    double rms_diff = max_diff(y1, y2, ROWS * D);
    nl_dyt(x, 0.5f, g, NULL, ROWS, D, y1);
    nl_dyt(cx, 0.5f, g, NULL, ROWS, D, y2);
    double dyt_diff = max_diff(y1, y2, ROWS * D);
    ck_assert_msg(rms_diff < 1e-5, "RMSNorm(10 x) differs from RMSNorm(x) by %g", rms_diff);
    ck_assert_msg(dyt_diff > 0.1, "DyT(10 x) should differ from DyT(x) (no statistics of the "
                  "row), but max difference is %g", dyt_diff);
}
END_TEST

START_TEST(dyt_is_bounded_and_linear_near_zero)
{
    float x[ROWS * D], y[ROWS * D], g[D], b[D];
    nl_fill_gauss(x, ROWS * D, 0.0, 1e4, 12); /* far into saturation */
    nl_fill_gauss(g, D, 1.0, 0.3, 13);
    nl_fill_gauss(b, D, 0.0, 0.3, 14);
    ck_assert_int_eq(nl_dyt(x, 0.5f, g, b, ROWS, D, y), NL_OK);
    for (size_t i = 0; i < ROWS * D; i++)
        ck_assert_msg(fabsf(y[i] - b[i % D]) <= fabsf(g[i % D]) + 1e-6f,
                      "DyT output %g at %zu leaves [beta - |gamma|, beta + |gamma|] = %g +- %g",
                      y[i], i, b[i % D], fabsf(g[i % D]));
    nl_fill_gauss(x, ROWS * D, 0.0, 1e-4, 15);
    nl_dyt(x, 0.5f, g, b, ROWS, D, y);
    for (size_t i = 0; i < ROWS * D; i++) {
        double lin = (double)g[i % D] * 0.5 * x[i] + b[i % D];
        ck_assert_msg(fabs(y[i] - lin) < 1e-6, "near 0 DyT should be gamma alpha x + beta: "
                      "%g, expected %g", y[i], lin);
    }
}
END_TEST

START_TEST(dyt_in_place_nan_and_empty)
{
    float x[2 * D], y[2 * D], g[D];
    nl_fill_gauss(x, 2 * D, 0.0, 1.0, 16);
    nl_fill_const(g, D, 1.0f);
    x[3] = NAN;
    nl_dyt(x, 0.5f, g, NULL, 2, D, y);
    nl_dyt(x, 0.5f, g, NULL, 2, D, x); /* in place */
    ck_assert_msg(memcmp(x, y, sizeof x) == 0 || (isnan(x[3]) && isnan(y[3])),
                  "in place DyT differs from out of place");
    for (size_t i = 0; i < 2 * D; i++)
        ck_assert_msg(i == 3 ? isnan(y[i]) : isfinite(y[i]),
                      "DyT is element-wise: only element 3 should be NaN, element %zu is %g", i,
                      y[i]);
    ck_assert_int_eq(nl_dyt(NULL, 0.5f, NULL, NULL, 0, D, NULL), NL_OK);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("block_dyt");
    TCase *tc = tcase_create("block_dyt");
    tcase_add_test(tc, rmsnorm_is_scale_invariant_dyt_is_not);
    tcase_add_test(tc, dyt_is_bounded_and_linear_near_zero);
    tcase_add_test(tc, dyt_in_place_nan_and_empty);
    suite_add_tcase(s, tc);
    return s;
}
