/* half_rungs.h — chapter 8's fast rungs on bf16/fp16 rows, written once over
 * the vector layer (code/simd/vec.h) and its 16-bit side (half_vec.h), in
 * memory order, VW lanes a vector:
 *
 *   f32stats  the row's statistics in fp32 blocks added in double, the
 *             weights widened once a call; then the elementwise pass,
 *             asking for the next row meanwhile
 *   pipe      one pass over memory: a row's outputs and the next row's
 *             sums in one loop
 *   split     the pipe rung's sums and steps in the f32stats rung's two
 *             passes, the next row asked for while this one is written
 *   block     four rows written in one loop while the next four are summed
 *             (the f32 block rung's trick)
 *
 * castorder_rungs_avx2.c and castorder_rungs_neon.c compile them at 8 and
 * 4 lanes; the AVX-512 rung files (castorder_f32stats_avx512.c, ...)
 * compile them at 16 for fp16, and for bf16 on a CPU without avx512_bf16,
 * beside their own 32-lane loops for bf16 with it.
 *
 * Every rung takes a row's statistics in exactly this order, so that the
 * rungs of one width agree bit for bit (for RMSNorm all four; for
 * LayerNorm pipe, split and block, whose one-pass statistics differ from
 * f32stats' two passes in their last bits); the contract against the
 * scalar cast order is check_half_cast's: within one ulp of the dtype,
 * bit-identical on at least 99 % of the outputs. */
#ifndef NL_HALF_RUNGS_H
#define NL_HALF_RUNGS_H

#include <math.h>

#include "precision/precision.h"
#include "simd/simd.h"

/* A sum of squares (or of squared deviations) inside this range kept
 * every term of the row inside fp32's normal range with room to spare. */
static inline int trusted(double s)
{
    return s >= 0x1p-96 && s <= 0x1p100;
}

/* Up to VW values from p (n of them, n > 0) as fp32: whole vectors by a
 * plain load where masks cost (AVX2, NEON), masked where they are free
 * (AVX-512, which then compiles to its hand rung's code). */
static inline __attribute__((always_inline)) vf load_upto(nl_dtype dt, const uint16_t *p,
                                                          size_t n)
{
    if (VF_MASKS_FREE || n < VW)
        return vh_widen(dt, vh_load_n(p, n < VW ? n : VW));
    return vh_widen(dt, vh_load(p));
}

static inline __attribute__((always_inline)) vf load_f32_upto(const float *p, size_t n)
{
    if (VF_MASKS_FREE || n < VW)
        return vf_load_first(vm_first(n < VW ? n : VW), p);
    return vf_load(p);
}

/* x - c in the first n lanes (n > 0), 0 in the others. */
static inline __attribute__((always_inline)) vf dev_upto(nl_dtype dt, const uint16_t *p,
                                                         size_t n, vf c)
{
    if (VF_MASKS_FREE || n < VW)
        return vf_sub_first(vm_first(n < VW ? n : VW), load_upto(dt, p, n), c);
    return vf_sub(load_upto(dt, p, n), c);
}

// @snippet f32stats-sumsq
/* Sum of (x - c)^2 over the row (RMSNorm: c = 0), and of x - c in *sdev:
 * fp32 accumulators over blocks of BLOCK elements (8 terms a lane, at
 * every width: at 16 lanes 256 elements, at 8 lanes 128), each block's
 * sums then added in double. The fp32 error stays that of a few
 * additions, so the row's fp32 statistic is, but for a last bit now and
 * then, the scalar kernel's; the cost is two conversions per block. (With
 * 256 elements at 8 lanes, 16 terms a lane, LayerNorm's fp16 outputs on
 * rows with outlier channels came 1.11 ulps from the exact value, past
 * check_half_cast's bound of 1.) The steps are functions of their own:
 * the pipe and block rungs take the same sums, in the same order, inside
 * their output loops. */
enum { BLOCK = 16 * VW };
_Static_assert(BLOCK % (2 * VW) == 0, "a block is whole steps of two vectors");
typedef struct { vf q0, q1, s0, s1; } block_sums;

static inline block_sums block_zero(void)
{
    vf z = vf_zero();
    return (block_sums){z, z, z, z};
}

/* 2 VW terms, v0 and v1; `sum` also adds them to the plain sums */
static inline __attribute__((always_inline)) void block_add2(block_sums *a, vf v0, vf v1, int sum)
{
    a->q0 = vf_fma(v0, v0, a->q0), a->q1 = vf_fma(v1, v1, a->q1);
    if (sum)
        a->s0 = vf_add(a->s0, v0), a->s1 = vf_add(a->s1, v1);
}

/* up to VW terms, the rest of a block (zero lanes add nothing) */
static inline __attribute__((always_inline)) void block_add1(block_sums *a, vf v, int sum)
{
    a->q0 = vf_fma(v, v, a->q0);
    if (sum)
        a->s0 = vf_add(a->s0, v);
}

/* a finished block's sums added to the row's double lanes */
static inline __attribute__((always_inline)) void block_fold(vd *q, vd *s, block_sums a, int sum)
{
    *q = vd_add_halves(*q, vf_add(a.q0, a.q1));
    if (sum)
        *s = vd_add_halves(*s, vf_add(a.s0, a.s1));
}

