/* check_museum.c — a museum of real norm bugs (chapters 8 to 11).
 *
 * Each exhibit is a pair: the bug as it shipped, written small, and its
 * fix. Each test holds both to a property the course teaches and asserts
 * that the buggy variant breaks it and the fixed one keeps it, so the
 * exhibit cannot rot into two functions that happen to agree. The
 * chapters' sidebars name the thread each bug was reported in. */
/* Debian 12's aarch64 gcc 12 stops with an internal compiler error
 * (vect_transform_reduction) vectorising the reductions inlined into
 * museum_gemma_merge_adds_one; the tests need no vector code. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__)
#pragma GCC optimize("no-tree-vectorize")
#endif
#include <float.h>
#include <math.h>
#include <string.h>

#include "harness.h"

enum { D = 4096 };

static void gauss_row(float *x, size_t d, double mean, double std, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t i = 0; i < d; i++)
        x[i] = (float)nl_pyrandom_gauss(&r, mean, std);
}

static double mean_square(const float *x, size_t d)
{
    double s = 0.0;
    for (size_t i = 0; i < d; i++)
        s += (double)x[i] * x[i];
    return s / (double)d;
}

static double rms_of(const float *y, size_t d)
{
    return sqrt(mean_square(y, d));
}

/* RMSNorm as every model file defines it: eps inside the root, y = x r g. */
static void rmsnorm(const float *x, const float *g, double eps, size_t d, float *y)
{
    double r = 1.0 / sqrt(mean_square(x, d) + eps);
    for (size_t i = 0; i < d; i++)
        y[i] = (float)(x[i] * r * (g ? g[i] : 1.0f));
}

