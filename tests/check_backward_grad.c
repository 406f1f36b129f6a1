/* check_backward_grad.c — every backward implementation against the double
 * reference gradient (exercise 13's suite), and one named test for each
 * mistake a derivation of the backward tends to make.
 *
 * Each output tensor is held to the implementation's stated tol as a
 * relative error, max |got - want| / max |want|.  When dx is wrong, the
 * message says which known mistake it matches (grad.c's diagnosis). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backward/backward.h"
#include "simd/simd.h"
#include "grad.h"

static const struct { size_t rows, d; } shapes[] = {
    {1, 1}, {1, 3}, {3, 7}, {13, 257}, {2, 4097}, {513, 67}, {100, 1000},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

static void check_errors(const nl_bwd_impl *impl, nl_bwd_problem *p)
{
    nl_bwd_errs e = nl_bwd_errors(p);
    char hint[512];
    double tol = impl->tol;
    if (!(e.dx <= tol)) {
        nl_bwd_diagnose_dx(p, hint, sizeof hint);
        ck_abort_msg("%s on %zu x %zu: dx is off by %.3g relative to the double reference "
                     "(stated tol %.0e). %s%s", impl->name, p->rows, p->d, e.dx, tol,
                     hint[0] ? "" : "Compare your dx with the "
                     "formula in chapter 10, term by term", hint);
    }
    ck_assert_msg(e.dgamma <= tol,
                  "%s on %zu x %zu: dgamma is off by %.3g relative (tol %.0e): dgamma[i] is "
                  "the sum over rows of dy[r][i] * x-hat[r][i] (x-hat = %s), added to what "
                  "dgamma held", impl->name, p->rows, p->d, e.dgamma, tol,
                  impl->norm == NL_LAYERNORM ? "(x - mean) * rstd" : "x * rstd");
    if (impl->norm == NL_LAYERNORM) {
        nl_bwd_diagnose_dbeta(p, hint, sizeof hint);
        ck_assert_msg(e.dbeta <= tol, "%s on %zu x %zu: dbeta is off by %.3g relative (tol "
                      "%.0e). %s", impl->name, p->rows, p->d, e.dbeta, tol,
                      hint[0] ? hint : "dbeta[i] = sum over rows of dy[r][i]");
    }
}

static void gradients_match(nl_norm norm, int i)
{
    NL_BWD_OR_SKIP(impl, norm, (size_t)i);
    for (size_t s = 0; s < NSHAPES; s++) {
        nl_bwd_problem p = nl_bwd_problem_new(norm, shapes[s].rows, shapes[s].d, NL_TEST_EPS, 100 + s);
        nl_bwd_run(impl, &p);
        check_errors(impl, &p);
        nl_bwd_problem_free(&p);
    }
}

START_TEST(layernorm_gradients_match_reference) { gradients_match(NL_LAYERNORM, _i); }
END_TEST
START_TEST(rmsnorm_gradients_match_reference) { gradients_match(NL_RMSNORM, _i); }
END_TEST

/* dy = x: then g * x = gamma * x^2 > 0 on every element, mean(g * x) is as
 * large as it gets, and so is the coupling term. */
START_TEST(rmsnorm_dx_has_coupling_term)
{
    NL_BWD_OR_SKIP(impl, NL_RMSNORM, (size_t)_i);
    nl_bwd_problem p = nl_bwd_problem_new(NL_RMSNORM, 9, 64, NL_TEST_EPS, 7);
    memcpy(p.dy, p.x, 9 * 64 * sizeof(float));
    nl_bwd_problem_refresh(&p);
    nl_bwd_run(impl, &p);
    check_errors(impl, &p);
    nl_bwd_problem_free(&p);
}
END_TEST

/* Rows scaled from 0.1 to 10: rstd runs from ~6 to ~0.06, so rstd and
 * rstd^3 differ by a factor 36 to 1/300 (on unit-scale rows they would
 * differ by little, and the mistake could hide in the noise). */
START_TEST(rmsnorm_coupling_scales_as_rstd_cubed)
{
    NL_BWD_OR_SKIP(impl, NL_RMSNORM, (size_t)_i);
    nl_bwd_problem p = nl_bwd_problem_new(NL_RMSNORM, 16, 33, NL_TEST_EPS, 11);
    memcpy(p.dy, p.x, 16 * 33 * sizeof(float)); /* a large coupling term, as above */
    nl_bwd_problem_refresh(&p);
    nl_bwd_run(impl, &p);
    check_errors(impl, &p);
    nl_bwd_problem_free(&p);
}
END_TEST