static inline __attribute__((always_inline)) double dev_sums(nl_dtype dt, const uint16_t *x,
                                                             size_t d, float c, double *sdev)
{
    vd q = vd_zero(), s = q;
    const vf cc = vf_set1(c);
    size_t i = 0;
    while (i < d) {
        block_sums a = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 2 * VW <= end; i += 2 * VW) {
            vf v0, v1;
            vh_widen2(dt, x + i, &v0, &v1);
            block_add2(&a, vf_sub(v0, cc), vf_sub(v1, cc), sdev != NULL);
        }
        for (; i < end; i += VW)
            block_add1(&a, dev_upto(dt, x + i, end - i, cc), sdev != NULL);
        block_fold(&q, &s, a, sdev != NULL);
    }
    if (sdev)
        *sdev = vd_sum(s);
    return vd_sum(q);
}
// @end

static inline __attribute__((always_inline)) float sum_f32(nl_dtype dt, const uint16_t *x,
                                                           size_t d)
{
    vf a0 = vf_zero(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 4 * VW <= d; i += 4 * VW) {
        a0 = vf_add(a0, load_upto(dt, x + i, VW));
        a1 = vf_add(a1, load_upto(dt, x + i + VW, VW));
        a2 = vf_add(a2, load_upto(dt, x + i + 2 * VW, VW));
        a3 = vf_add(a3, load_upto(dt, x + i + 3 * VW, VW));
    }
    for (; i < d; i += VW)
        a0 = vf_add(a0, load_upto(dt, x + i, d - i));
    return vf_sum(vf_add(vf_add(a0, a1), vf_add(a2, a3)));
}

/* RMSNorm's 1/rms from the row's fp32-summed squares `s`, or from the
 * scalar kernel's double sum where fp32 could not hold them. */
static inline float rms_inv_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s)
{
    return trusted(s) ? nl_half_rms_inv_from(s, d, eps) : nl_half_rms_inv(dt, x, d, eps);
}

/* LayerNorm's mean and 1/std from the row's first fp32 sum `s` (of x). The
 * deviations are taken from c, the first mean rounded to the dtype: then
 * x - c is exact in fp32 for every x within 2^13 of c's scale. From the
 * fp32 mean itself each x - c would round away the same low bits of c, an
 * error of one sign that d terms add up (32 fp32 ulps of the mean on a
 * 4096-wide row). */
static inline __attribute__((always_inline)) void
ln_stats_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s, float *meanf,
            float *rstdf)
{
    float c = nl_half_to_float(dt, nl_half_from_float(dt, (float)(s / (double)d)));
    double sdev = 0.0, s2 = isfinite(s) ? dev_sums(dt, x, d, c, &sdev) : NAN;
    /* the mean is c + sdev/d; the squares about it sum to s2 - sdev^2/d */
    double m2 = s2 - sdev * sdev / (double)d;
    if (trusted(m2))
        nl_half_ln_stats_from((double)c + sdev / (double)d, m2, d, eps, meanf, rstdf);
    else
        nl_half_ln_stats(dt, x, d, eps, meanf, rstdf);
}

static inline __attribute__((always_inline)) double first_sum(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d)
{
    return cast == NL_CAST_TORCH ? (double)sum_f32(dt, x, d) : dev_sums(dt, x, d, 0.0f, NULL);
}

/* gamma (Gemma: 1 + gamma, in fp32 as GemmaRMSNorm adds it) and beta,
 * widened once for every row of the call, each full pair of the row laid
 * out in the layer's pair order (vh_slot2), so that two plain loads read
 * a pair's weights in its lanes. With `split`, each full 32 of the row is
 * stored as its 16 even elements, then its 16 odd ones instead: the lanes
 * in which AVX-512's one-pass rungs (half_step_avx512.h) hold a
 * 32-element load of bf16. The rest of the row stays in order. */
static inline void widen_weights(nl_dtype dt, nl_cast cast, const uint16_t *gamma,
                                 const uint16_t *beta, size_t d, float *w, float *b, int split)
{
    for (size_t i = 0; i < d; i++) {
        size_t at = i;
        if (split && (i | 31) < d) /* i's 32 is full */
            at = (i & ~(size_t)31) + (i & 1) * 16 + (i & 31) / 2;
        else if (!split && (i | (2 * VW - 1)) < d) /* i's pair is full */
            at = (i & ~(size_t)(2 * VW - 1)) + vh_slot2(dt, i & (2 * VW - 1));
        float g = nl_half_to_float(dt, gamma[i]);
        w[at] = cast == NL_CAST_GEMMA ? 1.0f + g : g;
        if (b)
            b[at] = nl_half_to_float(dt, beta[i]);
    }
}

/* n weights from i on (n > 0; n >= VW: a whole vector), as fp32: with
 * `w16` the caller's 16-bit values, widened here, else fp32 widened once
 * a call by half_run. Gemma's 1 + w must be fp32; Llama's weight and
 * LayerNorm's gamma and beta are exact in the dtype. A row of d = 8192
 * and its fp32 weights (32 KiB, LayerNorm's two 64 KiB) do not fit a
 * 48 KiB L1 together, and out of cache the weights' lines then compete
 * with the stream from memory; 16-bit weights take half the room for a
 * widening per vector (chapter 8, "The limit"). */
static inline __attribute__((always_inline)) vf weight(nl_dtype dt, int w16, const void *w,
                                                       size_t i, size_t n)
{
    if (!w16)
        return load_f32_upto((const float *)w + i, n);
    return load_upto(dt, (const uint16_t *)w + i, n);
}

/* The rows of a call: `plain` for fp16, and for bf16 where the CPU has no
 * bf16 instructions (at every width but AVX-512's, always); `hw` for bf16
 * with them. */
typedef void half_rows_fn(nl_dtype, int, const uint16_t *, const void *, const void *, float,
                          size_t, size_t, uint16_t *);
typedef void half_hw_rows_fn(int, const uint16_t *, const void *, const void *, float, size_t,
                             size_t, uint16_t *);

