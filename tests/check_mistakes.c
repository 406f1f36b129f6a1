/* check_mistakes.c — the wrong answers students write, named.
 *
 * The other suites say what is wrong with an output; this one says which
 * mistake made it.  Each test runs the function of one exercise on inputs
 * chosen so that the usual mistakes give clearly different outputs, computes
 * what each mistake would output, and when the answer is not the right one
 * names the mistake it matches best.  The grader runs this suite first for
 * exercises 01-03, so the first line of feedback names the mistake
 * ("the mean was summed in float"), not a symptom three steps away.
 * Each test is one exercise's, and runs only where NL_IMPLS selects that
 * exercise's implementation: graded, an exercise runs with the others as
 * their starters, whose answers are no answer at all. */
#include <math.h>
#include <string.h>

#include "harness.h"

/* Skips a test of another exercise's implementation than NL_IMPLS names. */
#define ONLY_FOR(impl_name)                                                          \
    do {                                                                             \
        if (!nl_name_selected(impl_name))                                            \
            NL_SKIP("the mistakes of " impl_name ", which NL_IMPLS leaves out");      \
    } while (0)

/* A candidate: what an implementation with one particular mistake outputs. */
typedef struct {
    const char *mistake; /* NULL: the right answer */
    const char *hint;
    double err;          /* max |student - candidate| over every input */
} candidate;

static double max_err(const float *got, const float *want, size_t n)
{
    double e = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)want[i]);
        if (isnan(d))
            d = (isnan(got[i]) && isnan(want[i])) ? 0.0 : INFINITY;
        e = d > e ? d : e;
    }
    return e;
}

/* A candidate's distance is its worst over every input. */
static void keep_worst(candidate *c, const float *got, const float *want, size_t n)
{
    double e = max_err(got, want, n);
    c->err = e > c->err ? e : c->err;
}

/* Fails naming the candidate closest to the answer unless that is the
 * right one (index 0) and within tol of it. */
static void judge(const char *what, const candidate *c, size_t n, double tol)
{
    size_t best = 0;
    for (size_t k = 1; k < n; k++)
        if (c[k].err < c[best].err)
            best = k;
    if (best == 0 && c[0].err <= tol)
        return;
    if (best == 0 || !(c[best].err < 0.1 * c[0].err))
        ck_abort_msg("%s: the output is off by up to %.3g (allowed %.1g) and matches none of the "
                     "usual mistakes; see the next failures for where it goes wrong.",
                     what, c[0].err, tol);
    ck_abort_msg("%s: %s (your output matches that mistake to %.2g, the right answer only to "
                 "%.2g). %s", what, c[best].mistake, c[best].err, c[0].err, c[best].hint);
}

/* ------------------------------------------------ 01: LayerNorm's mean */

enum { MEAN_RIGHT, MEAN_FLOAT_SUM, MEAN_OVER_D_MINUS_1, MEAN_NOT_SUBTRACTED, MEAN_KINDS };

/* layernorm_twopass with the re-centring done one way or another, then
 * its own scaling step (double sum of squares of the centred row). */
static void twopass_like(int kind, const float *x, size_t rows, size_t d, float eps, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        double mean = 0.0;
        if (kind == MEAN_FLOAT_SUM) {
            float s = 0.0f;
            for (size_t i = 0; i < d; i++)
                s += xr[i];
            mean = s / (float)d;
        } else if (kind != MEAN_NOT_SUBTRACTED) {
            double s = 0.0;
            for (size_t i = 0; i < d; i++)
                s += xr[i];
            mean = s / (double)(kind == MEAN_OVER_D_MINUS_1 ? d - 1 : d);
        }
        for (size_t i = 0; i < d; i++)
            yr[i] = (float)(xr[i] - mean);
        double sq = 0.0;
        for (size_t i = 0; i < d; i++)
            sq += (double)yr[i] * yr[i];
        double inv = 1.0 / sqrt(sq / (double)d + eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = (float)(yr[i] * inv);
    }
}