/* 5 rows of 7: dbeta has 7 entries, one per column; a sum over the wrong
 * axis gives 5 row sums (and whatever lies in the other 2). */
START_TEST(layernorm_dbeta_sums_over_rows)
{
    NL_BWD_OR_SKIP(impl, NL_LAYERNORM, (size_t)_i);
    nl_bwd_problem p = nl_bwd_problem_new(NL_LAYERNORM, 5, 7, NL_TEST_EPS, 13);
    nl_bwd_run(impl, &p);
    char hint[512];
    nl_bwd_diagnose_dbeta(&p, hint, sizeof hint);
    double e = nl_bwd_errors(&p).dbeta;
    ck_assert_msg(e <= impl->tol, "%s on 5 x 7: dbeta is off by %.3g relative (tol %.0e). %s",
                  impl->name, e, impl->tol,
                  hint[0] ? hint : "dbeta[i] = sum over rows of dy[r][i]");
    nl_bwd_problem_free(&p);
}
END_TEST

/* Training adds gradients: a kernel that writes dgamma instead of adding
 * to it loses the micro-batches before. */
static void accumulates(nl_norm norm, int i)
{
    NL_BWD_OR_SKIP(impl, norm, (size_t)i);
    nl_bwd_problem p = nl_bwd_problem_new(norm, 40, 19, NL_TEST_EPS, 17);
    int ln = norm == NL_LAYERNORM;
    for (size_t k = 0; k < p.d; k++) {
        p.dgamma[k] = 100.0f + (float)k;
        p.dbeta[k] = -50.0f - (float)k;
    }
    int rc = impl->fn(p.x, p.gamma, ln ? p.mean : NULL, p.rstd, p.dy, p.rows, p.d, p.dx,
                      p.dgamma, ln ? p.dbeta : NULL);
    ck_assert_msg(rc == 0, "%s failed: %s", impl->name, nl_last_error());
    for (size_t k = 0; k < p.d; k++) {
        double want = 100.0 + (double)k + p.ref_dgamma[k];
        NL_ASSERT_EACH(fabs(p.dgamma[k] - want) <= 1e-4 * fabs(want),
                      "%s: dgamma[%zu] held %g before the call and the gradient is %g, so it "
                      "should hold %g after; it holds %g. Gradients accumulate: dgamma[i] += ...",
                      impl->name, k, 100.0 + (double)k, p.ref_dgamma[k], want, p.dgamma[k]);
        if (ln) {
            want = -50.0 - (double)k + p.ref_dbeta[k];
            NL_ASSERT_EACH(fabs(p.dbeta[k] - want) <= 1e-4 * fabs(want),
                          "%s: dbeta[%zu] should be %g (what it held plus the gradient), "
                          "it is %g. Gradients accumulate: dbeta[i] += ...",
                          impl->name, k, want, p.dbeta[k]);
        }
    }
    nl_bwd_problem_free(&p);
}

START_TEST(layernorm_gradients_accumulate) { accumulates(NL_LAYERNORM, _i); }
END_TEST
START_TEST(rmsnorm_gradients_accumulate) { accumulates(NL_RMSNORM, _i); }
END_TEST

/* normlab.h: a NaN in one row of x spoils that row of dx (and the sums
 * over rows), never another row of dx. */
static void nan_stays_in_its_row(nl_norm norm, int i)
{
    NL_BWD_OR_SKIP(impl, norm, (size_t)i);
    nl_bwd_problem p = nl_bwd_problem_new(norm, 300, 21, NL_TEST_EPS, 23);
    p.x[260 * 21 + 5] = NAN; /* row 260: in the second chunk of 256 rows */
    nl_bwd_problem_refresh(&p);
    nl_bwd_run(impl, &p);
    for (size_t r = 0; r < p.rows; r++) {
        if (r == 260)
            continue;
        double worst = 0.0, scale = 0.0;
        for (size_t k = r * p.d; k < (r + 1) * p.d; k++) {
            worst = fmax(worst, fabs(p.dx[k] - p.ref_dx[k]));
            scale = fmax(scale, fabs(p.ref_dx[k]));
            NL_ASSERT_EACH(!isnan(p.dx[k]), "%s: a NaN in row 260 of x made dx[%zu][%zu] NaN: "
                          "rows must not share anything but dgamma/dbeta", impl->name, r,
                          k - r * p.d);
        }
        ck_assert_msg(worst <= impl->tol * scale, "%s: a NaN in row 260 changed row %zu of dx "
                      "(off by %.3g relative)", impl->name, r, worst / scale);
    }
    nl_bwd_problem_free(&p);
}