/* One call of a fast rung: the arguments checked, the weights widened to
 * fp32 once (with `split`, AVX-512's one-pass rungs': their hw rows read
 * them in the even/odd order of a 32-bf16 load, and Llama's need them
 * finite: out32's zero test (half_step_avx512.h) sees a subnormal x*r only
 * through a finite weight, since 0 * inf is NaN, not 0), then the rows,
 * streamed where the output spills L2. Gemma's 1 + w is widened for every
 * rung, since fp32 is where GemmaRMSNorm adds it, and Llama's for the
 * one-pass rungs (pipe, block); LayerNorm's gamma and beta, and Llama's
 * weight in the f32stats rung, are read as the caller's 16-bit values
 * (weight). hw_rows NULL: none at this width. */
static inline int half_run(nl_cast cast, int split, half_rows_fn *plain, half_hw_rows_fn *hw_rows,
                           nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,
                           float eps, size_t rows, size_t d, uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
    int ln = cast == NL_CAST_TORCH, hw = hw_rows && dt == NL_DT_BF16 && vh_hw_here();
    const void *wv = gamma, *bv = beta;
    float *w = NULL;
    if (cast == NL_CAST_GEMMA || (split && cast == NL_CAST_LLAMA)) {
        w = nl_alloc(d * sizeof(float) * (ln ? 2 : 1));
        if (!w) {
            nl_set_error("no memory for %zu widened weights", d);
            return NL_ENOMEM;
        }
        float *b = ln ? w + d : NULL;
        widen_weights(dt, cast, gamma, beta, d, w, b, hw && split);
        if (hw && split && cast == NL_CAST_LLAMA) {
            for (size_t i = 0; hw && i < d; i++)
                hw = isfinite(w[i]);
            if (!hw) /* back to memory order, for the plain rows */
                widen_weights(dt, cast, gamma, beta, d, w, b, 0);
        }
        wv = w, bv = b;
    }
    int nt = nl_output_spills(rows, (d + 1) / 2); /* 16-bit: half the floats */
    if (hw)
        hw_rows(nt, x, wv, bv, eps, rows, d, y);
    else
        plain(dt, nt, x, wv, bv, eps, rows, d, y);
    if (nt)
        vf_streams_done(); /* streamed lines are visible before we return */
    nl_free(w);
    return NL_OK;
}

/* ---- the elementwise step, VW lanes in memory order ---- */

/* The row's scale and shift: RMSNorm 1/rms and 0, LayerNorm 1/std and
 * -mean/std; `quiet`: no output of the row, and nothing rounded on the
 * way, can be a NaN, so the narrowing need not look for one (quiet_of
 * from the row's statistics, and-ed by the rungs with weights_finite). */
typedef struct { vf a, c; int quiet; } affine;

/* Weight i: LayerNorm's gamma and beta are the caller's 16-bit values
 * (half_run widens them for no rung: a d = 8192 row and 64 KiB of fp32
 * weights do not fit L1 together), the RMSNorm orders' weights fp32. */
static inline const void *wat(nl_cast cast, const void *w, size_t i)
{
    return cast == NL_CAST_TORCH ? (const void *)((const uint16_t *)w + i)
                                 : (const void *)((const float *)w + i);
}

/* Inputs xv (fp32) to outputs, narrowed by the exact rounding, with the
 * weights wv and bv of their columns: llama round(x * inv) * w; gemma
 * x * inv * (1 + w); torch ((x * rstd + shift) * g) + b, no FMA. */
static inline __attribute__((always_inline)) vh
step_with(nl_dtype dt, nl_cast cast, vf xv, vf wv, vf bv, affine t)
{
    vf v = vf_mul(xv, t.a);
    if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
        v = vh_round(dt, 0, v);
    if (cast == NL_CAST_TORCH)
        v = vf_add(v, t.c);
    v = vf_mul(v, wv);
    if (cast == NL_CAST_TORCH)
        v = vf_add(v, bv);
    return vh_narrow(dt, v);
}

/* A pair's outputs before their narrowing: step_with's arithmetic, lane
 * for lane, on both vectors (x0, x1 and the weights in pair order). */
static inline __attribute__((always_inline)) void
step2(nl_dtype dt, nl_cast cast, int hw, int nan, vf *x0, vf *x1, vf w0, vf w1, vf b0, vf b1,
      affine t)
{
    vf v0 = vf_mul(*x0, t.a), v1 = vf_mul(*x1, t.a);
    if (cast == NL_CAST_LLAMA)
        vh_round2(dt, hw, nan, &v0, &v1);
    if (cast == NL_CAST_TORCH)
        v0 = vf_add(v0, t.c), v1 = vf_add(v1, t.c);
    v0 = vf_mul(v0, w0), v1 = vf_mul(v1, w1);
    if (cast == NL_CAST_TORCH)
        v0 = vf_add(v0, b0), v1 = vf_add(v1, b1);
    *x0 = v0, *x1 = v1;
}

/* A pair's weights (16-bit: LayerNorm's, and Llama's in the f32stats
 * rung; else fp32 laid out by widen_weights) and, for LayerNorm, betas. */
static inline __attribute__((always_inline)) void
weights2(nl_dtype dt, nl_cast cast, int w16, const void *w, const void *b, size_t i, vf *w0,
         vf *w1, vf *b0, vf *b1)
{
    if (w16)
        vh_widen2(dt, (const uint16_t *)w + i, w0, w1);
    else
        *w0 = vf_load((const float *)w + i), *w1 = vf_load((const float *)w + i + VW);
    *b0 = *b1 = vf_zero();
    if (cast == NL_CAST_TORCH)
        vh_widen2(dt, (const uint16_t *)b + i, b0, b1);
}

