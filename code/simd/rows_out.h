/* rows_out.h — the output side of the forward rungs of rmsnorm_rungs.h and
 * layernorm_rungs.h, over the vector layer (vec.h): a vector of outputs
 * from a row's scale, a row written (streamed or not, the next row asked
 * for or not), and a vector of columns of a block of rows streamed out.
 * `center` is a constant at every call: 1 for LayerNorm, 0 for RMSNorm,
 * whose loops then hold nothing of the other norm. */
#ifndef NL_ROWS_OUT_H
#define NL_ROWS_OUT_H

#include "simd/simd.h"

/* A row's scale: its mean, the correction of the mean (corrected
 * two-pass; 0 otherwise) and 1 / std; RMSNorm uses inv alone. */
typedef struct { vf mf, corr, inv; } row_scale;

/* One vector of outputs from inputs xv: LayerNorm (center)
 * ((x - mean) - corr) * inv * gamma + beta, the last two by one FMA;
 * RMSNorm x * inv * gamma. */
static inline vf out_with(int center, vf xv, vf g, vf b, row_scale st)
{
    if (!center)
        return vf_mul(vf_mul(xv, st.inv), g);
    vf t = vf_sub(vf_sub(xv, st.mf), st.corr);
    return vf_fma(vf_mul(t, st.inv), g, b);
}

static inline vf out_full(int center, const float *x, const float *gamma, const float *beta,
                          row_scale st)
{
    return out_with(center, vf_load(x), vf_load(gamma), center ? vf_load(beta) : vf_zero(), st);
}

static inline vf out_first(int center, vmask k, const float *x, const float *gamma,
                           const float *beta, row_scale st)
{
    return out_with(center, vf_load_first(k, x), vf_load_first(k, gamma),
                    center ? vf_load_first(k, beta) : vf_zero(), st);
}

// @snippet ln-avx512-stream
/* One row of outputs: with `stream`, its head up to a 64-byte line stored
 * as usual, its whole lines streamed past the caches, the rest stored as
 * usual; with `prefetch`, a line of the next row xn asked for into L2 per
 * line written. */
static inline __attribute__((always_inline)) void
row_out(int center, const float *x, const float *gamma, const float *beta, row_scale st,
        size_t d, float *y, int stream, int prefetch, const float *xn)
{
    size_t i = 0;
    if (stream) {
        size_t head = nl_head_to_align64(y, d);
        for (; i < head; i += VW) {
            vmask k = head - i >= VW ? vm_all() : vm_first(head - i);
            vf_store_first(k, y + i, out_first(center, k, x + i, gamma + i, beta + i, st));
        }
        for (i = head; i + NL_LINE_FLOATS <= d; i += NL_LINE_FLOATS) {
            if (prefetch)
                vf_ask_l2(xn + i);
            #pragma GCC unroll 4
            for (size_t o = 0; o < NL_LINE_FLOATS; o += VW)
                vf_stream(y + i + o, out_full(center, x + i + o, gamma + i + o, beta + i + o, st));
        }
    } else {
        for (; i + NL_LINE_FLOATS <= d; i += NL_LINE_FLOATS) {
            if (prefetch)
                vf_ask_l2(xn + i);
            #pragma GCC unroll 4
            for (size_t o = 0; o < NL_LINE_FLOATS; o += VW)
                vf_store(y + i + o, out_full(center, x + i + o, gamma + i + o, beta + i + o, st));
        }
    }
    for (; i + VW <= d; i += VW) /* less than a line left */
        vf_store(y + i, out_full(center, x + i, gamma + i, beta + i, st));
    if (i < d) {
        vmask k = vm_first(d - i);
        vf_store_first(k, y + i, out_first(center, k, x + i, gamma + i, beta + i, st));
    }
}
// @end

/* Rows xb .. xb + (NROWS - 1) d out, from their scales st, one vector of
 * columns from c on, streamed (the block rungs: gamma and beta loaded once
 * for the rows). */
static inline __attribute__((always_inline)) void
block_out(int center, int nrows, const float *xb, const float *gamma, const float *beta,
          const row_scale *st, size_t c, size_t d, float *yb)
{
    const vf g = vf_load(gamma + c), b = center ? vf_load(beta + c) : vf_zero();
    #pragma GCC unroll 8
    for (int j = 0; j < nrows; j++)
        vf_stream(yb + (size_t)j * d + c,
                  out_with(center, vf_load(xb + (size_t)j * d + c), g, b, st[j]));
}

#endif
