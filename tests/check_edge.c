/* check_edge.c — every registered implementation at the edges of its
 * input domain: non-finite values, denormals, a very wide row, zero rows,
 * and eps = 0 on a row with no spread.
 *
 * The general agreement and stability tests (awkward shapes, offset and
 * huge data, one NaN staying in its row, y untouched when rows == 0) live
 * in check_numerics and check_agreement; these are the cases that break
 * SIMD tails, threaded row splits and device code in ways ordinary data
 * never shows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define EPS 1e-5f

static const float *beta_for(const nl_impl *impl, const nl_problem *p)
{
    return impl->norm == NL_LAYERNORM ? p->beta : NULL;
}

/* Fails the test unless row r of y is finite and within tol of the
 * reference; `why` says what makes the row interesting. The loop finds the
 * first bad value by hand: every ck_assert records its line in Check's
 * log, and a million of them make the wide row crawl under valgrind. */
static void assert_row_matches(const nl_impl *impl, const nl_problem *p, size_t r,
                               double tol, const char *why)
{
    const float *y = p->y + r * p->d;
    const double *ref = p->ref + r * p->d;
    size_t i = 0;
    while (i < p->d && isfinite(y[i]) && fabs(y[i] - ref[i]) <= tol)
        i++;
    if (i == p->d)
        return;
    ck_assert_msg(isfinite(y[i]),
                  "%s: row %zu (%s) has y[%zu] = %g, expected a finite %g: "
                  "did a non-finite value or a 0/0 leak in from elsewhere?",
                  impl->name, r, why, i, (double)y[i], ref[i]);
    ck_abort_msg("%s: row %zu (%s) has y[%zu] = %.9g, reference %.9g, |error| %.3g > tol %.3g",
                 impl->name, r, why, i, (double)y[i], ref[i], fabs(y[i] - ref[i]), tol);
}

/* ------------------------------------------------- non-finite inputs */

/* One NaN, one +Inf, one -Inf, each in its own row and at a different
 * place: first element, last element (a SIMD tail), middle. The rows
 * around them must come out exactly as if the bad rows were not there:
 * statistics are per row, so a non-finite value that leaks into another
 * row means rows share an accumulator (a SIMD or thread split gone wrong).
 * d = 37 is no multiple of any vector width. What the poisoned rows
 * themselves contain is not asserted here (NaN, mostly; see numerics). */
START_TEST(nonfinite_stays_in_its_row)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t rows = 7, d = 37;
    nl_problem p = nl_problem_new(rows, d);
    nl_fill_gauss(p.x, rows * d, 0.5, 2.0, 7001);
    nl_fill_gauss(p.gamma, d, 1.0, 0.3, 7002);
    nl_fill_gauss(p.beta, d, 0.0, 0.3, 7003);
    p.x[1 * d + 0] = NAN;
    p.x[3 * d + d - 1] = INFINITY;
    p.x[5 * d + d / 2] = -INFINITY;
    nl_problem_reference(&p, impl->norm, EPS);
    nl_run_impl(impl, &p, EPS);

    const size_t clean[] = {0, 2, 4, 6};
    for (size_t k = 0; k < sizeof clean / sizeof clean[0]; k++)
        assert_row_matches(impl, &p, clean[k], impl->tol,
                           "a clean row between rows holding NaN, +Inf and -Inf");
    nl_problem_free(&p);
}
END_TEST

/* ------------------------------------------------------ denormals */

/* Subnormal floats (below 2^-126 ~ 1.18e-38) are where hardware slows down
 * or flushes to zero. With eps = 1e-5 a row of them is, to the norm, a row
 * of zeros: the variance (~1e-78) vanishes beside eps, so every output is
 * about (x - mean) / sqrt(eps) ~ 1e-36, i.e. 0 to any stated tolerance.
 * What must not happen is a NaN or Inf (dividing by a flushed-to-zero
 * quantity without eps) or garbage. A second row mixes denormals into
 * ordinary data: flushing them to zero (FTZ/DAZ) changes those outputs by
 * less than tol, so both behaviours pass; anything else fails. */
START_TEST(denormal_rows)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t rows = 3, d = 67;
    nl_problem p = nl_problem_new(rows, d);
    nl_fill_gauss(p.x, rows * d, 0.0, 1.0, 7101);
    nl_fill_gauss(p.gamma, d, 1.0, 0.3, 7102);
    nl_fill_gauss(p.beta, d, 0.0, 0.3, 7103);
    const float tiny = 0x1p-140f; /* subnormal: 2^-140 < 2^-126 */
    for (size_t i = 0; i < d; i++) {
        /* row 0: all subnormal, both signs, a spread of magnitudes */
        p.x[i] = (float)((int)(i % 13) - 6) * tiny;
        /* row 1: every third value subnormal */
        if (i % 3 == 0)
            p.x[d + i] = (i % 2 ? -1.0f : 1.0f) * (float)(i + 1) * tiny;
    }
    ck_assert_msg(fpclassify(p.x[1]) == FP_SUBNORMAL,
                  "test setup: %g should be a subnormal float", (double)p.x[1]);
    nl_problem_reference(&p, impl->norm, EPS);
    nl_run_impl(impl, &p, EPS);
    assert_row_matches(impl, &p, 0, impl->tol,
                       "all subnormal: expected ~0 everywhere (+ beta for LayerNorm)");
    assert_row_matches(impl, &p, 1, impl->tol, "ordinary data with every third value subnormal");
    assert_row_matches(impl, &p, 2, impl->tol, "ordinary data after the subnormal rows");
    nl_problem_free(&p);
}
END_TEST

