/* check_numerics.c — the inputs that separate a careful kernel from a
 * formula typed in: offset data, zero rows, huge values, a NaN, in-place
 * calls and empty calls.
 *
 * What "correct" means for each (the header comment of every
 * implementation file says which case it is in):
 *   offset data (mean 1e4, std 1)  every stable kernel stays within its tol
 *       scaled by 1 + mean/std for LayerNorm (the float input itself is
 *       only that precise relative to its spread); NL_PROP_UNSTABLE kernels
 *       must be measurably wrong, so the lesson cannot rot unnoticed;
 *   |x| ~ 1e20                     NL_PROP_HUGE_OK kernels within tol; the
 *       rest are "documented out of range": each output is non-finite or
 *       exactly zero (or correct), never a plausible-looking wrong number;
 *   a zero row                     outputs 0 (eps keeps 0/0 away), not NaN;
 *   a NaN                          poisons its own row only. */
#include <math.h>
#include <string.h>

#include "harness.h"

START_TEST(offset_data_separates_stable_from_unstable)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const double mean = 1e4, std = 1.0;
    const size_t widths[] = {64, 1024, 4097};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        size_t d = widths[k];
        nl_problem p = nl_problem_new(16, d);
        nl_fill_gauss(p.x, 16 * d, mean, std, 21 + k);
        nl_problem_reference(&p, impl->norm, NL_TEST_EPS);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        nl_err_at w = nl_worst_err(&p);
        double bound = impl->norm == NL_LAYERNORM ? impl->tol * (1.0 + mean / std) : impl->tol;
        if (!(impl->props & NL_PROP_UNSTABLE))
            ck_assert_msg(w.err <= bound,
                          "%s on offset data (mean %g, std %g), d = %zu: row %zu, "
                          "column %zu is %.6g, the reference says %.6g (error %.3g, "
                          "allowed %.3g). %s",
                          impl->name, mean, std, d, w.row, w.col, w.got, w.want,
                          w.err, bound,
                          impl->norm == NL_LAYERNORM
                              ? "Large mean, small spread: is the variance computed as "
                                "E[x^2] - E[x]^2? Centre first, then square."
                              : "Nothing cancels in RMSNorm: check that the sum of "
                                "squares restarts at 0 for every row.");
        if (isnan(w.err) || w.err > worst)
            worst = w.err;
        nl_problem_free(&p);
    }
    if (impl->props & NL_PROP_UNSTABLE)
        ck_assert_msg(!(worst <= 0.1),
                      "%s is registered NL_PROP_UNSTABLE, yet on offset data (mean %g, "
                      "std %g) its worst error is only %.3g. Either the kernel no "
                      "longer shows the cancellation the chapter is about, or the "
                      "flag is wrong.", impl->name, mean, std, worst);
}
END_TEST

START_TEST(zero_and_constant_rows_give_zero_not_nan)
{
    NL_IMPL_OR_SKIP(impl, _i);
    enum { ROWS = 4, D = 1000 };
    nl_problem p = nl_problem_new(ROWS, D);
    nl_fill_gauss(p.x, ROWS * D, 0.0, 1.0, 31);
    nl_fill_const(p.x + 0 * D, D, 0.0f);
    nl_fill_const(p.x + 2 * D, D, 3.25f);
    nl_fill_params(&p, 32);
    nl_fill_const(p.beta, D, 0.0f);
    nl_problem_reference(&p, impl->norm, NL_TEST_EPS);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    for (size_t i = 0; i < D; i++)
        NL_ASSERT_EACH(p.y[i] == 0.0f,
                      "%s: a row of zeros gave y[%zu] = %g, expected exactly 0. "
                      "%s", impl->name, i, p.y[i],
                      isnan(p.y[i]) ? "NaN means 0/0: is eps added under the square root?"
                                    : "0 times anything finite is 0.");
    nl_err_at w = nl_worst_err(&p);
    ck_assert_msg(w.err <= impl->tol,
                  "%s: with a zero row and a constant row (3.25) among normal ones, "
                  "row %zu, column %zu is %.6g, the reference says %.6g (error %.3g, "
                  "tol %.3g)", impl->name, w.row, w.col, w.got, w.want, w.err, impl->tol);
    nl_problem_free(&p);
}
END_TEST