START_TEST(layernorm_nan_stays_in_its_row) { nan_stays_in_its_row(NL_LAYERNORM, _i); }
END_TEST
START_TEST(rmsnorm_nan_stays_in_its_row) { nan_stays_in_its_row(NL_RMSNORM, _i); }
END_TEST

/* Chapter 10: the same bits every run and for every thread count.  A
 * kernel that threads over rows and adds each thread's share into dgamma
 * as the threads finish (atomic adds, a critical section, per-thread
 * partials added in thread order) gets sums in an order that changes
 * run to run, or with the number of threads: its dgamma is right to a
 * tolerance yet not reproducible.  Compared bit for bit, 1 to 8 threads,
 * three runs each, against the first run on one thread, which must be
 * right (so that the test counts against a starter, which is serial). */
static void dgamma_same_bits(nl_norm norm, int i)
{
    NL_BWD_OR_SKIP(impl, norm, (size_t)i);
    nl_bwd_problem p = nl_bwd_problem_new(norm, 611, 37, NL_TEST_EPS, 29);
    float *first = malloc(p.d * sizeof *first), *firstb = malloc(p.d * sizeof *firstb);
    ck_assert(first && firstb);
    const int threads[] = {1, 2, 3, 4, 8};
    int had = omp_get_max_threads();
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        omp_set_num_threads(threads[t]);
        for (int run = 0; run < 3; run++) {
            nl_bwd_run(impl, &p);
            if (t == 0 && run == 0) {
                check_errors(impl, &p); /* the same bits of a right answer */
                memcpy(first, p.dgamma, p.d * sizeof *first);
                memcpy(firstb, p.dbeta, p.d * sizeof *firstb);
                continue;
            }
            for (size_t k = 0; k < p.d; k++) {
                int db = norm == NL_LAYERNORM && memcmp(&p.dbeta[k], &firstb[k], sizeof(float));
                if (memcmp(&p.dgamma[k], &first[k], sizeof(float)) == 0 && !db)
                    continue;
                omp_set_num_threads(had);
                ck_abort_msg("%s: %s is not reproducible: %s[%zu] was %a on one thread and is "
                             "%a on run %d with %d threads. The sum over rows is added in the "
                             "order threads finish (or depends on how many there are); chapter "
                             "10 requires the same bits every run: add the rows in one fixed "
                             "order, or thread over columns",
                             impl->name, db ? "dbeta" : "dgamma", db ? "dbeta" : "dgamma", k,
                             (double)(db ? firstb[k] : first[k]),
                             (double)(db ? p.dbeta[k] : p.dgamma[k]), run + 1, threads[t]);
            }
        }
    }
    omp_set_num_threads(had);
    free(first);
    free(firstb);
    nl_bwd_problem_free(&p);
}

START_TEST(layernorm_dgamma_same_bits_every_run) { dgamma_same_bits(NL_LAYERNORM, _i); }
END_TEST
START_TEST(rmsnorm_dgamma_same_bits_every_run) { dgamma_same_bits(NL_RMSNORM, _i); }
END_TEST

/* The widths this binary carries (nl_isa_widths), by their names in
 * kernel names and in NORMLAB_ISA; test i runs at width i. */
static const char *width_name(size_t i)
{
    const nl_isa *w;
    ck_assert(i < nl_isa_widths(&w));
    return nl_isa_name(w[i]);
}

/* The stream and skew rungs move dgamma/dbeta into their first pass and
 * add four rows per load of them, but within a column they add the rows
 * one by one in row order with the same fma as the first rung of their
 * width: the same bits, which is what their comment promises and what
 * lets either replace the other in a reproducible training run.  A 4-row
 * block that summed its rows first and added that to dgamma (one rounding
 * less) fails here.  37 x 1029: nine blocks of four and a single row, a
 * masked tail, in cache (ordinary stores).  133 x 8192: 4.3 MiB of x and
 * dx, past any L2 this runs on, so dx is streamed and the skew rung takes
 * its skewed loop (33 blocks, then a row); its dx is held to the
 * tolerance.  Test i: width i / 4, then LayerNorm/RMSNorm and stream/skew. */