START_TEST(layernorm_mean_mistakes)
{
    ONLY_FOR("layernorm_twopass");
    const nl_impl *impl = nl_find_impl("layernorm_twopass");
    ck_assert_msg(impl != NULL, "layernorm_twopass is not in the registry");
    candidate c[MEAN_KINDS] = {
        {NULL, "", 0},
        {"the mean was summed in float",
         "A float sum of 4097 values near 1e4 rounds at every step (its last bit is worth 4 "
         "once the sum passes 3e7): sum in double.", 0},
        {"the sum was divided by d - 1",
         "The mean of d values is their sum over d; d - 1 belongs to the sample variance, "
         "which LayerNorm does not use.", 0},
        {"the mean was not subtracted",
         "Step one is yr[i] = xr[i] - mean(xr): without it the output is an RMSNorm.", 0},
    };
    /* Offset rows (mean 1e4, std 1: a float sum goes wrong) and plain
     * rows of a small width (d - 1 is far from d). */
    const size_t shapes[][2] = {{4, 4097}, {8, 7}};
    for (size_t s = 0; s < 2; s++) {
        size_t rows = shapes[s][0], d = shapes[s][1];
        nl_problem p = nl_problem_new(rows, d);
        nl_fill_gauss(p.x, rows * d, s == 0 ? 1e4 : 3.0, s == 0 ? 1.0 : 2.0, 601 + s);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        float *want = nl_alloc(rows * d * sizeof(float));
        for (int k = 0; k < MEAN_KINDS; k++) {
            twopass_like(k, p.x, rows, d, NL_TEST_EPS, want);
            keep_worst(&c[k], p.y, want, rows * d);
        }
        nl_free(want);
        nl_problem_free(&p);
    }
    judge("layernorm_twopass (exercise 01)", c, MEAN_KINDS, 1e-4);
}
END_TEST

/* ------------------------------------------------------ 02: RMSNorm */

enum { RMS_RIGHT, RMS_FLOAT_SUM, RMS_EPS_OUTSIDE, RMS_RECENTRED, RMS_SUM_NOT_MEAN, RMS_NO_GAMMA, RMS_KINDS };

static void rmsnorm_like(int kind, const nl_problem *p, float eps, float *y)
{
    size_t d = p->d;
    for (size_t r = 0; r < p->rows; r++) {
        const float *xr = p->x + r * d;
        double mean = 0.0;
        if (kind == RMS_RECENTRED) {
            for (size_t i = 0; i < d; i++)
                mean += xr[i];
            mean /= (double)d;
        }
        double sq = 0.0;
        float fsq = 0.0f;
        for (size_t i = 0; i < d; i++) {
            sq += ((double)xr[i] - mean) * ((double)xr[i] - mean);
            fsq += xr[i] * xr[i];
        }
        if (kind == RMS_FLOAT_SUM)
            sq = fsq;
        double ms = kind == RMS_SUM_NOT_MEAN ? sq : sq / (double)d;
        double inv = kind == RMS_EPS_OUTSIDE ? 1.0 / (sqrt(ms) + eps) : 1.0 / sqrt(ms + eps);
        for (size_t i = 0; i < d; i++)
            y[r * d + i] = (float)(((double)xr[i] - mean) * inv * (kind == RMS_NO_GAMMA ? 1.0f : p->gamma[i]));
    }
}

