/* check_train_adamw.c — AdamW's update, nl_adamw_update (chapter 13), on
 * its own: against the formula in double over several steps, and against
 * the usual wrong versions, each named when an answer matches it:
 * the moments not bias-corrected, eps inside the square root, the weight
 * decay put into the gradient (Adam with L2, not AdamW), the decay
 * scaled by the adaptive step, the moments not kept from call to call. */
#include <math.h>
#include <stdio.h>

#include "gpt2/train.h"
#include "harness.h"

enum { N = 64, STEPS = 4 };
static const double LR = 1e-2, B1 = 0.9, B2 = 0.95, EPS = 1e-8, WD = 0.1;

typedef enum {
    RIGHT, NO_BIAS_CORRECTION, EPS_INSIDE_ROOT, DECAY_IN_GRADIENT, DECAY_SCALED,
    MOMENTS_FORGOTTEN, NVARIANTS
} variant;

static const char *const variant_says[NVARIANTS] = {
    [NO_BIAS_CORRECTION] = "the moments start at 0: divide m by 1 - beta1^t and v by "
                           "1 - beta2^t (bias correction), or the first steps are too small",
    [EPS_INSIDE_ROOT] = "eps is added to sqrt(v-hat), not to v-hat under the root",
    [DECAY_IN_GRADIENT] = "the decay was added to the gradient (Adam with L2); AdamW "
                          "subtracts lr * wd * p from the weight itself, outside the moments",
    [DECAY_SCALED] = "the decay was divided by sqrt(v-hat) + eps like the gradient step; "
                     "AdamW's decay is lr * wd * p alone",
    [MOMENTS_FORGOTTEN] = "m and v must be written back: the next call starts from them",
};

/* One parameter's trajectory under a version of the update, in double. */
static void reference(variant which, const float *p0, const float *g, double *p)
{
    double m[N] = {0}, v[N] = {0};
    for (int i = 0; i < N; i++)
        p[i] = p0[i];
    for (int t = 1; t <= STEPS; t++)
        for (int i = 0; i < N; i++) {
            double gi = g[(t - 1) * N + i];
            if (which == DECAY_IN_GRADIENT)
                gi += WD * p[i];
            if (which == MOMENTS_FORGOTTEN)
                m[i] = v[i] = 0;
            m[i] = B1 * m[i] + (1 - B1) * gi;
            v[i] = B2 * v[i] + (1 - B2) * gi * gi;
            int t_used = which == MOMENTS_FORGOTTEN ? 1 : t;
            double c1 = which == NO_BIAS_CORRECTION ? 1 : 1 - pow(B1, t_used);
            double c2 = which == NO_BIAS_CORRECTION ? 1 : 1 - pow(B2, t_used);
            double mh = m[i] / c1, vh = v[i] / c2;
            double denom = which == EPS_INSIDE_ROOT ? sqrt(vh + EPS) : sqrt(vh) + EPS;
            double decay = which == DECAY_IN_GRADIENT ? 0 : WD * p[i];
            if (which == DECAY_SCALED)
                p[i] -= LR * (mh + decay) / denom;
            else
                p[i] -= LR * (mh / denom + decay);
        }
}

static double distance(const float *got, const double *want)
{
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double d = fabs(got[i] - want[i]) / (LR + fabs(want[i]));
        if (d > worst)
            worst = d;
    }
    return isnan(got[0]) ? NAN : worst;
}

/* Gradients of very different sizes (where eps matters, where it does
 * not), and weights of either sign. */
static void data(float *p0, float *g, uint64_t seed)
{
    nl_fill_gauss(p0, N, 0.0, 1.0, seed);
    nl_fill_gauss(g, STEPS * N, 0.0, 1.0, seed + 1);
    for (int i = 0; i < STEPS * N; i++)
        g[i] *= (float)pow(10.0, -8.0 + 8.0 * (i % N) / (N - 1));
}

