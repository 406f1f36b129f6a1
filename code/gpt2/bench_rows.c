/* bench_rows.c — chapter 12's bench rows (bench_rows.h): the problems,
 * the double reference each is checked against, the timing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpt2/bench_rows.h"
#include "gpt2/kernels.h"

/* ----------------------------------------------------------------- runs */

static int library_rung(const char *name, const nl_gpt2_bench *p, const float *gamma)
{
    const nl_impl *im = nl_find_impl(name);
    if (!im)
        return NL_EARG;
    return im->fn(p->b->x, gamma, p->b->beta, p->b->eps, p->T, p->C, p->y);
}

static int ln_best(const nl_gpt2_bench *p)
{
    return library_rung("layernorm_best", p, p->b->gamma);
}
static int rms_best(const nl_gpt2_bench *p)
{
    return library_rung("rmsnorm_best", p, p->ones);
}

static int ln_c(const nl_gpt2_bench *p)
{
    nl_gpt2_layernorm_c(p->b->x, p->b->gamma, p->b->beta, p->b->eps, p->T, p->C, p->y);
    return NL_OK;
}

static int rms_c(const nl_gpt2_bench *p)
{
    nl_gpt2_rmsnorm_c(p->b->x, p->b->eps, p->T, p->C, p->y);
    return NL_OK;
}

static int crms_c(const nl_gpt2_bench *p)
{
    nl_gpt2_crmsnorm_c(p->b->x, p->b->eps, p->T, p->width, p->C, p->y);
    return NL_OK;
}

static int matmul(const nl_gpt2_bench *p)
{
    nl_gpt2_matmul(p->b->x, p->wt, p->bias, p->T, p->C, p->n, p->y);
    return NL_OK;
}

// @snippet gpt2-norm-then-matmul
/* What the converted model runs without FlashNorm: a pass that writes the
 * normalised rows, then the matmul reads them back. */
static int norm_matmul(const nl_gpt2_bench *p)
{
    nl_gpt2_rmsnorm_c(p->b->x, p->b->eps, p->T, p->C, p->xn);
    nl_gpt2_matmul(p->xn, p->wt, p->bias, p->T, p->C, p->n, p->y);
    return NL_OK;
}
// @end

static int flashnorm(const nl_gpt2_bench *p)
{
    nl_gpt2_matmul_flashnorm(p->b->x, p->wt, p->bias, p->b->eps, p->T, p->C, p->n, p->rstd,
                             p->y);
    return NL_OK;
}

static const nl_gpt2_bench_impl impls[] = {
    {"gpt2_layernorm_best", NL_LAYERNORM, 0, NL_GPT2_REF_LAYERNORM, ln_best,
     "the original's LayerNorm: the library's layernorm_best, gamma and beta"},
    {"gpt2_rmsnorm_best", NL_RMSNORM, 0, NL_GPT2_REF_RMSNORM, rms_best,
     "the converted RMSNorm: the library's rmsnorm_best with gamma = 1"},
    {"gpt2_layernorm_c", NL_LAYERNORM, 0, NL_GPT2_REF_LAYERNORM, ln_c,
     "the original's LayerNorm in plain C: two passes, gamma and beta"},
    {"gpt2_rmsnorm_c", NL_RMSNORM, 0, NL_GPT2_REF_RMSNORM, rms_c,
     "the converted RMSNorm in plain C: no weight"},
    {"gpt2_crmsnorm_c", NL_RMSNORM, 0, NL_GPT2_REF_CRMSNORM, crms_c,
     "Pre-CRMSNorm in plain C: C - 1 values and the dropped one"},
    {"gpt2_qkv_matmul", NL_RMSNORM, 3, NL_GPT2_REF_MATMUL, matmul,
     "qkv (C -> 3C): the blocked matmul alone, no norm"},
    {"gpt2_qkv_rmsnorm_matmul", NL_RMSNORM, 3, NL_GPT2_REF_NORM_MATMUL, norm_matmul,
     "qkv: RMSNorm (a pass of its own), then the matmul"},
    {"gpt2_qkv_flashnorm", NL_RMSNORM, 3, NL_GPT2_REF_NORM_MATMUL, flashnorm,
     "qkv: FlashNorm, the matmul then each row's 1/rms"},
    {"gpt2_fc_matmul", NL_RMSNORM, 4, NL_GPT2_REF_MATMUL, matmul,
     "fc (C -> 4C): the blocked matmul alone, no norm"},
    {"gpt2_fc_rmsnorm_matmul", NL_RMSNORM, 4, NL_GPT2_REF_NORM_MATMUL, norm_matmul,
     "fc: RMSNorm (a pass of its own), then the matmul"},
    {"gpt2_fc_flashnorm", NL_RMSNORM, 4, NL_GPT2_REF_NORM_MATMUL, flashnorm,
     "fc: FlashNorm, the matmul then each row's 1/rms"},
};

const nl_gpt2_bench_impl *nl_gpt2_bench_impls(size_t *n)
{
    *n = sizeof impls / sizeof *impls;
    return impls;
}

const nl_gpt2_bench_impl *nl_find_gpt2_bench(const char *name)
{
    for (size_t i = 0; i < sizeof impls / sizeof *impls; i++)
        if (!strcmp(impls[i].name, name))
            return &impls[i];
    return NULL;
}

/* ------------------------------------------------------------- problems */

/* splitmix64: the same weights on every machine and thread count */
static double uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