START_TEST(rmsnorm_mistakes)
{
    ONLY_FOR("rmsnorm_fused");
    const nl_impl *impl = nl_find_impl("rmsnorm_fused");
    ck_assert_msg(impl != NULL, "rmsnorm_fused is not in the registry");
    candidate c[RMS_KINDS] = {
        {NULL, "", 0},
        {"the sum of squares was kept in float",
         "With |x| ~ 1e20, x*x overflows float (max 3.4e38) and every output becomes 0: "
         "square and sum in double.", 0},
        {"eps was added outside the square root",
         "RMSNorm divides by sqrt(mean(x^2) + eps): eps goes under the root, where it "
         "matters when mean(x^2) is about eps.", 0},
        {"the mean was subtracted",
         "That is LayerNorm. RMSNorm is the one word less: no mean, no re-centring; an "
         "offset row keeps its offset.", 0},
        {"the sum of squares was not divided by d",
         "The root mean square divides the sum of squares by d before the root.", 0},
        {"gamma was not applied",
         "Multiply each normalised value by gamma[i] (the tests use gamma != 1).", 0},
    };
    /* Offset rows (re-centring shows), rows whose mean square is about eps
     * (eps's place shows), and |x| ~ 1e20 (a float sum overflows). */
    const struct { size_t rows, d; double mean, std; } in[] = {
        {4, 1000, 0.5, 2.0}, {4, 64, 0.0, 3e-3}, {2, 7, 0.0, 1e20}};
    for (size_t s = 0; s < 3; s++) {
        nl_problem p = nl_problem_new(in[s].rows, in[s].d);
        nl_fill_gauss(p.x, in[s].rows * in[s].d, in[s].mean, in[s].std, 701 + s);
        nl_fill_params(&p, 711 + s);
        nl_run_impl(impl, &p, NL_TEST_EPS);
        float *want = nl_alloc(in[s].rows * in[s].d * sizeof(float));
        for (int k = 0; k < RMS_KINDS; k++) {
            rmsnorm_like(k, &p, NL_TEST_EPS, want);
            keep_worst(&c[k], p.y, want, in[s].rows * in[s].d);
        }
        nl_free(want);
        nl_problem_free(&p);
    }
    judge("rmsnorm_fused (exercise 02)", c, RMS_KINDS, 1e-5);
}
END_TEST

/* ---------------------------------------------------- 03: Welford */

enum { W_RIGHT, W_NO_COUNT, W_OLD_N, W_DELTA_SQUARED, W_NO_DIVIDE, W_KINDS };

static nl_moments welford_like(int kind, const double *x, size_t n)
{
    nl_moments m = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double delta = x[i] - m.mean;
        if (kind == W_OLD_N) {
            m.mean += delta / (m.n > 0 ? m.n : 1.0);
            m.n += 1.0;
        } else {
            if (kind != W_NO_COUNT)
                m.n += 1.0;
            m.mean += kind == W_NO_DIVIDE ? delta : delta / (m.n > 0 ? m.n : 1.0);
        }
        m.m2 += kind == W_DELTA_SQUARED ? delta * delta : delta * (x[i] - m.mean);
    }
    return m;
}

START_TEST(welford_mistakes)
{
    ONLY_FOR("layernorm_welford");
    enum { N = 1001 };
    double x[N];
    float xf[N];
    nl_fill_gauss(xf, N, 5.0, 2.0, 801);
    for (size_t i = 0; i < N; i++)
        x[i] = xf[i];
    nl_moments got = {0, 0, 0};
    for (size_t i = 0; i < N; i++)
        nl_welford_push(&got, x[i]);
    candidate c[W_KINDS] = {
        {NULL, "", 0},
        {"the count n is never increased",
         "Each push adds one value: n += 1 first, then the mean moves by delta / n.", 0},
        {"the mean moves by delta / n before n counts the new value",
         "Increase n first: the new value is the n-th, so the mean moves by (x - mean) / n "
         "with the new n.", 0},
        {"M2 grows by delta * delta, with the old mean both times",
         "M2 += (x - old mean) * (x - new mean): one factor before the mean moves, one "
         "after. delta^2 overcounts by n / (n - 1).", 0},
        {"the mean moves by the whole delta",
         "The mean moves towards x by delta / n, not all the way to x.", 0},
    };
    for (int k = 0; k < W_KINDS; k++) {
        nl_moments w = welford_like(k, x, N);
        double e = fabs(got.n - w.n) + fabs(got.mean - w.mean) / (fabs(w.mean) + 1) +
                   fabs(got.m2 - w.m2) / (fabs(w.m2) + 1);
        c[k].err = isnan(e) ? INFINITY : e;
    }
    judge("nl_welford_push (exercise 03), after 1001 values of mean 5, std 2", c, W_KINDS, 1e-9);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("mistakes");
    TCase *tc = tcase_create("mistakes");
    tcase_add_test(tc, layernorm_mean_mistakes);
    tcase_add_test(tc, rmsnorm_mistakes);
    tcase_add_test(tc, welford_mistakes);
    suite_add_tcase(s, tc);
    return s;
}