START_TEST(adamw_matches_its_formula)
{
    float p0[N], g[STEPS * N], p[N], m[N] = {0}, v[N] = {0};
    data(p0, g, 3);
    memcpy(p, p0, sizeof p);
    for (int t = 1; t <= STEPS; t++)
        nl_adamw_update(p, g + (t - 1) * N, m, v, N, (float)LR, (float)B1, (float)B2,
                        (float)EPS, (float)WD, t);
    double want[N], d = 0;
    reference(RIGHT, p0, g, want);
    d = distance(p, want);
    if (d > 1e-5) {
        /* say which usual mistake it looks like, if any */
        for (int k = 1; k < NVARIANTS; k++) {
            double wrong[N];
            reference((variant)k, p0, g, wrong);
            if (distance(p, wrong) < 1e-5)
                ck_abort_msg("after %d AdamW steps the weights follow a known mistake: %s",
                             STEPS, variant_says[k]);
        }
    }
    ck_assert_msg(d <= 1e-5, "after %d AdamW steps a weight is %.3g (of lr + |p|) from the "
                  "formula in double: p -= lr (m-hat / (sqrt(v-hat) + eps) + wd p)", STEPS, d);
}
END_TEST

/* The usual mistakes each move the weights by more than the bound, so a
 * message can name them (and an answer that makes one cannot pass). */
START_TEST(each_usual_mistake_is_told_apart)
{
    float p0[N], g[STEPS * N];
    data(p0, g, 3);
    double right[N], wrong[N];
    reference(RIGHT, p0, g, right);
    for (int k = 1; k < NVARIANTS; k++) {
        reference((variant)k, p0, g, wrong);
        double worst = 0;
        for (int i = 0; i < N; i++) {
            double d = fabs(wrong[i] - right[i]) / (LR + fabs(right[i]));
            if (d > worst)
                worst = d;
        }
        ck_assert_msg(worst > 1e-3, "mistake %d moves the weights by only %.3g: this data "
                      "cannot tell it from the right update", k, worst);
    }
}
END_TEST

/* wd = 0 is plain Adam with bias correction, and a zero gradient leaves
 * a weight alone but for the decay. */
START_TEST(adamw_without_decay_and_without_gradient)
{
    float p[4] = {1, -2, 3, -4}, g[4] = {0, 0, 0, 0}, m[4] = {0}, v[4] = {0};
    nl_adamw_update(p, g, m, v, 4, 0.5f, 0.9f, 0.95f, 1e-8f, 0.1f, 1);
    const float want[4] = {1 - 0.05f, -2 + 0.1f, 3 - 0.15f, -4 + 0.2f};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(fabsf(p[i] - want[i]) < 1e-6f, "a zero gradient: weight %d is %g, "
                      "expected p - lr wd p = %g", i, p[i], want[i]);
    float q[1] = {0.5f}, h[1] = {0.25f}, m1[1] = {0}, v1[1] = {0};
    nl_adamw_update(q, h, m1, v1, 1, 0.1f, 0.9f, 0.95f, 1e-8f, 0.0f, 1);
    /* step 1, bias-corrected: m-hat = g, v-hat = g^2, so the step is lr sign(g) */
    ck_assert_msg(fabsf(q[0] - 0.4f) < 1e-6f, "Adam's first step is lr * sign(g) (bias "
                  "correction makes m-hat = g and v-hat = g^2): 0.5 became %g, expected 0.4",
                  q[0]);
    ck_assert_msg(fabsf(m1[0] - 0.025f) < 1e-7f && fabsf(v1[0] - 0.003125f) < 1e-8f,
                  "the moments after one step: m = (1 - beta1) g = 0.025 and v = (1 - beta2) "
                  "g^2 = 0.003125; got %g and %g", m1[0], v1[0]);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("train_adamw");
    TCase *tc = tcase_create("adamw");
    tcase_add_test(tc, adamw_matches_its_formula);
    tcase_add_test(tc, each_usual_mistake_is_told_apart);
    tcase_add_test(tc, adamw_without_decay_and_without_gradient);
    suite_add_tcase(s, tc);
    return s;
}