/* The pair of outputs at column i; nan: a lane may be a NaN. */
static inline __attribute__((always_inline)) void
out_pair(nl_dtype dt, nl_cast cast, int hw, int nan, int nt, int w16, const uint16_t *x,
         const void *w, const void *b, affine t, size_t i, uint16_t *y)
{
    vf x0, x1, w0, w1, b0, b1;
    vh_widen2(dt, x + i, &x0, &x1);
    weights2(dt, cast, w16, w, b, i, &w0, &w1, &b0, &b1);
    step2(dt, cast, hw, nan, &x0, &x1, w0, w1, b0, b1, t);
    vh_put2(dt, hw, nan, nt, y + i, x0, x1);
}

/* The weights of n columns (n >= VW: a whole vector) as fp32; beta only
 * for LayerNorm. */
static inline __attribute__((always_inline)) void
weights(nl_dtype dt, nl_cast cast, const void *w, const void *b, size_t n, vf *wv, vf *bv)
{
    *wv = weight(dt, cast == NL_CAST_TORCH, w, 0, n);
    *bv = cast == NL_CAST_TORCH ? weight(dt, 1, b, 0, n) : vf_zero();
}

/* n inputs from x (n >= VW: a whole vector) to outputs. */
static inline __attribute__((always_inline)) vh
step(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *w, const void *b, affine t,
     size_t n)
{
    vf wv, bv;
    weights(dt, cast, w, b, n, &wv, &bv);
    return step_with(dt, cast, load_upto(dt, x, n), wv, bv, t);
}

/* The last n elements of a row, a vector at a time, stored masked. */
static inline __attribute__((always_inline)) void
tail(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *w, const void *b, affine t,
     size_t n, uint16_t *y)
{
    for (size_t k = 0; k < n; k += VW) {
        size_t m = n - k < VW ? n - k : VW;
        vh_store_n(y + k, m, step(dt, cast, x + k, wat(cast, w, k), wat(cast, b, k), t, m));
    }
}

/* A whole vector of outputs: streamed past the caches where `nt` and the
 * address is on the store's grid (the rows of a width that is not a
 * multiple of VW start off it every other row). */
static inline __attribute__((always_inline)) void put(int nt, uint16_t *p, vh v)
{
    if (nt && ((uintptr_t)p & (2 * VW - 1)) == 0)
        vh_stream(p, v);
    else
        vh_store(p, v);
}

/* The first sums of a row: of x (LayerNorm) and of x^2. */
typedef struct { double s1, s2; } sums;

/* Whether a row can give no NaN, from its sum of squares s2 and its
 * scale a and shift c, for weights that are all finite (weights_finite):
 * s2 <= 2^100 holds every |x| under 2^50 (an Inf or NaN makes s2 one), so
 * with |a|, |c| <= 2^60 each x * a + c is finite; a finite value times a
 * finite weight plus a finite bias is finite or an Inf, never a NaN (only
 * 0 * Inf, Inf - Inf and a NaN make one). */
static inline int quiet_of(double s2, float a, float c)
{
    return s2 <= 0x1p100 && fabsf(a) <= 0x1p60f && fabsf(c) <= 0x1p60f;
}

/* Whether every weight (and LayerNorm's every bias) is finite: the
 * RMSNorm orders' widened fp32 weights, LayerNorm's 16-bit ones (an
 * exponent of all ones is an Inf or a NaN). */
static inline int finite16(nl_dtype dt, const uint16_t *h, size_t d)
{
    const uint16_t e = dt == NL_DT_BF16 ? 0x7f80 : 0x7c00;
    for (size_t i = 0; i < d; i++)
        if ((h[i] & e) == e)
            return 0;
    return 1;
}

static inline int weights_finite(nl_dtype dt, nl_cast cast, const void *w, const void *b,
                                 size_t d)
{
    if (cast == NL_CAST_TORCH)
        return finite16(dt, w, d) && finite16(dt, b, d);
    const float *f = w;
    for (size_t i = 0; i < d; i++)
        if (!isfinite(f[i]))
            return 0;
    return 1;
}

// @snippet pipe-ln-stats
/* The row's affine from its sums. LayerNorm takes its variance from the
 * sums of x and x^2 in one pass (sum of squares minus sum^2/d, in double)
 * where that loses at most two bits to cancellation (the squares sum to
 * at most 4 times the squared deviations: mean^2 <= 3 var); a row whose
 * mean is far from zero against its spread is summed again from cache by
 * the f32stats rung's two-pass statistics (ln_stats_of). */
static inline __attribute__((always_inline)) affine affine_of(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d,
                                                              float eps, sums s)
{
    if (cast != NL_CAST_TORCH) {
        float inv = rms_inv_of(dt, x, d, eps, s.s2);
        return (affine){vf_set1(inv), vf_zero(), quiet_of(s.s2, inv, 0.0f)};
    }
    float meanf, rstdf;
    double m2 = s.s2 - s.s1 * s.s1 / (double)d;
    if (trusted(m2) && s.s2 <= 4.0 * m2)
        nl_half_ln_stats_from(s.s1 / (double)d, m2, d, eps, &meanf, &rstdf);
    else
        ln_stats_of(dt, x, d, eps, s.s1, &meanf, &rstdf);
    float shift = -rstdf * meanf;
    return (affine){vf_set1(rstdf), vf_set1(shift), quiet_of(s.s2, rstdf, shift)};
}
// @end

/* ---- the f32stats rung: statistics, then the elementwise pass ---- */