int nl_gpt2_bench_new(nl_gpt2_bench *p, const nl_gpt2_bench_impl *im, const nl_bench_data *b)
{
    *p = (nl_gpt2_bench){.im = im, .b = b, .T = b->rows, .C = b->d, .width = b->d};
    if (im->ref == NL_GPT2_REF_CRMSNORM) {
        if (b->d < 2) {
            nl_set_error("%s: Pre-CRMSNorm keeps d - 1 values: give d >= 2", im->name);
            return NL_EARG;
        }
        p->width = b->d - 1;
    }
    if (!im->widen) {
        p->y = b->y;
        p->ones = nl_alloc(b->d * sizeof(float));
        if (!p->ones)
            return NL_ENOMEM;
        for (size_t i = 0; i < b->d; i++)
            p->ones[i] = 1.0f;
        return NL_OK;
    }
    p->n = im->widen * b->d;
    size_t most = SIZE_MAX / sizeof(float);
    if (p->n / im->widen != b->d || p->n > most / b->d || p->n > most / b->rows) {
        nl_set_error("%s: a %zu x %zu weight overflows", im->name, b->d, p->n);
        return NL_EARG;
    }
    p->wt = nl_alloc(b->d * p->n * sizeof(float));
    p->bias = nl_alloc(p->n * sizeof(float));
    p->xn = nl_alloc(b->rows * b->d * sizeof(float));
    p->rstd = nl_alloc(b->rows * sizeof(float));
    p->y = nl_alloc(b->rows * p->n * sizeof(float));
    if (!p->wt || !p->bias || !p->xn || !p->rstd || !p->y) {
        nl_gpt2_bench_free(p);
        return NL_ENOMEM;
    }
    /* GPT-2's initialisation scale, 0.02, would do as well: any weights
     * serve, the check is against the same weights in double */
    uint64_t s = 0x67707432ULL ^ (uint64_t)im->widen;
    double scale = 1.0 / sqrt((double)b->d);
    for (size_t i = 0; i < b->d * p->n; i++)
        p->wt[i] = (float)(scale * uniform(&s));
    for (size_t o = 0; o < p->n; o++)
        p->bias[o] = (float)(0.1 * uniform(&s));
    return NL_OK;
}

void nl_gpt2_bench_free(nl_gpt2_bench *p)
{
    nl_free(p->wt), nl_free(p->bias), nl_free(p->xn), nl_free(p->rstd), nl_free(p->ones);
    if (p->im && p->im->widen)
        nl_free(p->y);
    *p = (nl_gpt2_bench){0};
}

/* ------------------------------------------------------------ the check */

/* Row t's exact output in double into ref (width or n values). */
static void reference_row(const nl_gpt2_bench *p, size_t t, double *ref)
{
    const nl_bench_data *b = p->b;
    size_t C = p->C, w = p->width;
    const float *x = p->im->ref == NL_GPT2_REF_CRMSNORM ? b->x + t * w : b->x + t * C;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < w; i++)
        sum += x[i], sq += (double)x[i] * x[i];
    double rstd = 1;
    switch (p->im->ref) {
    case NL_GPT2_REF_LAYERNORM: {
        double mean = sum / (double)C, var = 0;
        for (size_t i = 0; i < C; i++)
            var += ((double)x[i] - mean) * ((double)x[i] - mean);
        rstd = 1 / sqrt(var / (double)C + (double)b->eps);
        for (size_t i = 0; i < C; i++)
            ref[i] = ((double)x[i] - mean) * rstd * b->gamma[i] + b->beta[i];
        return;
    }
    case NL_GPT2_REF_CRMSNORM:
        sq += sum * sum;
        /* fall through */
    case NL_GPT2_REF_RMSNORM:
        rstd = 1 / sqrt(sq / (double)C + (double)b->eps);
        for (size_t i = 0; i < w; i++)
            ref[i] = x[i] * rstd;
        return;
    case NL_GPT2_REF_NORM_MATMUL:
        rstd = 1 / sqrt(sq / (double)C + (double)b->eps);
        /* fall through */
    case NL_GPT2_REF_MATMUL:
        for (size_t o = 0; o < p->n; o++) {
            double acc = 0;
            for (size_t i = 0; i < C; i++)
                acc += (double)x[i] * p->wt[i * p->n + o];
            ref[o] = rstd * acc + p->bias[o];
        }
        return;
    }
}

double nl_gpt2_bench_validate(const nl_gpt2_bench *p, int *rc)
{
    size_t out = p->im->widen ? p->n : p->width, checked = p->T < 64 ? p->T : 64;
    double *ref = nl_alloc(out * sizeof *ref);
    if (!ref) {
        *rc = NL_ENOMEM;
        return NAN;
    }
    double worst = 0, scale = 0;
    if ((*rc = p->im->run(p)) == NL_OK)
        for (size_t k = 0; k < checked; k++) {
            size_t t = checked == 1 ? 0 : k * (p->T - 1) / (checked - 1);
            reference_row(p, t, ref);
            for (size_t o = 0; o < out; o++) {
                double y = p->y[t * out + o], e = fabs(y - ref[o]);
                if (isnan(y))
                    worst = NAN;
                if (e > worst)
                    worst = e;
                if (fabs(ref[o]) > scale)
                    scale = fabs(ref[o]);
            }
        }
    nl_free(ref);
    return scale > 0 ? worst / scale : worst;
}

/* ----------------------------------------------------------- the timing */

static int call(void *ctx)
{
    const nl_gpt2_bench *p = ctx;
    return p->im->run(p);
}

int nl_gpt2_bench_time(const nl_gpt2_bench *p, size_t samples, nl_bench_row *row)
{
    size_t bytes = p->T * p->width * sizeof(float);
    return nl_bench_time_call(call, (void *)p, p->b->x, p->b->y, bytes, samples, row);
}
