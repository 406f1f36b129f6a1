/* book-numbers.c — the numbers the chapters and solutions quote,
 * computed by the course's own code each time the book is built
 * (scripts/book/book.sh substitutes {{key}} in the prose with the value
 * printed here), so the prose cannot drift from what the code does.
 *
 * Prints `key value` lines:
 *   tiny.*     four values near 1e4, variance by E[x^2]-E[x]^2 in float
 *   var.*      4096 values of mean 1e4 and std 1: variance four ways
 *   err.NAME   worst |y - reference| of each registered LayerNorm on them
 *   chan.*     Welford over two halves merged by Chan vs one stream
 *   mean.*     the offset row's mean summed in float and in double
 *   rms.*      RMSNorm's output mean on a row of mean 0.5, std 2
 *   huge.*     RMSNorm errors on values near 1e20
 */
#include "normlab.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D = 4096 };

/* A deterministic normal sample (splitmix64 + Box-Muller): the book's
 * numbers must be the same on every build. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill_offset(float *x, size_t n, double mean, double std, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        double u1 = ((double)(next_u64(&s) >> 11) + 0.5) * 0x1.0p-53;
        double u2 = ((double)(next_u64(&s) >> 11) + 0.5) * 0x1.0p-53;
        x[i] = (float)(mean + std * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2));
    }
}

/* The textbook one-pass formula in float, as layernorm_onepass computes it. */
static float var_onepass_float(const float *x, size_t n, float *sumsq_out)
{
    float sum = 0.0f, sumsq = 0.0f;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        sumsq += x[i] * x[i];
    }
    float mean = sum / (float)n;
    if (sumsq_out)
        *sumsq_out = sumsq;
    return sumsq / (float)n - mean * mean;
}

/* Centre first, then square, all in float. */
static float var_twopass_float(const float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    float mean = sum / (float)n, sq = 0.0f;
    for (size_t i = 0; i < n; i++)
        sq += (x[i] - mean) * (x[i] - mean);
    return sq / (float)n;
}

/* The same, in double: the exact variance of these floats to ~1e-12. */
static double var_twopass_double(const float *x, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / (double)n, sq = 0.0;
    for (size_t i = 0; i < n; i++)
        sq += ((double)x[i] - mean) * ((double)x[i] - mean);
    return sq / (double)n;
}

/* ------------------------------------------------- chapter 9: the block */

/* bf16 by round-to-nearest-even of a float's top 16 bits (finite values):
 * enough to count where an engine's rounding of the residual sum changes
 * the output.  (Chapter 8's storage types may replace it.) */
static float bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Fused add + RMSNorm with bf16 storage, the two engines' ways, with a
 * learned-looking bf16 weight w ~ N(1, 0.1) (w = 1 would hide the second
 * effect: bf16(h) * 1 needs no rounding):
 *   vLLM (and the unfused Llama pair): z = bf16(x + r); statistics of z;
 *       y = bf16(bf16(z * inv) * w), two roundings of the output;
 *   FlashInfer: s = x + r kept in float; statistics of s;
 *       y = bf16(s * inv * w), one rounding.
 * Prints how many outputs differ in all, and for each effect alone: the
 * sum's rounding (both with one output rounding) and the output's double
 * rounding (both from the rounded sum). */
static void block_bf16_numbers(void)
{
    enum { ROWS = 256, DB = 4096 };
    size_t differ = 0, rows_differ = 0, by_sum = 0, by_output = 0;
    uint64_t seed = 99;
    static float w[DB];
    fill_offset(w, DB, 1.0, 0.1, 7);
    for (size_t i = 0; i < DB; i++)
        w[i] = bf16(w[i]);
    for (size_t r = 0; r < ROWS; r++) {
        static float x[DB], res[DB];
        fill_offset(x, DB, 0.0, 1.0, seed++);
        fill_offset(res, DB, 0.0, 1.0, seed++);
        double sz = 0.0, ss = 0.0;
        for (size_t i = 0; i < DB; i++) {
            x[i] = bf16(x[i]);
            res[i] = bf16(res[i]);
            float s = x[i] + res[i], z = bf16(s);
            sz += (double)z * z;
            ss += (double)s * s;
        }
        float inv_z = (float)(1.0 / sqrt(sz / DB + 1e-6)), inv_s = (float)(1.0 / sqrt(ss / DB + 1e-6));
        size_t here = 0;
        for (size_t i = 0; i < DB; i++) {
            float s = x[i] + res[i], z = bf16(s);
            float vllm = bf16(bf16(z * inv_z) * w[i]);
            float once_rounded_sum = bf16(z * inv_z * w[i]);
            float flashinfer = bf16(s * inv_s * w[i]);
            here += vllm != flashinfer;
            by_sum += once_rounded_sum != flashinfer;
            by_output += vllm != once_rounded_sum;
        }
        differ += here;
        rows_differ += here > 0;
    }
    double n = (double)ROWS * DB;
    printf("fused.bf16.rows %d\n", ROWS);
    printf("fused.bf16.d %d\n", DB);
    printf("fused.bf16.rows_differ %zu\n", rows_differ);
    printf("fused.bf16.pct_differ %.1f\n", 100.0 * (double)differ / n);
    printf("fused.bf16.pct_sum %.1f\n", 100.0 * (double)by_sum / n);
    printf("fused.bf16.pct_output %.1f\n", 100.0 * (double)by_output / n);
}

