/* check_demo.c — what `normlab demo` reports: the seed article's three
 * figures (code/experiment/seed_experiment.c) and the summation methods
 * (code/experiment/summation.c) that decide the middle one. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void expect_six_digits(const char *what, double got, const char *article)
{
    char text[32];
    snprintf(text, sizeof text, "%.6f", got);
    ck_assert_msg(strcmp(text, article) == 0,
                  "%s: the article printed %s, the C experiment gives %s (%.17g). "
                  "Hint: the draws must be Python's (random.seed(7), gauss(0.0, 3.0), row by row) "
                  "and the figure is max over tokens of |sum(token) / D|",
                  what, article, text, got);
}

START_TEST(article_figures_reproduced)
{
    nl_seed_figures f;
    ck_assert_int_eq(nl_seed_experiment(NL_SUM_LEFT, NL_SUM_LEFT, &f), NL_OK);
    expect_six_digits("input, max |mean| per token", f.input, "0.268950");
    expect_six_digits("RMSNorm output, max |mean| per token", f.rmsnorm, "0.087061");
}
END_TEST

START_TEST(layernorm_figure_matches_python_sum)
{
    /* The seed script's repr(max(abs(sum(v) / D) for v in ln)) as printed
     * by real Pythons on the development machine: 3.11 (sum() adds left to
     * right) and 3.12.1 / 3.13.0 (sum() of floats is Neumaier-compensated).
     * The article's 3.75e-17 came from neither of these. */
    const double python311 = 2.5652223401007035e-16;
    const double python312 = 3.742911538974665e-17;
    const double python312_rms = 0.0870605067121821;
    nl_seed_figures f;
    nl_seed_experiment(NL_SUM_LEFT, NL_SUM_LEFT, &f);
    ck_assert_msg(f.layernorm == python311,
                  "LayerNorm figure with left-to-right sums: Python 3.11 gives %.17g, C gave %.17g. "
                  "Hint: sum in list order, mu = sum / D, var = sum((t - mu)**2) / D, "
                  "inv = 1 / (var + eps)**0.5",
                  python311, f.layernorm);
    nl_seed_experiment(NL_SUM_NEUMAIER, NL_SUM_NEUMAIER, &f);
    ck_assert_msg(f.layernorm == python312 && f.rmsnorm == python312_rms,
                  "with Neumaier sums: Python 3.12 gives LayerNorm %.17g and RMSNorm %.17g, "
                  "C gave %.17g and %.17g. Hint: compensate with whichever operand is larger",
                  python312, python312_rms, f.layernorm, f.rmsnorm);
}
END_TEST

START_TEST(layernorm_figure_is_noise_whatever_the_summation)
{
    /* In exact arithmetic LayerNorm's output has mean 0. Whatever way the
     * sums are taken, what is left must be of the size of a rounding of
     * the O(1) outputs (DBL_EPSILON = 2.2e-16), 15 orders of magnitude
     * below the input's figure, while the other two figures do not move
     * beyond their sixth digit. */
    const nl_sum_method m[] = {NL_SUM_LEFT, NL_SUM_NEUMAIER, NL_SUM_EXACT};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            nl_seed_figures f;
            nl_seed_experiment(m[i], m[j], &f);
            ck_assert_msg(f.layernorm < 2 * DBL_EPSILON,
                          "sums inside %zu, measured %zu: LayerNorm left a mean of %.3g per token, "
                          "expected rounding noise below %.3g. Hint: did LayerNorm subtract the mean?",
                          i, j, f.layernorm, 2 * DBL_EPSILON);
            expect_six_digits("input figure under another summation", f.input, "0.268950");
            expect_six_digits("RMSNorm figure under another summation", f.rmsnorm, "0.087061");
        }
}
END_TEST

