/* check_train_adamw.c — AdamW's update, nl_adamw_update (chapter 13,
 * exercise 17), on its own: against the formula in double over several
 * steps, and against the usual wrong versions, each named when an answer
 * matches it: the moments not bias-corrected, eps inside the square root,
 * the weight decay put into the gradient (Adam with L2, not AdamW), the
 * decay scaled by the adaptive step, the moments not kept from call to
 * call.  Then one test for each of those, on inputs chosen so that it
 * alone decides. */
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

/* The hint for a focused test's failure: the mistake's message when the
 * answer is where that mistake puts it, else what the test holds. */
static const char *hint(double got, double wrong, variant k, const char *otherwise)
{
    return fabs(got - wrong) <= 1e-6 * (1 + fabs(wrong)) ? variant_says[k] : otherwise;
}

/* The decay is taken from the weight itself: with a zero gradient the
 * moments stay 0 and the weight shrinks by lr wd p, no more (Adam with L2
 * would step by lr sign(p); a decay divided like the gradient, by eps). */
START_TEST(adamw_decays_the_weight_itself)
{
    const float p0[4] = {1, -2, 3, -4}, g[4] = {0, 0, 0, 0};
    float p[4], m[4] = {0}, v[4] = {0};
    memcpy(p, p0, sizeof p);
    nl_adamw_update(p, g, m, v, 4, 0.5f, 0.9f, 0.95f, 1e-8f, 0.1f, 1);
    for (int i = 0; i < 4; i++) {
        double want = p0[i] - 0.05 * p0[i], sign = p0[i] > 0 ? 1 : -1;
        const char *why = fabs(p[i] - want) > 1 ? variant_says[DECAY_SCALED]
                          : p[i] == p0[i]      ? "the weight did not decay at all"
                                               : hint(p[i], p0[i] - 0.5 * sign, DECAY_IN_GRADIENT,
                                                      "the decay is lr * wd * p");
        ck_assert_msg(fabs(p[i] - want) < 1e-6, "a zero gradient, lr 0.5, wd 0.1: weight %d "
                      "is %g, expected p - lr wd p = %g; %s", i, p[i], want, why);
    }
}
END_TEST

/* With the same gradient every step, the corrected moments are g and g^2
 * from the first step on, so each step is lr sign(g): three steps move a
 * weight by 3 lr.  Uncorrected, the first steps are about half as long.
 * The gradients are far above eps, so where eps goes does not matter. */
START_TEST(adamw_corrects_the_moments_bias)
{
    const float g[4] = {0.3f, -2.0f, 0.05f, 5.0f};
    float p[4] = {0}, m[4] = {0}, v[4] = {0};
    for (int t = 1; t <= 3; t++)
        nl_adamw_update(p, g, m, v, 4, 0.01f, 0.9f, 0.95f, 1e-8f, 0.0f, t);
    double uncorrected = 0; /* the three steps' length without the correction */
    for (int t = 1; t <= 3; t++)
        uncorrected += 0.01 * (1 - pow(0.9, t)) / sqrt(1 - pow(0.95, t));
    for (int i = 0; i < 4; i++) {
        double sign = g[i] > 0 ? 1 : -1, want = -0.03 * sign;
        ck_assert_msg(fabs(p[i] - want) < 1e-6, "three steps of the same gradient %g from "
                      "0, without decay: the weight is %g, expected -3 lr sign(g) = %g (m-hat = "
                      "g and v-hat = g^2 at every step); %s", g[i], p[i], want,
                      hint(p[i], -uncorrected * sign, NO_BIAS_CORRECTION,
                           "each step is lr m-hat / (sqrt(v-hat) + eps)"));
    }
}
END_TEST

/* A gradient as small as eps: the first step is lr g / (|g| + eps), half
 * of lr at |g| = eps; with eps under the root it would be 10^4 times
 * smaller. */
START_TEST(adamw_adds_eps_outside_the_root)
{
    const float g[2] = {1e-8f, -4e-8f};
    float p[2] = {1, 1}, m[2] = {0}, v[2] = {0};
    nl_adamw_update(p, g, m, v, 2, 0.1f, 0.9f, 0.95f, 1e-8f, 0.0f, 1);
    for (int i = 0; i < 2; i++) {
        double want = 1 - 0.1 * g[i] / (fabs(g[i]) + 1e-8);
        double inside = 1 - 0.1 * g[i] / sqrt((double)g[i] * g[i] + 1e-8);
        ck_assert_msg(fabs(p[i] - want) < 1e-5, "one step of a gradient %g, eps 1e-8: the "
                      "weight is %.7g, expected 1 - lr g / (|g| + eps) = %.7g; %s", g[i], p[i],
                      want, hint(p[i], inside, EPS_INSIDE_ROOT,
                                 "the first step's corrected moments are g and g^2"));
    }
}
END_TEST

/* The moments are the running averages, written back for the next call:
 * m = beta1 m + (1 - beta1) g and v = beta2 v + (1 - beta2) g^2, not
 * their corrected values and not restarted from 0. */
START_TEST(adamw_keeps_its_moments)
{
    const float g1[2] = {0.25f, -1.0f}, g2[2] = {-0.5f, 2.0f};
    float p[2] = {0.5f, 0.5f}, m[2] = {0}, v[2] = {0};
    nl_adamw_update(p, g1, m, v, 2, 0.1f, 0.9f, 0.95f, 1e-8f, 0.0f, 1);
    nl_adamw_update(p, g2, m, v, 2, 0.1f, 0.9f, 0.95f, 1e-8f, 0.0f, 2);
    for (int i = 0; i < 2; i++) {
        double m1 = 0.1 * g1[i], v1 = 0.05 * g1[i] * g1[i];
        double m2 = 0.9 * m1 + 0.1 * g2[i], v2 = 0.95 * v1 + 0.05 * g2[i] * g2[i];
        ck_assert_msg(fabs(m[i] - m2) < 1e-6 * (1 + fabs(m2)) && fabs(v[i] - v2) < 1e-6 * (1 + v2),
                      "after two steps (gradients %g then %g) m and v should be %.6g and %.6g, "
                      "got %.6g and %.6g; %s", g1[i], g2[i], m2, v2, m[i], v[i],
                      hint(m[i], 0.1 * g2[i], MOMENTS_FORGOTTEN,
                           "keep the running averages in m and v, before the correction"));
    }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("train_adamw");
    TCase *tc = tcase_create("adamw");
    tcase_add_test(tc, adamw_matches_its_formula);
    tcase_add_test(tc, each_usual_mistake_is_told_apart);
    tcase_add_test(tc, adamw_decays_the_weight_itself);
    tcase_add_test(tc, adamw_corrects_the_moments_bias);
    tcase_add_test(tc, adamw_adds_eps_outside_the_root);
    tcase_add_test(tc, adamw_keeps_its_moments);
    suite_add_tcase(s, tc);
    return s;
}