START_TEST(stream_rungs_keep_the_first_rungs_bits)
{
    const nl_norm norm = _i % 2 ? NL_RMSNORM : NL_LAYERNORM;
    const char *rung = _i / 2 % 2 ? "skew" : "stream";
    char base[48], name[64];
    snprintf(base, sizeof base, "%s_bwd_%s", norm == NL_LAYERNORM ? "layernorm" : "rmsnorm",
             width_name((size_t)_i / 4));
    snprintf(name, sizeof name, "%s_%s", base, rung);
    const nl_bwd_impl *im[2] = {nl_find_bwd_impl(base), nl_find_bwd_impl(name)};
    ck_assert_msg(im[0] && im[1], "%s or %s is not registered", base, name);
    if (!nl_name_selected(base) || !nl_name_selected(name))
        NL_SKIP("not selected by NL_IMPLS");
    NL_SKIP_UNLESS_RUNS(im[1]->name, im[1]->requires, nl_bwd_impl_unavailable(im[1]));
    const struct { size_t rows, d; } sizes[] = {{37, 1029}, {133, 8192}};
    for (size_t s = 0; s < 2; s++) {
        nl_bwd_problem p = nl_bwd_problem_new(norm, sizes[s].rows, sizes[s].d, NL_TEST_EPS, 41);
        float *want = malloc(2 * p.d * sizeof *want);
        ck_assert(want);
        nl_bwd_run(im[0], &p);
        memcpy(want, p.dgamma, p.d * sizeof *want);
        memcpy(want + p.d, p.dbeta, p.d * sizeof *want);
        nl_bwd_run(im[1], &p);
        for (size_t k = 0; k < p.d; k++) {
            ck_assert_msg(memcmp(&p.dgamma[k], &want[k], sizeof(float)) == 0,
                          "%s, %zu x %zu: dgamma[%zu] = %a, %s gives %a: the rows of a column "
                          "must be added one by one in row order, as in %s", name, p.rows, p.d,
                          k, (double)p.dgamma[k], base, (double)want[k], base);
            if (norm == NL_LAYERNORM)
                ck_assert_msg(memcmp(&p.dbeta[k], &want[p.d + k], sizeof(float)) == 0,
                              "%s, %zu x %zu: dbeta[%zu] = %a, %s gives %a", name, p.rows, p.d,
                              k, (double)p.dbeta[k], base, (double)want[p.d + k]);
        }
        nl_bwd_errs e = nl_bwd_errors(&p);
        ck_assert_msg(e.dx <= im[1]->tol, "%s, %zu x %zu: dx off by %.3g relative (tol %g)",
                      name, p.rows, p.d, e.dx, im[1]->tol);
        free(want);
        nl_bwd_problem_free(&p);
    }
}
END_TEST

/* The dispatchers (_best, and _omp over threads) take the stream rung or
 * the skew rung by the CPU's rung shape (code/simd/rung_shape.c); the two
 * must give the same dx, dgamma and dbeta bits, so that the choice costs
 * time only.  NORMLAB_RUNGS forces each shape in turn.  133 x 8192 streams
 * and so runs the skewed loop; 37 x 1029 stays in cache with a masked
 * tail.  Fails when one shape's path is pointed at the first rung, whose
 * dx rounds differently. */
static void shapes_same_bits(const nl_bwd_impl *im)
{
    const struct { size_t rows, d; } sizes[] = {{37, 1029}, {133, 8192}};
    for (size_t s = 0; s < 2; s++) {
        nl_bwd_problem p = nl_bwd_problem_new(im->norm, sizes[s].rows, sizes[s].d, NL_TEST_EPS, 43);
        size_t n = p.rows * p.d;
        float *want = malloc((n + 2 * p.d) * sizeof *want);
        ck_assert(want);
        setenv("NORMLAB_RUNGS", "block", 1);
        nl_bwd_run(im, &p);
        memcpy(want, p.dx, n * sizeof *want);
        memcpy(want + n, p.dgamma, p.d * sizeof *want);
        if (im->norm == NL_LAYERNORM)
            memcpy(want + n + p.d, p.dbeta, p.d * sizeof *want);
        setenv("NORMLAB_RUNGS", "row", 1);
        nl_bwd_run(im, &p);
        unsetenv("NORMLAB_RUNGS");
        size_t i = 0;
        while (i < n && memcmp(&p.dx[i], &want[i], sizeof(float)) == 0)
            i++;
        ck_assert_msg(i == n, "%s, %zu x %zu: dx[%zu][%zu] is %a with the row rungs, %a with "
                      "the block rungs: the two shapes must round alike", im->name, p.rows, p.d,
                      i / p.d, i % p.d, (double)(i < n ? p.dx[i] : 0), (double)(i < n ? want[i] : 0));
        ck_assert_msg(memcmp(p.dgamma, want + n, p.d * sizeof(float)) == 0,
                      "%s, %zu x %zu: dgamma differs between the two rung shapes", im->name,
                      p.rows, p.d);
        if (im->norm == NL_LAYERNORM)
            ck_assert_msg(memcmp(p.dbeta, want + n + p.d, p.d * sizeof(float)) == 0,
                          "%s, %zu x %zu: dbeta differs between the two rung shapes", im->name,
                          p.rows, p.d);
        free(want);
        nl_bwd_problem_free(&p);
    }
}