/* ----------------------------------------------------- a very wide row */

/* d = 1,000,000 in one row (models are at d <= 16384; this is 60x wider).
 * A float accumulator loses accuracy as its sum grows. The textbook bound
 * for summing d terms one after another grows linearly with d (about
 * d x 2^-24 relative), and the naive kernels really do drift: at this width
 * they are off by ~3e-4, 16x their stated tol. So the stated tol, which
 * holds for d <= 4097, is scaled by d / 4096 (~244): loose for blocked or
 * pairwise sums (SIMD lanes, Chan merges), whose error grows far more
 * slowly; a reduction that loses a chunk or a thread's share is off by
 * O(1) and fails. (A lost tail of a few values is invisible at this width:
 * the odd widths of the other tests catch that.) */
/* Uniform values of the given mean and standard deviation from a xorshift
 * generator: the shape of the distribution does not matter here, and three
 * million Box-Muller draws (log, cos, sin) make this one test 5x slower
 * under valgrind. */
static void fill_uniform(float *x, size_t n, double mean, double std, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = (double)(s >> 11) * 0x1.0p-53;           /* [0, 1) */
        x[i] = (float)(mean + std * 3.4641016151377544 * (u - 0.5)); /* sqrt(12) */
    }
}

START_TEST(very_wide_row)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t d = 1000000;
    nl_problem p = nl_problem_new(1, d);
    fill_uniform(p.x, d, 0.25, 1.0, 7201);
    fill_uniform(p.gamma, d, 1.0, 0.1, 7202);
    fill_uniform(p.beta, d, 0.0, 0.1, 7203);
    nl_problem_reference(&p, impl->norm, EPS);
    nl_run_impl(impl, &p, EPS);
    double tol = impl->tol * ((double)d / 4096.0);
    assert_row_matches(impl, &p, 0, tol, "one row of d = 1,000,000");
    nl_problem_free(&p);
}
END_TEST

/* --------------------------------------------------------- rows = 0 */

/* The contract (normlab.h): rows == 0 is a no-op. check_numerics checks
 * that y is left untouched; this checks the other half of "no-op": nothing
 * is read or written, so x and y may be NULL (a batch of zero tokens has
 * no buffers; an OpenCL implementation must not create a zero-sized
 * buffer, which OpenCL forbids). */
START_TEST(zero_rows_accepts_null_buffers)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t d = 33;
    nl_problem p = nl_problem_new(1, d);
    int rc = impl->fn(NULL, p.gamma, beta_for(impl, &p), EPS, 0, d, NULL);
    ck_assert_msg(rc == 0,
                  "%s with rows = 0 and x = y = NULL returned %d (%s), expected 0: with "
                  "no rows there is nothing to read or write",
                  impl->name, rc, nl_last_error());
    nl_problem_free(&p);
}
END_TEST

/* --------------------------------------------- eps = 0, no spread */

/* With eps = 0 a row of zeros has variance (LayerNorm) and mean square
 * (RMSNorm) exactly 0, so the scale 1/sqrt(0) is +Inf and every output is
 * 0 x Inf (or 0/0): NaN, in every implementation and in the double
 * reference, as in PyTorch. That is the documented behaviour: eps is what
 * makes the norm defined on constant rows, and a caller passing eps = 0
 * gets NaN rather than a made-up 0. An implementation that returns 0 or
 * a finite value here has special-cased the row (hiding the caller's bug)
 * or compiled with fast-math (NaN rules off). The other rows must be
 * untouched by it. Only all-zero rows are used: for a constant c != 0 the
 * float mean need not be exactly c, and the result would be rounding noise. */
START_TEST(eps_zero_on_zero_row_gives_nan)
{
    NL_IMPL_OR_SKIP(impl, _i);
    const size_t rows = 3, d = 19;
    nl_problem p = nl_problem_new(rows, d);
    nl_fill_gauss(p.x, rows * d, 0.0, 1.0, 7401);
    nl_fill_gauss(p.gamma, d, 1.0, 0.3, 7402);
    nl_fill_gauss(p.beta, d, 0.0, 0.3, 7403);
    nl_fill_const(p.x + d, d, 0.0f);
    nl_problem_reference(&p, impl->norm, 0.0);
    nl_run_impl(impl, &p, 0.0f);

    for (size_t i = 0; i < d; i++) {
        ck_assert_msg(isnan(p.ref[d + i]), "test setup: the reference gave %g, not NaN",
                      p.ref[d + i]);
        ck_assert_msg(isnan(p.y[d + i]),
                      "%s: eps = 0 on an all-zero row gave y[%zu] = %g, expected NaN "
                      "(0 x 1/sqrt(0), as the reference and PyTorch give): is the row "
                      "special-cased, or is the file built with -ffast-math?",
                      impl->name, i, (double)p.y[d + i]);
    }
    assert_row_matches(impl, &p, 0, impl->tol, "ordinary data, eps = 0, before the zero row");
    assert_row_matches(impl, &p, 2, impl->tol, "ordinary data, eps = 0, after the zero row");
    nl_problem_free(&p);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("edge");
    TCase *tc = tcase_create("edge");
    /* The wide row under valgrind or qemu takes seconds per implementation. */
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, nonfinite_stays_in_its_row, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, denormal_rows, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, very_wide_row, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, zero_rows_accepts_null_buffers, 0, (int)nl_impl_count());
    tcase_add_loop_test(tc, eps_zero_on_zero_row_gives_nan, 0, (int)nl_impl_count());
    suite_add_tcase(s, tc);
    return s;
}