START_TEST(rmsnorm_figure_is_the_input_mean_rescaled)
{
    /* RMSNorm only divides each token by its RMS (about sigma = 3 here),
     * so the token means shrink by that factor but do not vanish. */
    nl_seed_figures f;
    nl_seed_experiment(NL_SUM_EXACT, NL_SUM_EXACT, &f);
    double ratio = f.input / f.rmsnorm;
    ck_assert_msg(ratio > 2.7 && ratio < 3.3,
                  "input figure / RMSNorm figure = %.4f, expected about the RMS of gauss(0, 3) "
                  "draws, 3", ratio);
}
END_TEST

static void expect_sum(const char *what, const double *v, size_t n, nl_sum_method how,
                       double want)
{
    double got = nl_sum(v, n, how);
    ck_assert_msg(got == want, "%s: expected %.17g, got %.17g", what, want, got);
}

START_TEST(three_summations_on_known_cases)
{
    /* Expected values from Python: sum() of 3.11 (left to right) and
     * math.fsum() (exact, rounded once). */
    const double tenth[10] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    expect_sum("ten 0.1s left to right", tenth, 10, NL_SUM_LEFT, 0.9999999999999999);
    expect_sum("ten 0.1s compensated", tenth, 10, NL_SUM_NEUMAIER, 1.0);
    expect_sum("ten 0.1s exact", tenth, 10, NL_SUM_EXACT, 1.0);

    const double cancel[3] = {1e100, 1.0, -1e100};
    expect_sum("1e100 + 1 - 1e100 left to right", cancel, 3, NL_SUM_LEFT, 0.0);
    expect_sum("1e100 + 1 - 1e100 compensated", cancel, 3, NL_SUM_NEUMAIER, 1.0);
    expect_sum("1e100 + 1 - 1e100 exact", cancel, 3, NL_SUM_EXACT, 1.0);

    /* 1e16 + 1 lies exactly half-way between two doubles; the 1e-16 after
     * it decides the rounding, which only an exact sum sees. */
    const double halfway[3] = {1e16, 1.0, 1e-16};
    expect_sum("1e16 + 1 + 1e-16 exact", halfway, 3, NL_SUM_EXACT, 1.0000000000000002e16);
    expect_sum("1e16 + 1 (a tie, to even) exact", halfway, 2, NL_SUM_EXACT, 1e16);
    expect_sum("empty sum exact", halfway, 0, NL_SUM_EXACT, 0.0);
}
END_TEST

START_TEST(exact_sum_ignores_order)
{
    /* The exact sum is one rounding of the true total, so any order of the
     * same values gives the same bits; values spread over 30 orders of
     * magnitude make a left-to-right sum depend on the order. */
    enum { N = 2000 };
    static double v[N], rev[N];
    nl_pyrandom r;
    nl_pyrandom_seed(&r, 42);
    for (size_t i = 0; i < N; i++) {
        double e = floor(nl_pyrandom_random(&r) * 30.0) - 15.0;
        v[i] = nl_pyrandom_gauss(&r, 0.0, 1.0) * pow(10.0, e);
        rev[N - 1 - i] = v[i];
    }
    double a = nl_sum(v, N, NL_SUM_EXACT), b = nl_sum(rev, N, NL_SUM_EXACT);
    ck_assert_msg(a == b, "exact sum forward %.17g, backward %.17g: it must not depend on order",
                  a, b);
    double la = nl_sum(v, N, NL_SUM_LEFT), lb = nl_sum(rev, N, NL_SUM_LEFT);
    ck_assert_msg(la != lb,
                  "left-to-right sums agree forward and backward (%.17g): the data no longer "
                  "shows order dependence, so this test lost its point", la);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("demo");
    TCase *tc = tcase_create("seed experiment");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, article_figures_reproduced);
    tcase_add_test(tc, layernorm_figure_matches_python_sum);
    tcase_add_test(tc, layernorm_figure_is_noise_whatever_the_summation);
    tcase_add_test(tc, rmsnorm_figure_is_the_input_mean_rescaled);
    suite_add_tcase(s, tc);
    TCase *sums = tcase_create("summation");
    tcase_add_test(sums, three_summations_on_known_cases);
    tcase_add_test(sums, exact_sum_ignores_order);
    suite_add_tcase(s, sums);
    return s;
}