START_TEST(huge_values_work_or_fail_visibly)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t widths[] = {7, 1024};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        size_t d = widths[k];
        nl_problem p = nl_problem_new(4, d);
        nl_fill_gauss(p.x, 4 * d, 0.0, 1e20, 41 + k);
        nl_problem_reference(&p, impl->norm, NL_TEST_EPS);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        if (impl->props & NL_PROP_HUGE_OK) {
            nl_err_at w = nl_worst_err(&p);
            ck_assert_msg(w.err <= impl->tol,
                          "%s claims NL_PROP_HUGE_OK, but with |x| ~ 1e20, d = %zu, "
                          "row %zu, column %zu is %.6g, the reference says %.6g "
                          "(error %.3g). x*x overflows float at |x| > 1.8e19: "
                          "accumulate in double, or scale the row first.",
                          impl->name, d, w.row, w.col, w.got, w.want, w.err);
        } else {
            for (size_t i = 0; i < 4 * d; i++) {
                float v = p.y[i];
                int visible = !isfinite(v) || v == 0.0f || fabs(v - p.ref[i]) <= impl->tol;
                NL_ASSERT_EACH(visible,
                              "%s is documented out of range for |x| ~ 1e20, so its "
                              "output must be non-finite or zero there; row %zu, "
                              "column %zu is %.6g (the right answer is %.6g): a "
                              "plausible-looking wrong number. Set NL_PROP_HUGE_OK "
                              "and make it right, or let the overflow show.",
                              impl->name, i / d, i % d, v, p.ref[i]);
            }
        }
        nl_problem_free(&p);
    }
}
END_TEST

START_TEST(nan_stays_in_its_row)
{
    NL_IMPL_OR_SKIP(impl, _i);
    enum { ROWS = 4, D = 64, BAD = 2 };
    nl_problem p = nl_problem_new(ROWS, D);
    nl_fill_gauss(p.x, ROWS * D, 0.0, 1.0, 51);
    nl_fill_params(&p, 52);
    p.x[BAD * D + 5] = NAN;
    nl_problem_reference(&p, impl->norm, NL_TEST_EPS);
    nl_run_impl(impl, &p, NL_TEST_EPS);
    for (size_t r = 0; r < ROWS; r++)
        for (size_t i = 0; i < D; i++) {
            float v = p.y[r * D + i];
            if (r == BAD)
                NL_ASSERT_EACH(isnan(v),
                              "%s: row %d holds a NaN, so its statistics are NaN and so "
                              "is every output of the row; column %zu came out %g. A "
                              "NaN-ignoring max or a clamp hid the bad input.",
                              impl->name, BAD, i, v);
            else
                NL_ASSERT_EACH(fabs(v - p.ref[r * D + i]) <= impl->tol,
                              "%s: row %d holds a NaN; row %zu does not, yet its column "
                              "%zu is %g, expected %.6g. A bad value must stay in its "
                              "own row: are the statistics reset for every row?",
                              impl->name, BAD, r, i, v, p.ref[r * D + i]);
        }
    nl_problem_free(&p);
}
END_TEST

START_TEST(in_place_equals_out_of_place)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t widths[] = {1, 7, 1000, 4097};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        size_t d = widths[k], n = 5 * d;
        nl_problem p = nl_problem_new(5, d);
        nl_fill_gauss(p.x, n, 1.0, 2.0, 61 + k);
        nl_fill_params(&p, 62);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        float *buf = nl_alloc(n * sizeof(float));
        ck_assert(buf);
        memcpy(buf, p.x, n * sizeof(float));
        const float *beta = impl->norm == NL_LAYERNORM ? p.beta : NULL;
        int rc = impl->fn(buf, p.gamma, beta, NL_TEST_EPS, 5, d, buf);
        ck_assert_msg(rc == 0, "%s failed in place (code %d): %s", impl->name, rc, nl_last_error());
        for (size_t i = 0; i < n; i++)
            NL_ASSERT_EACH(memcmp(&buf[i], &p.y[i], sizeof(float)) == 0,
                          "%s, d = %zu: in place (y == x), row %zu, column %zu is %.9g; "
                          "out of place it is %.9g. The header promises both give the "
                          "same bits: was part of the row overwritten before its "
                          "statistics were read?",
                          impl->name, d, i / d, i % d, buf[i], p.y[i]);
        nl_free(buf);
        nl_problem_free(&p);
    }
}
END_TEST

START_TEST(zero_rows_is_a_no_op)
{
    NL_IMPL_OR_SKIP(impl, _i);
    nl_problem p = nl_problem_new(1, 8);
    nl_fill_const(p.y, 8, 42.0f);
    const float *beta = impl->norm == NL_LAYERNORM ? p.beta : NULL;
    int rc = impl->fn(p.x, p.gamma, beta, NL_TEST_EPS, 0, 8, p.y);
    ck_assert_msg(rc == 0, "%s: rows == 0 must succeed as a no-op, got code %d", impl->name, rc);
    for (size_t i = 0; i < 8; i++)
        NL_ASSERT_EACH(p.y[i] == 42.0f, "%s: rows == 0 wrote y[%zu] = %g; it must touch nothing",
                      impl->name, i, p.y[i]);
    nl_problem_free(&p);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("numerics");
    TCase *tc = tcase_create("numerics");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, offset_data_separates_stable_from_unstable, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, zero_and_constant_rows_give_zero_not_nan, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, huge_values_work_or_fail_visibly, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, nan_stays_in_its_row, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, in_place_equals_out_of_place, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, zero_rows_is_a_no_op, 0, (int)nl_impl_count());
    suite_add_tcase(s, tc);
    return s;
}
