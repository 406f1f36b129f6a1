/* precision.h — what the bf16/fp16 kernels of chapter 8 share inside the
 * library: the rounding points of each cast order, the fp32 row
 * statistics every order starts from, and the kernels the registry lists. */
#ifndef NL_PRECISION_H
#define NL_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include "normlab.h"

/* The two RMSNorm rounding orders for one element (exercise 10): `xr` is
 * x * r already in fp32, `w` the weight in dtype `dt`. */
uint16_t nl_llama_point(nl_dtype dt, float xr, uint16_t w);
uint16_t nl_gemma_point(nl_dtype dt, float xr, uint16_t w);

/* fp32 statistics of one row of 16-bit values, as every cast order has
 * them: sums in double (so any summation order gives the same float, but
 * for a double rounding in ~1e-9 of rows), then rounded to float, then
 * the inverse root in fp32: 1.0f / sqrtf(stat + eps). */
float nl_half_rms_inv(nl_dtype dt, const uint16_t *x, size_t d, float eps);
void  nl_half_ln_stats(nl_dtype dt, const uint16_t *x, size_t d, float eps,
                       float *mean, float *rstd);
/* The same from a row's double sums, for kernels that take the sums
 * their own way: sum of x^2 (RMSNorm); sum of x and of (x - mean)^2 with
 * the mean in double (LayerNorm). */
float nl_half_rms_inv_from(double sumsq, size_t d, float eps);
void  nl_half_ln_stats_from(double mean, double sumdev2, size_t d, float eps,
                            float *meanf, float *rstd);

/* NL_OK, or NL_EARG naming what is wrong with a call of a 16-bit kernel. */
int nl_half_check_args(nl_dtype dt, const uint16_t *x, const void *gamma,
                       const void *beta, size_t rows, size_t d,
                       const uint16_t *y, nl_norm norm);

/* The last step of RMSNorm for one element under any cast order: `xr` is
 * x * r in fp32, gamma[i] the weight (uint16_t in dt, float for T5_F32W).
 * The scalar kernels and the vector kernels' tails share it. */
static inline uint16_t nl_rms_point(nl_dtype dt, nl_cast cast, float xr, const void *gamma,
                                    size_t i)
{
    if (cast == NL_CAST_T5_F32W)
        return nl_half_from_float(dt, ((const float *)gamma)[i] * xr);
    if (cast == NL_CAST_GEMMA)
        return nl_gemma_point(dt, xr, ((const uint16_t *)gamma)[i]);
    return nl_llama_point(dt, xr, ((const uint16_t *)gamma)[i]); /* llama, t5 */
}

/* torch's LayerNorm for one element: (x * rstd + shift) * g + b in fp32,
 * shift = -rstd * mean, four roundings in this order (no FMA), then one
 * to the dtype. */
static inline uint16_t nl_torch_point(nl_dtype dt, float x, float rstd, float shift,
                                      uint16_t g, uint16_t b)
{
    float t = x * rstd + shift;
    t = t * nl_half_to_float(dt, g);
    return nl_half_from_float(dt, t + nl_half_to_float(dt, b));
}

/* The exported kernel of a cast order in one implementation file: checks
 * the call, then runs ROW(dt, cast, x, gamma, beta, eps, d, y) on each
 * row, with the dtype a constant in each branch so that every inner loop
 * is compiled for one dtype. */
#define NL_HALF_ROW_KERNEL(name, cast, ROW) NL_HALF_ROW_KERNEL_ATTR(, nl_##name, cast, ROW)
/* The same with function attributes (a target("...") the row needs), the
 * function's full name fn. */
#define NL_HALF_ROW_KERNEL_ATTR(attr, fn, cast, ROW)                                      \
    attr int fn(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,      \
                float eps, size_t rows, size_t d, uint16_t *y)                            \
    {                                                                                     \
        int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));  \
        if (rc)                                                                           \
            return rc;                                                                    \
        for (size_t r = 0; r < rows; r++) {                                               \
            if (dt == NL_DT_BF16)                                                         \
                ROW(NL_DT_BF16, cast, x + r * d, gamma, beta, eps, d, y + r * d);         \
            else                                                                          \
                ROW(NL_DT_F16, cast, x + r * d, gamma, beta, eps, d, y + r * d);          \
        }                                                                                 \
        return NL_OK;                                                                     \
    }

#define NL_DECLARE_HALF_KERNEL(name)                                          \
    int nl_##name(nl_dtype dt, const uint16_t *x, const void *gamma,          \
                  const void *beta, float eps, size_t rows, size_t d,         \
                  uint16_t *y)
#define NL_HALF_IMPL(name, fn, norm, cast, dtype, req, ulp, summary) \
    NL_DECLARE_HALF_KERNEL(fn);
#include "precision/registry.def"
#undef NL_HALF_IMPL

#endif