/* A line of x 16 KiB past the next row's line under this step, asked for
 * into L2 now: the elementwise pass of one row is arithmetic on a row
 * already in L1, and the first pass of the next would otherwise wait for
 * memory with nothing to do. Asking for the next row itself into L1 (the
 * previous form of this rung) leaves too few lines in flight: measured by
 * `make half-pattern` (chapter 8, "The limit"), the bare pattern reaches
 * the copy only with its reads asked for 4-16 KiB ahead, and Gemma's bf16
 * AVX-512 rung went from 0.64 to 0.67-0.72 of the copy over three runs.
 * One prefetch per 64-byte line (32 values); past the end of x it does
 * nothing, as a prefetch never faults (the address is formed as an
 * integer). */
enum { PF_AHEAD = 16384 };
static inline __attribute__((always_inline)) void prefetch_next(const uint16_t *next, size_t i)
{
    if (next && (i & 31) == 0)
        vf_ask_l2((const void *)((uintptr_t)(next + i) + PF_AHEAD));
}

/* The elementwise pass of RMSNorm: y = round(x * inv) * w (llama) or
 * round(x * inv * w) (gemma, w = 1 + weight); hw as vh_narrow_out. */
static inline __attribute__((always_inline)) void
rms_pass(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const void *w,
         float inv, size_t d, uint16_t *y, const uint16_t *next)
{
    const vf vinv = vf_set1(inv);
    const affine t = {vinv, vf_zero(), 0};
    size_t i = 0;
    for (; i + 2 * VW <= d; i += 2 * VW) {
        prefetch_next(next, i);
        out_pair(dt, cast, hw, 1, nt, cast != NL_CAST_GEMMA, x, w, NULL, t, i, y);
    }
    for (; i + VW <= d; i += VW) {
        prefetch_next(next, i);
        vf xr = vf_mul(load_upto(dt, x + i, VW), vinv);
        if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
            xr = vh_round(dt, hw, xr);
        vf out = vf_mul(xr, weight(dt, cast != NL_CAST_GEMMA, w, i, VW));
        put(nt, y + i, vh_narrow_out(dt, hw, out));
    }
    if (i < d) { /* the tail: masked, narrowed by the exact integer trick */
        size_t n = d - i;
        vf xr = vf_mul(load_upto(dt, x + i, n), vinv);
        if (cast == NL_CAST_LLAMA)
            xr = vh_round(dt, 0, xr);
        vf out = vf_mul(xr, weight(dt, cast != NL_CAST_GEMMA, w, i, n));
        vh_store_n(y + i, n, vh_narrow(dt, out));
    }
}

/* torch's LayerNorm elementwise: ((x * rstd + shift) * g) + b, no FMA. */
static inline __attribute__((always_inline)) void
ln_pass(nl_dtype dt, int hw, int nt, const uint16_t *x, const void *g, const void *b,
        float rstdf, float shiftf, size_t d, uint16_t *y, const uint16_t *next)
{
    const vf shift = vf_set1(shiftf), rstd = vf_set1(rstdf);
    const affine step_of = {rstd, shift, 0};
    size_t i = 0;
    for (; i + 2 * VW <= d; i += 2 * VW) {
        prefetch_next(next, i);
        out_pair(dt, NL_CAST_TORCH, hw, 1, nt, 1, x, g, b, step_of, i, y);
    }
    for (; i + VW <= d; i += VW) {
        prefetch_next(next, i);
        vf t = vf_add(vf_mul(load_upto(dt, x + i, VW), rstd), shift);
        t = vf_add(vf_mul(t, weight(dt, 1, g, i, VW)), weight(dt, 1, b, i, VW));
        put(nt, y + i, vh_narrow_out(dt, hw, t));
    }
    if (i < d) {
        size_t n = d - i;
        vf t = vf_add(vf_mul(load_upto(dt, x + i, n), rstd), shift);
        t = vf_mul(t, weight(dt, 1, g, i, n));
        t = vf_add(t, weight(dt, 1, b, i, n));
        vh_store_n(y + i, n, vh_narrow(dt, t));
    }
}

/* One row from its first fp32 sum `s` (LayerNorm: of x; RMSNorm: of x^2),
 * or from the double statistics of the scalar kernel where fp32 cannot
 * hold them. */
static inline __attribute__((always_inline)) void
f32stats_row(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const void *w,
             const void *b, float eps, size_t d, uint16_t *y, double s, const uint16_t *next)
{
    if (cast == NL_CAST_TORCH) {
        float meanf, rstdf;
        ln_stats_of(dt, x, d, eps, s, &meanf, &rstdf);
        ln_pass(dt, hw, nt, x, w, b, rstdf, -rstdf * meanf, d, y, next);
    } else {
        float inv = rms_inv_of(dt, x, d, eps, s);
        rms_pass(dt, hw, nt, cast, x, w, inv, d, y, next);
    }
}

static inline __attribute__((always_inline)) void
f32stats_rows(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
              float eps, size_t rows, size_t d, uint16_t *y)
{
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        f32stats_row(dt, 0, nt, cast, xr, w, b, eps, d, y + r * d, first_sum(dt, cast, xr, d),
                     r + 1 < rows ? xr + d : NULL);
    }
}

/* ---- the pipe and split rungs: a row's outputs and a row's sums ---- */