/* The depth experiment (figure: build/fig-depth, scripts/tools/block-depth.c)
 * and DyT against RMSNorm. */
static int block_numbers(void)
{
    enum { LAYERS = 64, DD = 128, TOKENS = 16 };
    nl_depth_point p[3][LAYERS + 1];
    double final[3];
    for (int a = 0; a < 3; a++)
        if (nl_depth_run((nl_block_arch)a, TOKENS, DD, LAYERS, 1, p[a], &final[a]) != NL_OK) {
            fprintf(stderr, "book-numbers: %s\n", nl_last_error());
            return 1;
        }
    double al = nl_deepnorm_alpha(LAYERS), be = nl_deepnorm_beta(LAYERS);
    printf("depth.layers %d\ndepth.d %d\ndepth.tokens %d\n", LAYERS, DD, TOKENS);
    printf("depth.pre.rms8 %.2f\n", p[0][8].rms);
    printf("depth.pre.rms64 %.2f\n", p[0][LAYERS].rms);
    printf("depth.pre.want8 %.2f\n", sqrt(1.0 + 2.0 * 8));
    printf("depth.pre.want64 %.2f\n", sqrt(1.0 + 2.0 * LAYERS));
    printf("depth.pre.final %.4f\n", final[0]);
    printf("depth.pre.cos64 %.3f\n", p[0][LAYERS].cos_input);
    printf("depth.post.rms64 %.4f\n", p[1][LAYERS].rms);
    printf("depth.post.cos1 %.3f\n", p[1][1].cos_input);
    printf("depth.post.cos4 %.3f\n", p[1][4].cos_input);
    printf("depth.deep.alpha %.3f\n", al);
    printf("depth.deep.beta %.3f\n", be);
    printf("depth.deep.cos64 %.3f\n", p[2][LAYERS].cos_input);
    printf("depth.deep.want64 %.3f\n", pow(1.0 + be * be / (al * al), -(double)LAYERS));

    enum { DY = 4096 };
    static float x[DY], y[DY], g[DY];
    for (size_t i = 0; i < DY; i++)
        g[i] = 1.0f;
    const nl_impl *rms = nl_find_impl("rmsnorm_fused");
    for (int scale = 1; scale <= 10; scale += 9) {
        fill_offset(x, DY, 0.0, scale, 7);
        double ry = 0.0, dy = 0.0, rmax = 0.0, dmax = 0.0;
        rms->fn(x, g, NULL, 1e-6f, 1, DY, y);
        for (size_t i = 0; i < DY; i++) {
            ry += (double)y[i] * y[i];
            rmax = fmax(rmax, fabs(y[i]));
        }
        nl_dyt(x, 0.5f, g, NULL, 1, DY, y);
        for (size_t i = 0; i < DY; i++) {
            dy += (double)y[i] * y[i];
            dmax = fmax(dmax, fabs(y[i]));
        }
        printf("dyt.rms.scale%d %.3f\ndyt.dyt.scale%d %.3f\n", scale, sqrt(ry / DY), scale, sqrt(dy / DY));
        printf("dyt.rmsmax.scale%d %.2f\ndyt.dytmax.scale%d %.3f\n", scale, rmax, scale, dmax);
    }
    block_bf16_numbers();
    return 0;
}