static double max_abs_diff(const float *a, const float *b, size_t d)
{
    double m = 0.0;
    for (size_t i = 0; i < d; i++)
        m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* ---------------------------------------------------------------- 1
 * The default eps taken from the input dtype (pytorch#140092, fixed by
 * PR #142848): finfo(bf16).eps = 2^-7 = 0.0078 where fp32's 2^-23 was
 * meant. Property (chapter 2, 8): with eps far below the mean square, the
 * output of an unweighted RMSNorm has rms 1. */
START_TEST(museum_eps_from_bf16_finfo)
{
    static float x[32], y[32];
    gauss_row(x, 32, 0.0, 0.058, 42);   /* the small activations of pytorch#189581 */
    for (size_t i = 0; i < 32; i++)
        x[i] = nl_bf16_to_float(nl_bf16_from_float(x[i]));
    const double bug_eps = 0x1p-7, fix_eps = 0x1p-23;   /* finfo(bf16).eps, finfo(fp32).eps */
    rmsnorm(x, NULL, bug_eps, 32, y);
    double bug = rms_of(y, 32);
    rmsnorm(x, NULL, fix_eps, 32, y);
    double fix = rms_of(y, 32);
    ck_assert_msg(fabs(bug - 1.0) > 0.3,
                  "bug variant (eps = finfo(bf16).eps = 2^-7) on a row of std 0.058: output rms "
                  "%.3f, expected far from 1: eps (0.0078) is larger than the mean square (%.4f)",
                  bug, mean_square(x, 32));
    ck_assert_msg(fabs(fix - 1.0) < 1e-3,
                  "fixed variant (eps = finfo(fp32).eps): output rms %.6f, expected 1 within 1e-3",
                  fix);
}
END_TEST

/* ---------------------------------------------------------------- 2
 * The (1 + w) offset forgotten on the final norm only (kekzl/imp PR #1289,
 * Qwen3.5/3.6 checkpoints store every norm's gamma as w, meaning 1 + w).
 * Property (chapter 8, Gemma's storage): with offset storage the output
 * has the scale of 1 + w, near 1. */
START_TEST(museum_final_norm_offset_forgotten)
{
    static float x[D], w[D], g[D], y[D];
    gauss_row(x, D, 0.0, 3.0, 1);
    gauss_row(w, D, 0.0, 0.02, 2);   /* learned offsets: small */
    for (size_t i = 0; i < D; i++)
        g[i] = 1.0f + w[i];
    rmsnorm(x, w, 1e-6, D, y);   /* bug: the stored w used as gamma */
    double bug = rms_of(y, D);
    rmsnorm(x, g, 1e-6, D, y);   /* fix: gamma = 1 + w, as the other norms had */
    double fix = rms_of(y, D);
    ck_assert_msg(bug < 0.1, "bug variant (final norm scaled by w): output rms %.4f, expected "
                  "the size of w (about 0.02): the logits' input shrinks fifty-fold", bug);
    ck_assert_msg(fabs(fix - 1.0) < 0.01,
                  "fixed variant (1 + w): output rms %.4f, expected about 1", fix);
}
END_TEST

/* Gemma LoRA merging (unslothai/unsloth#219): a merged model was "literally
 * unusable", and the reporter suspected the loader's post-patch adding 1
 * to the norm weights again with each merge, so a model saved with that 1
 * and loaded again got another. Property: saving and loading a model
 * leaves its norm's output unchanged (round-trip invariance). */
static float load_offset_bug(float stored) { return stored + 1.0f; } /* patched in place */
static float save_offset_bug(float live) { return live; }            /* saved as patched */
static float load_offset_fix(float stored) { return stored; }        /* 1 + w taken at use */
static float save_offset_fix(float live) { return live; }

START_TEST(museum_gemma_merge_adds_one)
{
    static float x[D], w[D], g[D], y0[D], y1[D];
    gauss_row(x, D, 0.0, 1.0, 3);
    gauss_row(w, D, 0.0, 0.02, 4);
    for (int variant = 0; variant < 2; variant++) {
        float (*load)(float) = variant ? load_offset_fix : load_offset_bug;
        float (*save)(float) = variant ? save_offset_fix : save_offset_bug;
        /* the live weight, and its gamma at use: the bug's live weight is
         * already 1 + w, the fix adds the 1 at use */
        for (size_t i = 0; i < D; i++)
            g[i] = variant ? 1.0f + load(w[i]) : load(w[i]);
        rmsnorm(x, g, 1e-6, D, y0);
        for (size_t i = 0; i < D; i++) {
            float again = load(save(load(w[i])));   /* load, save, load again */
            g[i] = variant ? 1.0f + again : again;
        }
        rmsnorm(x, g, 1e-6, D, y1);
        double ratio = rms_of(y1, D) / rms_of(y0, D);
        if (variant)
            ck_assert_msg(max_abs_diff(y0, y1, D) == 0.0,
                          "fixed variant: a save and a load changed the norm's output (rms "
                          "ratio %.4f); expected the same bits", ratio);
        else
            ck_assert_msg(ratio > 1.9,
                          "bug variant: after one save and load the norm's output grew by %.3f, "
                          "expected about 2 (1 + w became 2 + w)", ratio);
    }
}
END_TEST

/* ---------------------------------------------------------------- 3
 * QK-norm applied after RoPE instead of before (meta-pytorch/torchtune
 * #2809, against Hugging Face's Qwen3). Property (chapter 9): RMSNorm
 * without weight commutes with a rotation, which keeps the norm of every
 * rotated pair; a per-channel gamma does not. The learned-gamma half is the
 * counterexample to the last comment of karpathy/nanochat#743, which has
 * the orders commute for an RMSNorm with a weight too. */
static void rope(const float *q, size_t d, double pos, float *out)
{
    /* rotate-half pairing: (i, i + d/2), frequency base 10000 */
    size_t h = d / 2;
    for (size_t i = 0; i < h; i++) {
        double theta = pos * pow(10000.0, -(double)(2 * i) / (double)d);
        double c = cos(theta), s = sin(theta);
        out[i] = (float)(q[i] * c - q[i + h] * s);
        out[i + h] = (float)(q[i] * s + q[i + h] * c);
    }
}

START_TEST(museum_qk_norm_after_rope)
{
    enum { H = 128 };
    static float q[H], g[H], t[H], before[H], after[H];
    gauss_row(q, H, 0.0, 1.0, 5);
    gauss_row(g, H, 1.0, 0.3, 6);   /* a learned q_norm weight */
    /* gamma = 1: both orders agree to rounding */
    rmsnorm(q, NULL, 1e-6, H, t);
    rope(t, H, 37.0, before);
    rope(q, H, 37.0, t);
    rmsnorm(t, NULL, 1e-6, H, after);
    double plain = max_abs_diff(before, after, H);
    /* learned gamma: the reference order (norm, then RoPE) against the bug */
    rmsnorm(q, g, 1e-6, H, t);
    rope(t, H, 37.0, before);        /* fix: Qwen3's order */
    rope(q, H, 37.0, t);
    rmsnorm(t, g, 1e-6, H, after);   /* bug: RoPE first */
    double learned = max_abs_diff(before, after, H);
    ck_assert_msg(plain < 1e-5, "without a weight the orders must commute (a rotation keeps "
                  "the rms); they differ by %g", plain);
    ck_assert_msg(learned > 0.1, "with a per-channel gamma the bug's order must differ from "
                  "norm-then-RoPE by far more than rounding; it differs by %g", learned);
}
END_TEST

/* ---------------------------------------------------------------- 4
 * T5 in fp16 (huggingface/transformers#5651 and #9295, fixed by PR #9487):
 * a feed-forward output or a residual sum overflows fp16 to Inf (only
 * t5-small ran in fp16, #9295 found), the next T5LayerNorm takes
 * rsqrt(Inf) = 0, and Inf * 0 = NaN. The fix clamps the hidden states to
 * finfo(fp16).max - 1000 when an Inf appears. Property (chapter 8): a
 * norm's output is finite whenever its input is. */
static void t5_norm_fp16(const uint16_t *h, size_t d, uint16_t *out)
{
    double ms = 0.0;
    for (size_t i = 0; i < d; i++)
        ms += (double)nl_fp16_to_float(h[i]) * nl_fp16_to_float(h[i]);
    float r = 1.0f / sqrtf((float)(ms / (double)d) + 1e-6f);
    for (size_t i = 0; i < d; i++)
        out[i] = nl_fp16_from_float(nl_fp16_to_float(h[i]) * r);
}

START_TEST(museum_t5_inf_residual)
{
    enum { N = 512 };
    static uint16_t h[N], y[N];
    static float x[N];
    gauss_row(x, N, 0.0, 1.0, 7);
    for (int variant = 0; variant < 2; variant++) {
        for (size_t i = 0; i < N; i++)
            h[i] = nl_fp16_from_float(x[i]);
        /* one channel of the residual add: 60000 + 10000 overflows fp16 */
        h[3] = nl_fp16_from_float(nl_fp16_to_float(nl_fp16_from_float(60000.0f)) + 10000.0f);
        if (variant) {   /* the fix: clamp to finfo(fp16).max - 1000 */
            float clamp = 65504.0f - 1000.0f;
            for (size_t i = 0; i < N; i++) {
                float v = nl_fp16_to_float(h[i]);
                h[i] = nl_fp16_from_float(fminf(fmaxf(v, -clamp), clamp));
            }
        }
        t5_norm_fp16(h, N, y);
        size_t nan = 0;
        for (size_t i = 0; i < N; i++)
            nan += isnan(nl_fp16_to_float(y[i]));
        if (variant)
            ck_assert_msg(nan == 0, "fixed variant (clamped): %zu NaN outputs, expected none",
                          nan);
        else
            ck_assert_msg(nan >= 1, "bug variant: the Inf channel must come out NaN "
                          "(rsqrt(Inf) = 0, Inf * 0 = NaN); no NaN appeared");
    }
}
END_TEST

/* ---------------------------------------------------------------- 5
 * The inverse rms rounded to bf16 before the multiply (amd/IRON PR #139):
 * every output of the row is scaled by that one rounded scalar, an error
 * of the same sign for the whole row, which over a deep stack adds up
 * linearly instead of as a square root. Properties (chapter 8): a
 * one-rounding order is within half an ulp of the exact output; and
 * where the bug's output differs from it, it differs in the direction of
 * the inverse's rounding, every time. */
START_TEST(museum_inv_rms_rounded_to_bf16)
{
    static float x[D];
    double delta = 0.0;
    /* a row whose inverse rms lies well away from a bf16 value */
    for (uint64_t seed = 8;; seed++) {
        gauss_row(x, D, 0.0, 1.0, seed);
        for (size_t i = 0; i < D; i++)
            x[i] = nl_bf16_to_float(nl_bf16_from_float(x[i]));
        double inv = 1.0 / sqrt(mean_square(x, D) + 1e-6);
        delta = nl_bf16_to_float(nl_bf16_from_float((float)inv)) / inv - 1.0;
        if (fabs(delta) > 0x1p-10)
            break;
    }
    double inv = 1.0 / sqrt(mean_square(x, D) + 1e-6);
    float inv_b = nl_bf16_to_float(nl_bf16_from_float((float)inv));
    double worst_bug = 0.0, worst_fix = 0.0;
    size_t differ = 0, with_delta = 0;
    for (size_t i = 0; i < D; i++) {
        double exact = x[i] * inv;
        uint16_t bug = nl_bf16_from_float(x[i] * inv_b);
        uint16_t fix = nl_bf16_from_float((float)(x[i] * inv));
        worst_bug = fmax(worst_bug, nl_half_ulp_error(NL_DT_BF16, bug, exact));
        worst_fix = fmax(worst_fix, nl_half_ulp_error(NL_DT_BF16, fix, exact));
        if (bug != fix) {
            differ++;
            double moved = (nl_bf16_to_float(bug) - nl_bf16_to_float(fix)) / exact;
            with_delta += moved * delta > 0.0;
        }
    }
    ck_assert_msg(worst_fix <= 0.5 + 1e-3, "fixed variant (inverse kept in float, one "
                  "rounding): worst error %.3f ulp, expected <= 0.5", worst_fix);
    ck_assert_msg(worst_bug > 0.55 && differ > 0 && with_delta == differ,
                  "bug variant (inverse rounded to bf16, delta %.2e): worst error %.3f ulp, "
                  "expected above 0.5; %zu outputs differ from the one-rounding ones, %zu of "
                  "them in the direction of delta, expected all", delta, worst_bug, differ,
                  with_delta);
}
END_TEST

/* ---------------------------------------------------------------- 6
 * LayerNorm run where the model was trained with RMSNorm (ggml-org/
 * llama.cpp#173, fixed by PR #187). Property (chapter 2): RMSNorm does not
 * centre; on centred rows the two nearly agree, which is why it went
 * unnoticed, and on rows with a mean they do not. */
/* LayerNorm without weight or bias: the library's double reference. */
static void layernorm_plain(const float *x, double eps, size_t d, float *y)
{
    static float ones[D], zeros[D];
    static double out[D];
    for (size_t i = 0; i < d; i++)
        ones[i] = 1.0f, zeros[i] = 0.0f;
    nl_reference(NL_LAYERNORM, x, ones, zeros, (float)eps, 1, d, out);
    for (size_t i = 0; i < d; i++)
        y[i] = (float)out[i];
}

START_TEST(museum_layernorm_for_rmsnorm)
{
    static float x[D], ref[D], bug[D];
    gauss_row(x, D, 0.0, 1.0, 9);
    rmsnorm(x, NULL, 1e-6, D, ref);
    layernorm_plain(x, 1e-6, D, bug);
    double centred = max_abs_diff(ref, bug, D);
    gauss_row(x, D, 0.5, 1.0, 9);
    rmsnorm(x, NULL, 1e-6, D, ref);
    layernorm_plain(x, 1e-6, D, bug);
    double offset = max_abs_diff(ref, bug, D);
    ck_assert_msg(centred < 0.1, "on centred rows LayerNorm and RMSNorm nearly agree (that is "
                  "why the bug hid); they differ by %g", centred);
    ck_assert_msg(offset > 0.3, "on rows of mean 0.5, LayerNorm in place of RMSNorm must be "
                  "visibly wrong; it differs by only %g", offset);
}
END_TEST

/* ---------------------------------------------------------------- 7
 * eps outside the root (allenai/OLMo#281): x / (rms + eps) where Llama
 * writes x * rsqrt(mean(x^2) + eps). Property (chapter 2): eps is part of
 * the definition; on rows of unit scale the two agree to 1e-4, on rows
 * whose rms is near sqrt(eps) they do not. */
static void rmsnorm_eps_outside(const float *x, double eps, size_t d, float *y)
{
    double r = 1.0 / (sqrt(mean_square(x, d)) + eps);
    for (size_t i = 0; i < d; i++)
        y[i] = (float)(x[i] * r);
}

START_TEST(museum_eps_outside_root)
{
    static float x[D], ref[D], bug[D];
    gauss_row(x, D, 0.0, 1.0, 10);
    rmsnorm(x, NULL, 1e-5, D, ref);
    rmsnorm_eps_outside(x, 1e-5, D, bug);
    double unit = max_abs_diff(ref, bug, D) / rms_of(ref, D);
    gauss_row(x, D, 0.0, 1e-3, 10);
    rmsnorm(x, NULL, 1e-5, D, ref);
    rmsnorm_eps_outside(x, 1e-5, D, bug);
    double small = rms_of(bug, D) / rms_of(ref, D);
    ck_assert_msg(unit < 1e-4, "at unit scale the two placements of eps must agree to 1e-4 "
                  "(relative); they differ by %g", unit);
    ck_assert_msg(small > 2.0, "at rms 1e-3 (eps 1e-5) eps outside the root must give a "
                  "visibly different output; its rms is %.3f times the definition's", small);
}
END_TEST

/* ---------------------------------------------------------------- 8
 * A variance recovered from a stored inverse std before a merge
 * (PyTorch's batch_norm_reduce_statistics_kernel: v = 1/invstd,
 * v = (v*v - eps) * count). Property (chapters 3 and 11): merging
 * (n, mean, M2) summaries gives the whole row's variance; recovering it
 * from a float rstd loses it when the variance is small next to eps. */
START_TEST(museum_variance_from_rstd)
{
    enum { P = 4, N = D / P };
    static float x[D];
    const double eps = 1e-5;
    gauss_row(x, D, 1.0, 1e-6, 11);   /* variance 1e-12, ten million times below eps */
    double m = 0.0, var = 0.0;
    for (size_t i = 0; i < D; i++)
        m += x[i];
    m /= D;
    for (size_t i = 0; i < D; i++)
        var += (x[i] - m) * (x[i] - m);
    var /= D;
    nl_moments fix = {0, 0, 0};
    double bug_n = 0.0, bug_mean = 0.0, bug_m2 = 0.0;
    for (size_t k = 0; k < P; k++) {
        nl_moments s = {0, 0, 0};
        for (size_t i = k * N; i < (k + 1) * N; i++)
            nl_welford_push(&s, x[i]);
        fix = nl_chan_merge(fix, s);
        /* the shard ships (n, mean, rstd) with rstd in float, and the
         * reducer turns it back into a variance */
        float rstd = (float)(1.0 / sqrt(s.m2 / s.n + eps));
        double v = 1.0 / rstd;
        v = (v * v - eps) * s.n;
        nl_moments b = {bug_n, bug_mean, bug_m2}, part = {s.n, s.mean, v};
        b = nl_chan_merge(b, part);
        bug_n = b.n, bug_mean = b.mean, bug_m2 = b.m2;
    }
    double bug_err = fabs(bug_m2 / bug_n - var) / var, fix_err = fabs(fix.m2 / fix.n - var) / var;
    ck_assert_msg(bug_err > 1e-2, "bug variant (variance from a float rstd): relative error "
                  "%.2e, expected > 1e-2 with the variance 1e7 times below eps", bug_err);
    ck_assert_msg(fix_err < 1e-6, "fixed variant (n, mean, M2 merged): relative error %.2e, "
                  "expected < 1e-6", fix_err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("museum");
    TCase *tc = tcase_create("museum");
    tcase_add_test(tc, museum_eps_from_bf16_finfo);
    tcase_add_test(tc, museum_final_norm_offset_forgotten);
    tcase_add_test(tc, museum_gemma_merge_adds_one);
    tcase_add_test(tc, museum_qk_norm_after_rope);
    tcase_add_test(tc, museum_t5_inf_residual);
    tcase_add_test(tc, museum_inv_rms_rounded_to_bf16);
    tcase_add_test(tc, museum_layernorm_for_rmsnorm);
    tcase_add_test(tc, museum_eps_outside_root);
    tcase_add_test(tc, museum_variance_from_rstd);
    suite_add_tcase(s, tc);
    return s;
}