/* Where a loop asks for lines ahead of it (`pf`, a byte distance
 * included), one 64-byte line per 32 elements, into L2 (`l2`) or L1. The
 * pipe rung asks into L2 in every order: on the Zen 4 its AVX-512 RMSNorm
 * rows ran at 0.63-0.66 of the copy asking into L1 (bf16) and 0.79-0.99
 * into L2, fp16 0.62-0.73 against 0.85-1.02 (chapter 8); only the split
 * rung's NL_SPLIT_L2 knob asks into L1.  Always inlined, and that is not
 * a matter of speed: a function that only prefetches is, to GCC's
 * analysis, one without side effects (a prefetch changes no memory), so
 * GCC 12 at -O2 removed every call to the earlier, merely `inline` form of
 * this function (chapter 8, "The prefetch that was not there";
 * scripts/tools/prefetch-kept.sh checks the object code). */
static inline __attribute__((always_inline)) void ask_line(uintptr_t pf, size_t i, int l2)
{
    if (!pf)
        return;
    if (l2)
        vf_ask_l2((const void *)(pf + 2 * i));
    else
        __builtin_prefetch((const void *)(pf + 2 * i), 0, 3);
}

/* The address of the next row's lines, as an integer: a prefetch past the
 * end of x never faults, and an integer may point there (a pointer may not). */
static inline uintptr_t at(const uint16_t *p, size_t ahead)
{
    return p ? (uintptr_t)p + ahead : 0;
}

static inline __attribute__((always_inline)) void
out_vec(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
        affine t, size_t i, uint16_t *y)
{
    put(nt, y + i, step(dt, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, VW));
}

/* One row's outputs (`out`) and (`more`) the next row's sums: of x^2 in
 * dev_sums' order, and for LayerNorm of x, in the same blocks; pf, l2:
 * the lines to ask for meanwhile (ask_line); nan: an output may be a
 * NaN (row_plain passes it as a constant). */
static inline __attribute__((always_inline)) sums
row_pass(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
         affine t, size_t d, uint16_t *y, const uint16_t *next, int more, int out,
         uintptr_t pf, int l2, int nan)
{
    const int ln = cast == NL_CAST_TORCH;
    vd q = vd_zero(), s = q;
    size_t i = 0;
    while (i < d) {
        block_sums a = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 2 * VW <= end; i += 2 * VW) {
            if (2 * VW >= 32 || (i & 31) == 0) /* a line per 32 values */
                ask_line(pf, i, l2);
            if (out)
                out_pair(dt, cast, 0, nan, nt, ln, x, w, b, t, i, y);
            if (more) {
                vf v0, v1;
                vh_widen2(dt, next + i, &v0, &v1);
                block_add2(&a, v0, v1, ln);
            }
        }
        for (; i < end; i += VW) {
            if (out && i + VW <= d)
                out_vec(dt, cast, nt, x, w, b, t, i, y);
            else if (out)
                tail(dt, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, d - i, y + i);
            if (more)
                block_add1(&a, load_upto(dt, next + i, end - i), ln);
        }
        block_fold(&q, &s, a, ln);
    }
    return (sums){vd_sum(s), vd_sum(q)};
}

/* row_pass compiled twice where it writes: without the NaN test for a
 * quiet row (t.quiet), with it for the others. */
static inline __attribute__((always_inline)) sums
row_plain(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
          affine t, size_t d, uint16_t *y, const uint16_t *next, int more, int out,
          uintptr_t pf, int l2)
{
    if (out && t.quiet)
        return row_pass(dt, cast, nt, x, w, b, t, d, y, next, more, out, pf, l2, 0);
    return row_pass(dt, cast, nt, x, w, b, t, d, y, next, more, out, pf, l2, 1);
}

/* The pipe rung: row 0's sums alone, then each row's outputs with the
 * next row's sums (LayerNorm), or each row's outputs asking for the next
 * row, then its sums (RMSNorm: measured faster on the Zen 4). */
static inline __attribute__((always_inline)) void
pipe_rows(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
          float eps, size_t rows, size_t d, uint16_t *y)
{
    const int ln = cast == NL_CAST_TORCH, wq = weights_finite(dt, cast, w, b, d);
    affine t = {vf_zero(), vf_zero(), 0};
    sums s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, x, 1, 0, 0, 0);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        int more = r + 1 < rows;
        t = affine_of(dt, cast, xr, d, eps, s);
        t.quiet &= wq;
        if (ln) {
            s = more ? row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, xr + d, 1, 1,
                                 at(xr + d, 2048), 1)
                     : row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, 0, 0);
        } else {
            row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
                      at(more ? xr + d : NULL, 0), 1);
            if (more)
                s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, xr + d, 1, 0, 0, 0);
        }
    }
}

/* How far past the next row's line the split rung's output pass asks, and
 * into which cache (1: L2, 0: L1); knobs for trying others
 * (-DNL_SPLIT_AHEAD=...). On the Zen 4's AVX-512 rung, by `make
 * half-pattern` (three runs each, the builds alternated), 0, 4 and 16
 * KiB into L2 gave 0.87-0.98, 0.83-0.92 and 0.82-0.88 of the copy for
 * Llama, 0.88-1.06, 0.93-1.06 and 0.91-0.98 for Gemma, 0.85-0.89,
 * 0.86-0.99 and 0.81-0.82 for LayerNorm: close, with 0 ahead of 16 KiB in
 * every order by the mean of its three runs, so the line of the next row
 * under this step, as the pipe rung's RMSNorm rows ask. 16 KiB into L1
 * gave 0.58-0.62 in all three orders: no better than no prefetch. */
#ifndef NL_SPLIT_AHEAD
#define NL_SPLIT_AHEAD 0
#endif
#ifndef NL_SPLIT_L2
#define NL_SPLIT_L2 1
#endif

/* The split rung: every row's sums by the pipe rung's loop alone (no
 * outputs), then its outputs by the same loop with no sums: the same sums
 * in the same order and the same steps, so the pipe rung's bits. */