int main(void)
{
    /* Four values: small enough to follow by hand. */
    const float tiny[4] = {10001.0f, 10002.0f, 10003.0f, 10004.0f};
    float tiny_sumsq;
    float tiny_var = var_onepass_float(tiny, 4, &tiny_sumsq);
    double exact_sumsq = 0.0;
    for (int i = 0; i < 4; i++)
        exact_sumsq += (double)tiny[i] * tiny[i];
    printf("tiny.var_exact %.6g\n", var_twopass_double(tiny, 4));
    printf("tiny.sumsq_exact %.0f\n", exact_sumsq);
    printf("tiny.sumsq_float %.0f\n", (double)tiny_sumsq);
    printf("tiny.var_onepass %.6g\n", (double)tiny_var);

    float *x = malloc(D * sizeof *x), *y = malloc(D * sizeof *y);
    float *gamma = malloc(D * sizeof *gamma), *beta = malloc(D * sizeof *beta);
    double *ref = malloc(D * sizeof *ref);
    if (!x || !y || !gamma || !beta || !ref) {
        fprintf(stderr, "book-numbers: out of memory\n");
        return 1;
    }
    fill_offset(x, D, 1e4, 1.0, 2024);
    for (size_t i = 0; i < D; i++) {
        gamma[i] = 1.0f;
        beta[i] = 0.0f;
    }
    nl_moments w = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < D; i++)
        nl_welford_push(&w, x[i]);
    printf("var.d %d\n", D);
    printf("var.exact %.6f\n", var_twopass_double(x, D));
    printf("var.onepass_float %.6f\n", (double)var_onepass_float(x, D, NULL));
    printf("var.twopass_float %.6f\n", (double)var_twopass_float(x, D));
    printf("var.welford %.6f\n", w.m2 / w.n);

    /* End to end: every registered LayerNorm on this row. */
    const float eps = 1e-5f;
    nl_reference(NL_LAYERNORM, x, gamma, beta, eps, 1, D, ref);
    size_t n;
    const nl_impl *all = nl_impls(&n);
    for (size_t k = 0; k < n; k++) {
        if (all[k].norm != NL_LAYERNORM || nl_impl_unavailable(&all[k]))
            continue;
        if (all[k].fn(x, gamma, beta, eps, 1, D, y) != 0)
            continue;
        double worst = nl_max_abs_diff(y, ref, D);
        /* Plain digits for errors of whole units, exponents for tiny ones. */
        printf(worst >= 10.0 ? "err.%s %.0f\n" : "err.%s %.2g\n", all[k].name, worst);
    }

    /* The mean of the offset row summed in float and in double: what a
     * float accumulator costs the re-centring step (exercise 01). */
    float fsum = 0.0f;
    double dsum = 0.0;
    for (size_t i = 0; i < D; i++) {
        fsum += x[i];
        dsum += x[i];
    }
    printf("mean.double %.6f\n", dsum / D);
    printf("mean.float %.6f\n", (double)(fsum / (float)D));
    printf("mean.float_err %.2g\n", fabs((double)(fsum / (float)D) - dsum / D));

    /* RMSNorm on a row of mean 0.5, std 2: the mean survives, scaled. */
    fill_offset(x, D, 0.5, 2.0, 7);
    double ssum = 0.0, ssq = 0.0;
    for (size_t i = 0; i < D; i++) {
        ssum += x[i];
        ssq += (double)x[i] * x[i];
    }
    printf("rms.mean_in %.4f\n", ssum / D);
    printf("rms.rms_in %.4f\n", sqrt(ssq / D));
    printf("rms.mean_want %.4f\n", (ssum / D) / sqrt(ssq / D + eps));
    for (size_t k = 0; k < n; k++) {
        if (all[k].norm != NL_RMSNORM || nl_impl_unavailable(&all[k]))
            continue;
        if (all[k].fn(x, gamma, NULL, eps, 1, D, y) != 0)
            continue;
        double s = 0.0;
        for (size_t i = 0; i < D; i++)
            s += y[i];
        printf("rms.mean_out.%s %.4f\n", all[k].name, s / D);
    }

    /* Values near 1e20: their squares overflow float (max 3.4e38). */
    fill_offset(x, D, 0.0, 1e20, 11);
    nl_reference(NL_RMSNORM, x, gamma, NULL, eps, 1, D, ref);
    for (size_t k = 0; k < n; k++) {
        if (all[k].norm != NL_RMSNORM || nl_impl_unavailable(&all[k]))
            continue;
        if (all[k].fn(x, gamma, NULL, eps, 1, D, y) != 0)
            continue;
        double worst = nl_max_abs_diff(y, ref, D);
        printf("huge.err.%s %.2g\n", all[k].name, worst);
    }
    fill_offset(x, D, 1e4, 1.0, 2024);

    /* Chan: two halves summarised apart, then merged, against one stream. */
    nl_moments a = {0.0, 0.0, 0.0}, b = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < D / 2; i++)
        nl_welford_push(&a, x[i]);
    for (size_t i = D / 2; i < D; i++)
        nl_welford_push(&b, x[i]);
    nl_moments m = nl_chan_merge(a, b);
    printf("chan.mean_a %.6f\n", a.mean);
    printf("chan.mean_b %.6f\n", b.mean);
    printf("chan.var_merged %.6f\n", m.m2 / m.n);
    printf("chan.mean_diff %.1e\n", fabs(m.mean - w.mean));
    printf("chan.m2_reldiff %.1e\n", fabs(m.m2 - w.m2) / w.m2);

    free(x);
    free(y);
    free(gamma);
    free(beta);
    free(ref);
    return block_numbers();
}
