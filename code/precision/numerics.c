/* numerics.c — the measurements chapter 8 quotes: each cast order against
 * its double reference, in ulps of the dtype, on unit-scale data and on
 * data with outlier channels; where Llama's and Gemma's orders disagree;
 * and fp16 statistics without the upcast. `normlab precision` prints them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precision/precision.h"

static const double edges[NL_ULP_BUCKETS] = {0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, INFINITY};

double nl_ulp_bucket_edge(size_t i)
{
    return i < NL_ULP_BUCKETS ? edges[i] : INFINITY;
}

static void fill(float *v, size_t n, double mean, double std, nl_pyrandom *r)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)nl_pyrandom_gauss(r, mean, std);
}

/* Writes `n` values in dtype `dt` (float or 16-bit bits) from floats. */
static void store(nl_dtype dt, void *to, const float *from, size_t n)
{
    if (dt == NL_DT_F32) {
        memcpy(to, from, n * sizeof *from);
        return;
    }
    for (size_t i = 0; i < n; i++)
        ((uint16_t *)to)[i] = nl_half_from_float(dt, from[i]);
}

// @snippet outlier-channels
static void add_outliers(float *x, size_t rows, size_t d)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 3; c < d; c += 97)
            x[r * d + c] *= (float)(100 + (c * 37 % 900));
}
// @end

int nl_half_measure(const nl_half_impl *impl, size_t rows, size_t d, int outliers,
                    uint64_t seed, float eps, nl_ulp_stats *out)
{
    memset(out, 0, sizeof *out);
    nl_dtype dt = impl->dtype, wdt = nl_cast_weight_dtype(impl->cast, dt);
    size_t n = rows * d;
    float *xf = malloc(n * sizeof *xf), *gf = malloc(d * sizeof *gf), *bf = malloc(d * sizeof *bf);
    uint16_t *x = malloc(n * 2), *y = malloc(n * 2);
    void *g = malloc(d * 4), *b = malloc(d * 4);
    double *ref = malloc(n * sizeof *ref);
    int rc = NL_ENOMEM;
    if (!xf || !gf || !bf || !x || !y || !g || !b || !ref)
        goto done;
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    fill(xf, n, 0.0, 1.0, &r);
    if (outliers)
        add_outliers(xf, rows, d);
    fill(gf, d, 0.0, 0.1, &r);
    fill(bf, d, 0.0, 0.1, &r);
    if (impl->cast != NL_CAST_GEMMA)
        for (size_t i = 0; i < d; i++)
            gf[i] += 1.0f;
    store(dt, x, xf, n);
    store(wdt, g, gf, d);
    store(wdt, b, bf, d);
    if ((rc = impl->fn(dt, x, g, b, eps, rows, d, y)) != NL_OK)
        goto done;
    nl_half_reference(impl->cast, dt, x, g, b, eps, rows, d, ref);
    double sum = 0.0;
    size_t rounded = 0;
    for (size_t row = 0; row < rows; row++) {
        double worst = 0.0;
        for (size_t i = row * d; i < (row + 1) * d; i++) {
            double u = nl_half_ulp_error(dt, y[i], ref[i]);
            sum += u;
            rounded += u <= 0.5;
            worst = u > worst ? u : worst;
        }
        size_t k = 0;
        while (worst > edges[k])
            k++;
        out->row_hist[k]++;
        out->max_ulp = worst > out->max_ulp ? worst : out->max_ulp;
    }
    out->n = n;
    out->mean_ulp = sum / (double)n;
    out->frac_rounded = (double)rounded / (double)n;
done:
    free(xf), free(gf), free(bf), free(x), free(y), free(g), free(b), free(ref);
    return rc;
}

int nl_half_llama_gemma_differ(nl_dtype dt, size_t rows, size_t d, double wstd,
                               uint64_t seed, size_t *differ, size_t *total)
{
    size_t n = rows * d;
    float *xf = malloc(n * sizeof *xf), *wf = malloc(d * sizeof *wf);
    uint16_t *x = malloc(n * 2), *wl = malloc(d * 2), *wg = malloc(d * 2);
    uint16_t *yl = malloc(n * 2), *yg = malloc(n * 2);
    int rc = NL_ENOMEM;
    if (xf && wf && x && wl && wg && yl && yg) {
        nl_pyrandom r;
        nl_pyrandom_seed(&r, seed);
        fill(xf, n, 0.0, 1.0, &r);
        fill(wf, d, 0.0, wstd, &r);
        store(dt, x, xf, n);
        store(dt, wg, wf, d);
        for (size_t i = 0; i < d; i++)
            wl[i] = nl_half_from_float(dt, 1.0f + wf[i]);
        rc = nl_rmsnorm_llama_scalar(dt, x, wl, NULL, 1e-6f, rows, d, yl);
        if (rc == NL_OK)
            rc = nl_rmsnorm_gemma_scalar(dt, x, wg, NULL, 1e-6f, rows, d, yg);
        *differ = 0;
        for (size_t i = 0; rc == NL_OK && i < n; i++)
            *differ += yl[i] != yg[i];
        *total = n;
    }
    free(xf), free(wf), free(x), free(wl), free(wg), free(yl), free(yg);
    return rc;
}

// @snippet fp16-no-upcast
float nl_fp16_sumsq_no_upcast(const uint16_t *x, size_t d)
{
    uint16_t sum = 0;
    for (size_t i = 0; i < d; i++) {
        float v = nl_fp16_to_float(x[i]);
        uint16_t sq = nl_fp16_from_float(v * v); /* x^2 rounded to fp16 */
        sum = nl_fp16_from_float(nl_fp16_to_float(sum) + nl_fp16_to_float(sq));
    }
    return nl_fp16_to_float(sum);
}
// @end