static inline __attribute__((always_inline)) void
split_rows(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
           float eps, size_t rows, size_t d, uint16_t *y)
{
    const int wq = weights_finite(dt, cast, w, b, d);
    affine t = {vf_zero(), vf_zero(), 0};
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        sums s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, xr, 1, 0, 0, 0);
        t = affine_of(dt, cast, xr, d, eps, s);
        t.quiet &= wq;
        row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
                  at(r + 1 < rows ? xr + d : NULL, NL_SPLIT_AHEAD), NL_SPLIT_L2);
    }
}

/* ---- the block rung: four rows a loop, the next four summed in it ---- */

#ifndef NL_HALF_BLOCK_ROWS /* knobs for trying other block heights */
#define NL_HALF_BLOCK_ROWS 4
#endif
#ifndef NL_HALF_BLOCK_PF /* and prefetch distances (bytes; 0: none) */
#define NL_HALF_BLOCK_PF 0
#endif
enum { NB = NL_HALF_BLOCK_ROWS }; /* rows a block */

/* The line PF bytes past the reads of each of the next rows, asked for
 * into L2, where NL_HALF_BLOCK_PF sets a distance. */
static inline __attribute__((always_inline)) void ask_ahead(const uint16_t *xn, size_t nn,
                                                            size_t d, size_t i)
{
    for (size_t j = 0; NL_HALF_BLOCK_PF && j < nn; j++)
        for (size_t k = 0; k < 256; k += 64)
            vf_ask_l2((const void *)((uintptr_t)(xn + j * d + i) + NL_HALF_BLOCK_PF + k));
}

/* The next rows' sums in double lanes, a row each: of x^2 (q) and of x
 * (p, LayerNorm), added to once per block of columns. */
typedef struct { vd q[NB], p[NB]; } row_lanes;

static inline row_lanes row_lanes_zero(void)
{
    row_lanes l;
#pragma GCC unroll 8
    for (size_t j = 0; j < NB; j++)
        l.q[j] = l.p[j] = vd_zero();
    return l;
}

static inline void row_lanes_out(const row_lanes *l, size_t nn, sums *s)
{
#pragma GCC unroll 8
    for (size_t j = 0; j < nn; j++)
        s[j] = (sums){vd_sum(l->p[j]), vd_sum(l->q[j])};
}

/* One loop over the columns in memory order: the nb rows of xb written to
 * yb from their affines t, and the nn rows of xn summed into s (x^2, and
 * for LayerNorm x) in dev_sums' order; nan: an output may be a NaN. */
static inline __attribute__((always_inline)) void
block_plain(nl_dtype dt, nl_cast cast, int nan, int nt, const uint16_t *xb, size_t nb,
            const affine *t, const void *w, const void *b, size_t d, uint16_t *yb,
            const uint16_t *xn, size_t nn, sums *s)
{
    const int ln = cast == NL_CAST_TORCH;
    row_lanes l = row_lanes_zero();
    size_t i = 0;
    while (i < d) {
        block_sums a[NB];
#pragma GCC unroll 8
        for (size_t j = 0; j < NB; j++)
            a[j] = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 2 * VW <= end; i += 2 * VW) {
            if ((i & 127) == 0)
                ask_ahead(xn, nn, d, i);
            vf w0, w1, b0, b1;
            weights2(dt, cast, ln, w, b, i, &w0, &w1, &b0, &b1);
#pragma GCC unroll 8
            for (size_t j = 0; j < nb; j++) {
                vf x0, x1;
                vh_widen2(dt, xb + j * d + i, &x0, &x1);
                step2(dt, cast, 0, nan, &x0, &x1, w0, w1, b0, b1, t[j]);
                vh_put2(dt, 0, nan, nt, yb + j * d + i, x0, x1);
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++) {
                vf v0, v1;
                vh_widen2(dt, xn + j * d + i, &v0, &v1);
                block_add2(&a[j], v0, v1, ln);
            }
        }
        for (; i < end; i += VW) {
#pragma GCC unroll 8
            for (size_t j = 0; j < nb; j++)
                tail(dt, cast, xb + j * d + i, wat(cast, w, i), wat(cast, b, i), t[j],
                     end - i < VW ? end - i : VW, yb + j * d + i);
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++)
                block_add1(&a[j], load_upto(dt, xn + j * d + i, end - i), ln);
        }
#pragma GCC unroll 8
        for (size_t j = 0; j < nn; j++)
            block_fold(&l.q[j], &l.p[j], a[j], ln);
    }
    row_lanes_out(&l, nn, s);
}

/* One block's loop, as block_plain (or AVX-512's block_hw) compiled for
 * one cast order: a full block beside a full next one with the counts
 * constant, the edges of a call with them as they come. */
typedef void block_fn(nl_dtype dt, int nt, const uint16_t *xb, size_t nb, const affine *t,
                      const void *w, const void *b, size_t d, uint16_t *yb, const uint16_t *xn,
                      size_t nn, sums *s);

/* The rows of a call, a block at a time: each block's affines from the
 * sums the previous block's loop took, then its loop. */