/* At each width (NORMLAB_ISA caps the dispatchers to it). */
START_TEST(backward_rung_shapes_give_the_same_bits)
{
    char skew[64];
    snprintf(skew, sizeof skew, "layernorm_bwd_%s_skew", width_name((size_t)_i));
    const nl_bwd_impl *width = nl_find_bwd_impl(skew);
    ck_assert_msg(width, "%s is not registered", skew);
    if (!nl_name_selected(skew))
        NL_SKIP("not selected by NL_IMPLS");
    NL_SKIP_UNLESS_RUNS(width->name, width->requires, nl_bwd_impl_unavailable(width));
    setenv("NORMLAB_ISA", width_name((size_t)_i), 1);
    static const nl_bwd_impl best[] = {
        {"layernorm_bwd_best", NL_LAYERNORM, 10, nl_layernorm_bwd_best, 0, 0, 1e-5, ""},
        {"rmsnorm_bwd_best", NL_RMSNORM, 10, nl_rmsnorm_bwd_best, 0, 0, 1e-5, ""},
    };
    shapes_same_bits(&best[0]);
    shapes_same_bits(&best[1]);
    const char *const omp[] = {"layernorm_bwd_omp", "rmsnorm_bwd_omp"};
    for (int k = 0; k < 2; k++) {
        const nl_bwd_impl *im = nl_find_bwd_impl(omp[k]);
        ck_assert_msg(im, "%s is not registered", omp[k]);
        if (!nl_bwd_impl_unavailable(im))
            shapes_same_bits(im);
    }
    unsetenv("NORMLAB_ISA");
}
END_TEST

Suite *nl_suite(void)
{
    const nl_isa *widths;
    const int nw = (int)nl_isa_widths(&widths); /* test i: width i */
    Suite *s = suite_create("backward_grad");
    TCase *tc = tcase_create("grad");
    tcase_set_timeout(tc, 120);
    size_t ln = nl_bwd_count(NL_LAYERNORM), rms = nl_bwd_count(NL_RMSNORM);
    tcase_add_loop_test(tc, layernorm_gradients_match_reference, 0, (int)ln);
    tcase_add_loop_test(tc, rmsnorm_gradients_match_reference, 0, (int)rms);
    tcase_add_loop_test(tc, rmsnorm_dx_has_coupling_term, 0, (int)rms);
    tcase_add_loop_test(tc, rmsnorm_coupling_scales_as_rstd_cubed, 0, (int)rms);
    tcase_add_loop_test(tc, layernorm_dbeta_sums_over_rows, 0, (int)ln);
    tcase_add_loop_test(tc, layernorm_gradients_accumulate, 0, (int)ln);
    tcase_add_loop_test(tc, rmsnorm_gradients_accumulate, 0, (int)rms);
    tcase_add_loop_test(tc, layernorm_nan_stays_in_its_row, 0, (int)ln);
    tcase_add_loop_test(tc, rmsnorm_nan_stays_in_its_row, 0, (int)rms);
    tcase_add_loop_test(tc, layernorm_dgamma_same_bits_every_run, 0, (int)ln);
    tcase_add_loop_test(tc, rmsnorm_dgamma_same_bits_every_run, 0, (int)rms);
    tcase_add_loop_test(tc, backward_rung_shapes_give_the_same_bits, 0, nw);
    tcase_add_loop_test(tc, stream_rungs_keep_the_first_rungs_bits, 0, 4 * nw);
    suite_add_tcase(s, tc);
    return s;
}
