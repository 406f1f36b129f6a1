/* check_ex_fold.c — nl_fold_norm_into_linear (exercise 15): after the
 * fold, the linear layer alone computes what norm-then-layer computed.
 * Each test names one mistake an answer is likely to make: gamma left
 * out, beta taken through the scaled weight, the bias overwritten instead
 * of added to, beta folded when there is none. */
#include <math.h>
#include <stdio.h>

#include "gpt2/gpt2.h"
#include "harness.h"

enum { ROWS = 7, D = 5 };

static void fill(double *x, size_t n, double mean, double sd, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = nl_pyrandom_gauss(&r, mean, sd);
}

typedef struct {
    double w[ROWS * D], b[ROWS], g[D], beta[D];
} layer;

static void make(layer *l, uint64_t seed)
{
    fill(l->w, ROWS * D, 0.1, 1.0, seed);
    fill(l->b, ROWS, 0.2, 0.5, seed + 1);
    fill(l->g, D, 1.0, 0.4, seed + 2);
    fill(l->beta, D, 0.1, 0.5, seed + 3);
}

/* y = W (g * z + beta) + b, the layer before the fold, for one z */
static void before(const layer *l, const double *z, int with_beta, double *y)
{
    for (size_t o = 0; o < ROWS; o++) {
        y[o] = l->b[o];
        for (size_t i = 0; i < D; i++)
            y[o] += l->w[o * D + i] * (l->g[i] * z[i] + (with_beta ? l->beta[i] : 0));
    }
}

static void after(const layer *l, const double *z, double *y)
{
    for (size_t o = 0; o < ROWS; o++) {
        y[o] = l->b[o];
        for (size_t i = 0; i < D; i++)
            y[o] += l->w[o * D + i] * z[i];
    }
}

START_TEST(gamma_is_folded_into_the_columns)
{
    layer l, f;
    make(&l, 10);
    f = l;
    nl_fold_norm_into_linear(f.w, f.b, f.g, NULL, ROWS, D);
    for (size_t o = 0; o < ROWS; o++)
        for (size_t i = 0; i < D; i++) {
            double want = l.w[o * D + i] * l.g[i];
            ck_assert_msg(fabs(f.w[o * D + i] - want) <= 1e-15 * fabs(want) + 1e-300,
                          "w[%zu][%zu] = %.17g after the fold, expected w * gamma[%zu] = %.17g "
                          "(was %.17g): gamma scales input i, which is column i of every row",
                          o, i, f.w[o * D + i], i, want, l.w[o * D + i]);
        }
    for (size_t o = 0; o < ROWS; o++)
        ck_assert_msg(f.b[o] == l.b[o], "bias[%zu] changed from %.17g to %.17g with beta NULL: "
                      "with no beta there is nothing to add", o, l.b[o], f.b[o]);
}
END_TEST

START_TEST(beta_goes_through_the_original_weight)
{
    layer l, f;
    make(&l, 20);
    f = l;
    nl_fold_norm_into_linear(f.w, f.b, f.g, f.beta, ROWS, D);
    for (size_t o = 0; o < ROWS; o++) {
        double want = l.b[o], wrong = l.b[o];
        for (size_t i = 0; i < D; i++) {
            want += l.w[o * D + i] * l.beta[i];
            wrong += l.w[o * D + i] * l.g[i] * l.beta[i];
        }
        ck_assert_msg(fabs(f.b[o] - wrong) > 1e-9 || fabs(want - wrong) < 1e-9,
                      "bias[%zu] = %.12g is b + W diag(gamma) beta: beta is added after gamma "
                      "scales, so it meets the weight unscaled (compute the shift before you "
                      "scale the row, or from a copy)", o, f.b[o]);
        ck_assert_msg(fabs(f.b[o] - want) <= 1e-13 * (fabs(want) + 1),
                      "bias[%zu] = %.15g after the fold, expected b + sum_i w[%zu][i] beta[i] = "
                      "%.15g (b was %.15g: add to it, do not replace it)", o, f.b[o], o, want,
                      l.b[o]);
    }
}
END_TEST

START_TEST(folded_layer_computes_the_same_outputs)
{
    for (uint64_t seed = 30; seed < 40; seed++) {
        layer l, f;
        make(&l, seed);
        f = l;
        nl_fold_norm_into_linear(f.w, f.b, f.g, f.beta, ROWS, D);
        double z[D], y0[ROWS], y1[ROWS];
        fill(z, D, 0.0, 1.0, seed + 100);
        before(&l, z, 1, y0);
        after(&f, z, y1);
        for (size_t o = 0; o < ROWS; o++)
            NL_ASSERT_EACH(fabs(y0[o] - y1[o]) <= 1e-12 * (fabs(y0[o]) + 1),
                           "seed %llu, output %zu: W (gamma z + beta) + b = %.15g before the "
                           "fold, %.15g after: the fold must change no output",
                           (unsigned long long)seed, o, y0[o], y1[o]);
    }
}
END_TEST

START_TEST(no_bias_means_nothing_to_fold_beta_into)
{
    layer l, f;
    make(&l, 50);
    f = l;
    /* a bias-free layer after a norm without beta (RMSNorm): gamma alone */
    nl_fold_norm_into_linear(f.w, NULL, f.g, NULL, ROWS, D);
    double z[D], y0[ROWS], y1[ROWS];
    fill(z, D, 0.0, 1.0, 51);
    memset(l.b, 0, sizeof l.b);
    memset(f.b, 0, sizeof f.b);
    before(&l, z, 0, y0);
    after(&f, z, y1);
    for (size_t o = 0; o < ROWS; o++)
        ck_assert_msg(fabs(y0[o] - y1[o]) <= 1e-12 * (fabs(y0[o]) + 1),
                      "bias NULL, beta NULL, output %zu: %.15g before, %.15g after", o, y0[o],
                      y1[o]);
}
END_TEST

START_TEST(rows_zero_is_a_no_op)
{
    double w[1] = {3}, b[1] = {4}, g[1] = {2}, beta[1] = {1};
    nl_fold_norm_into_linear(w, b, g, beta, 0, 1);
    ck_assert_msg(w[0] == 3 && b[0] == 4, "rows = 0 changed the layer: w %g, b %g", w[0], b[0]);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("ex_fold");
    TCase *tc = tcase_create("ex_fold");
    tcase_add_test(tc, gamma_is_folded_into_the_columns);
    tcase_add_test(tc, beta_goes_through_the_original_weight);
    tcase_add_test(tc, folded_layer_computes_the_same_outputs);
    tcase_add_test(tc, no_bias_means_nothing_to_fold_beta_into);
    tcase_add_test(tc, rows_zero_is_a_no_op);
    suite_add_tcase(s, tc);
    return s;
}
