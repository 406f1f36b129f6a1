/* fused_bench.c — timing the fused kernels with chapter 6's machinery.
 *
 * nl_bench_time times a forward kernel against copies of the same bytes
 * (rows x d read, as many written: 2 floats per element).  A fused kernel
 * has a residual too, so it goes through a trampoline with the forward
 * signature, and its figures are restated for the bytes it must move:
 * 4 floats per element fused, 5 unfused (nl_fused_values).  A kernel that
 * moves its bytes as fast as the copy moves its own scores 1.0 of copy.
 *
 * Each timed call adds x into the residual once more; the residual's
 * values grow by at most one unit per call, far from any overflow. */
#include <math.h>
#include <string.h>

#include "block/block.h"
#include "block/fused_bench.h"

size_t nl_fused_values(const nl_fused_impl *impl)
{
    return impl->fused ? NL_FUSED_VALUES : NL_UNFUSED_VALUES;
}

/* The bench runs one measurement at a time, from one thread. */
static struct {
    const nl_fused_impl *impl;
    float *residual;
} current;

static int trampoline(const float *x, const float *gamma, const float *beta, float eps,
                      size_t rows, size_t d, float *y)
{
    return current.impl->fn(x, current.residual, gamma, beta, eps, rows, d, y);
}

// @snippet fused-bench-bytes
/* copy time of 2 floats/element, kernel moving v: fraction for its bytes
 * = (copy time x v / 2) / kernel time. */
static void restate_for_bytes(nl_bench_row *row, size_t values)
{
    double k = (double)values / 2.0;
    row->gbps *= k;
    row->frac_copy *= k;
    row->frac_p10 *= k;
    row->frac_p90 *= k;
}
// @end

int nl_fused_bench_time(const nl_fused_impl *impl, const nl_bench_data *b, float *residual,
                        size_t samples, nl_bench_row *row)
{
    current.impl = impl;
    current.residual = residual;
    int rc = nl_bench_time(trampoline, nl_fused_base_norm(impl->norm), b, samples, row);
    current.impl = NULL;
    if (rc == 0)
        restate_for_bytes(row, nl_fused_values(impl));
    return rc;
}

double nl_fused_bench_validate(const nl_fused_impl *impl, const nl_bench_data *b,
                               float *residual, int *rc)
{
    /* Against the unfused pair, bit for bit: both from the same residual. */
    size_t n = b->rows * b->d;
    float *r2 = nl_alloc(n * sizeof(float)), *y2 = nl_alloc(n * sizeof(float));
    if (!r2 || !y2) {
        nl_free(r2);
        nl_free(y2);
        *rc = NL_ENOMEM;
        return NAN;
    }
    memcpy(r2, residual, n * sizeof(float));
    *rc = impl->fn(b->x, residual, b->gamma, b->beta, b->eps, b->rows, b->d, b->y);
    int rc2 = nl_fused_unfused(impl, b->x, r2, b->gamma, b->beta, b->eps, b->rows, b->d, y2);
    if (*rc == 0)
        *rc = rc2;
    double worst = 0.0;
    for (size_t i = 0; i < n && *rc == 0; i++) {
        double e = fabs((double)b->y[i] - y2[i]) + fabs((double)residual[i] - r2[i]);
        if (!(e <= worst)) /* NaN too */
            worst = e;
    }
    nl_free(r2);
    nl_free(y2);
    return worst;
}