static inline void blocks_of(block_fn *one, nl_dtype dt, nl_cast cast, int nt, const uint16_t *x,
                      const void *w, const void *b, float eps, size_t rows, size_t d, uint16_t *y)
{
    const int wq = weights_finite(dt, cast, w, b, d);
    affine t[NB] = {{vf_zero(), vf_zero(), 0}};
    sums s[NB];
    size_t nb = rows < NB ? rows : NB;
    one(dt, nt, NULL, 0, t, w, b, d, NULL, x, nb, s); /* the first block's sums alone */
    for (size_t r = 0; r < rows; r += nb) {
        nb = rows - r < NB ? rows - r : NB;
#pragma GCC unroll 8
        for (size_t j = 0; j < nb; j++) {
            t[j] = affine_of(dt, cast, x + (r + j) * d, d, eps, s[j]);
            t[j].quiet &= wq;
        }
        size_t after = rows - r - nb;
        one(dt, nt, x + r * d, nb, t, w, b, d, y + r * d, x + (r + nb) * d,
            after < NB ? after : NB, s);
    }
}

/* block_plain compiled for one order, its counts constant in a full
 * block: block_<tag> (block_fn), and the rows of a call by it. */
#define BLOCK_PLAIN(cast, tag)                                                              \
    static void block_##tag(nl_dtype dt, int nt, const uint16_t *xb, size_t nb,            \
                            const affine *t, const void *w, const void *b, size_t d,       \
                            uint16_t *yb, const uint16_t *xn, size_t nn, sums *s)          \
    {                                                                                       \
        int quiet = nb == NB && nn == NB && dt == NL_DT_BF16;                               \
        for (size_t j = 0; quiet && j < NB; j++)                                            \
            quiet = t[j].quiet;                                                             \
        if (quiet)                                                                          \
            block_plain(NL_DT_BF16, cast, 0, nt, xb, NB, t, w, b, d, yb, xn, NB, s);        \
        else if (nb == NB && nn == NB && dt == NL_DT_BF16)                                  \
            block_plain(NL_DT_BF16, cast, 1, nt, xb, NB, t, w, b, d, yb, xn, NB, s);        \
        else if (nb == NB && nn == NB)                                                      \
            block_plain(NL_DT_F16, cast, 1, nt, xb, NB, t, w, b, d, yb, xn, NB, s);         \
        else if (dt == NL_DT_BF16)                                                          \
            block_plain(NL_DT_BF16, cast, 1, nt, xb, nb, t, w, b, d, yb, xn, nn, s);        \
        else                                                                                \
            block_plain(NL_DT_F16, cast, 1, nt, xb, nb, t, w, b, d, yb, xn, nn, s);         \
    }                                                                                       \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *w,           \
                           const void *b, float eps, size_t rows, size_t d, uint16_t *y)   \
    {                                                                                       \
        blocks_of(block_##tag, dt, cast, nt, x, w, b, eps, rows, d, y);                     \
    }

/* ---- kernels ---- */

/* rows_<tag> (half_rows_fn) of a rung whose rows are <rung>_rows: each
 * dtype's loops compiled apart. */
#define PLAIN_ROWS(rung, cast, tag)                                                         \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *w,           \
                           const void *b, float eps, size_t rows, size_t d, uint16_t *y)    \
    {                                                                                       \
        if (dt == NL_DT_BF16)                                                               \
            rung##_rows(NL_DT_BF16, cast, nt, x, w, b, eps, rows, d, y);                    \
        else                                                                                \
            rung##_rows(NL_DT_F16, cast, nt, x, w, b, eps, rows, d, y);                     \
    }

/* nl_<name>, with nl_half_fn's signature, from rows_<tag> and, where the
 * width has them, rows_<tag>_hw (HALF_HW_ROWS, the layer's). */
#ifndef HALF_HW_ROWS
#define HALF_HW_ROWS(tag) NULL /* no rows of the width's own */
#endif
#define HALF_KERNEL(name, cast, tag, split)                                                 \
    int name(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,           \
             float eps, size_t rows, size_t d, uint16_t *y)                                 \
    {                                                                                       \
        return half_run(cast, split, rows_##tag, HALF_HW_ROWS(tag), dt, x, gamma, beta,     \
                        eps, rows, d, y);                                                   \
    }

/* A rung's three cast orders: ROWS(cast, tag) defines rows_<rung>_<order>
 * (and where the width has them rows_<rung>_<order>_hw); the kernels are
 * nl_rmsnorm_llama_<rung>_W and so on, W the instance's width. */
#define HALF_RUNG(ROWS, rung, split)                                                        \
    ROWS(NL_CAST_LLAMA, rung##_llama)                                                       \
    ROWS(NL_CAST_GEMMA, rung##_gemma)                                                       \
    ROWS(NL_CAST_TORCH, rung##_torch)                                                       \
    HALF_KERNEL(NL_VNAME(rmsnorm_llama_##rung##_, ), NL_CAST_LLAMA, rung##_llama, split)    \
    HALF_KERNEL(NL_VNAME(rmsnorm_gemma_##rung##_, ), NL_CAST_GEMMA, rung##_gemma, split)    \
    HALF_KERNEL(NL_VNAME(layernorm_torch_##rung##_, ), NL_CAST_TORCH, rung##_torch, split)

/* The four rungs' kernels at a width with no loops of its own (AVX2,
 * NEON): the 12 functions nl_<order>_<rung>_W. */
#define F32STATS_ROWS(cast, tag) PLAIN_ROWS(f32stats, cast, tag)
#define PIPE_ROWS(cast, tag) PLAIN_ROWS(pipe, cast, tag)
#define SPLIT_ROWS(cast, tag) PLAIN_ROWS(split, cast, tag)
#define HALF_PLAIN_RUNGS()                                                                  \
    HALF_RUNG(F32STATS_ROWS, f32stats, 0)                                                   \
    HALF_RUNG(PIPE_ROWS, pipe, 1)                                                           \
    HALF_RUNG(SPLIT_ROWS, split, 1)                                                         \
    HALF_RUNG(BLOCK_PLAIN, block, 1)

#endif
