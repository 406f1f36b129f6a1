/* check_block_depth.c — where the norm sits (chapter 9, exercise 12):
 * the residual stream of a toy model under pre-norm, post-norm and
 * DeepNorm, against what the arithmetic of each arrangement predicts.
 *
 * Each sublayer adds a vector of about the stream's input scale, nearly
 * orthogonal to the stream (a random map), so:
 *   pre-norm:  rms(h_L)^2 ~ 1 + 2L (2 sublayers per block, nothing rescales h)
 *   post-norm: rms(h_l) = 1 after every block, and h_0's share halves per
 *              sublayer: cos(h_L, h_0) ~ 2^-L
 *   DeepNorm:  rms 1, and the share shrinks by only 1/sqrt(1 + beta^2/alpha^2)
 *              per sublayer: cos ~ (1 + beta^2/alpha^2)^-L */
#include <math.h>
#include <stdio.h>

#include "harness.h"

enum { TOKENS = 16, D = 128, LAYERS = 32 };

static void run(nl_block_arch arch, nl_depth_point *p, double *final_rms)
{
    int rc = nl_depth_run(arch, TOKENS, D, LAYERS, 1, p, final_rms);
    ck_assert_msg(rc == NL_OK, "nl_depth_run(%s) failed: %s", nl_block_arch_name(arch),
                  nl_last_error());
}

START_TEST(pre_norm_stream_grows_like_sqrt_depth)
{
    nl_depth_point p[LAYERS + 1];
    double final_rms;
    run(NL_BLOCK_PRE, p, &final_rms);
    for (size_t l = 4; l <= LAYERS; l *= 2) {
        double want = sqrt(1.0 + 2.0 * (double)l), ratio = p[l].rms / want;
        ck_assert_msg(ratio > 0.85 && ratio < 1.15,
                      "pre-norm after %zu blocks: stream rms %.3f, expected about sqrt(1 + 2 x %zu)"
                      " = %.3f. In pre-norm the sublayer sees Norm(h) but its output is added to h"
                      " itself, which no norm touches: h <- h + F(Norm(h)).",
                      l, p[l].rms, l, want);
    }
    ck_assert_msg(fabs(final_rms - 1.0) < 1e-3,
                  "pre-norm: the final norm should hand on rms 1, got %.4f", final_rms);
}
END_TEST

START_TEST(post_norm_stream_stays_unit_and_forgets)
{
    nl_depth_point p[LAYERS + 1];
    run(NL_BLOCK_POST, p, NULL);
    for (size_t l = 1; l <= LAYERS; l++)
        ck_assert_msg(fabs(p[l].rms - 1.0) < 1e-3,
                      "post-norm after block %zu: stream rms %.4f, expected 1: the norm comes "
                      "after the residual add, h <- Norm(h + F(h)).", l, p[l].rms);
    ck_assert_msg(fabs(p[1].cos_input - 0.5) < 0.1,
                  "post-norm after one block (two sublayers): cos(h, h_0) = %.3f, expected "
                  "about 0.5: each sublayer adds an equal, orthogonal part, then rescales.",
                  p[1].cos_input);
    ck_assert_msg(fabs(p[8].cos_input) < 0.1,
                  "post-norm after 8 blocks: cos(h, h_0) = %.3f; the input's share should "
                  "have halved 16 times (2^-16).", p[8].cos_input);
}
END_TEST

START_TEST(deepnorm_keeps_the_input)
{
    nl_depth_point p[LAYERS + 1];
    run(NL_BLOCK_DEEPNORM, p, NULL);
    double a = nl_deepnorm_alpha(LAYERS), b = nl_deepnorm_beta(LAYERS);
    double want = pow(1.0 + b * b / (a * a), -(double)LAYERS);
    ck_assert_msg(fabs(p[LAYERS].cos_input - want) < 0.05,
                  "DeepNorm after %d blocks: cos(h, h_0) = %.3f, expected about %.3f "
                  "(alpha = %.3f on the residual, maps scaled by beta = %.3f): "
                  "h <- Norm(alpha h + F(h)).", LAYERS, p[LAYERS].cos_input, want, a, b);
    for (size_t l = 1; l <= LAYERS; l++)
        ck_assert_msg(fabs(p[l].rms - 1.0) < 1e-3,
                      "DeepNorm after block %zu: stream rms %.4f, expected 1 (the norm is "
                      "last, as in post-norm)", l, p[l].rms);
}
END_TEST

START_TEST(deepnorm_constants_are_deepnets)
{
    /* decoder-only, N blocks: alpha = (2N)^(1/4), beta = (8N)^(-1/4) */
    ck_assert_msg(fabs(nl_deepnorm_alpha(64) - pow(128.0, 0.25)) < 1e-12, "alpha(64) = %g",
                  nl_deepnorm_alpha(64));
    ck_assert_msg(fabs(nl_deepnorm_beta(64) - pow(512.0, -0.25)) < 1e-12, "beta(64) = %g",
                  nl_deepnorm_beta(64));
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    nl_depth_point p[2];
    ck_assert_int_eq(nl_depth_run(NL_BLOCK_PRE, 0, D, 1, 1, p, NULL), NL_EARG);
    ck_assert_int_eq(nl_depth_run((nl_block_arch)7, 1, D, 1, 1, p, NULL), NL_EARG);
    ck_assert_msg(*nl_last_error() != '\0', "a refused run should say why");
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("block_depth");
    TCase *tc = tcase_create("block_depth");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, pre_norm_stream_grows_like_sqrt_depth);
    tcase_add_test(tc, post_norm_stream_stays_unit_and_forgets);
    tcase_add_test(tc, deepnorm_keeps_the_input);
    tcase_add_test(tc, deepnorm_constants_are_deepnets);
    tcase_add_test(tc, bad_arguments_are_refused);
    suite_add_tcase(s, tc);
    return s;
}
