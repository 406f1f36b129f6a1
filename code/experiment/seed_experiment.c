/* seed_experiment.c — the seed article's Python experiment, in C.
 *
 * The article drew 512 tokens of 1024 values with random.gauss(0, 3) after
 * random.seed(7), ran LayerNorm and RMSNorm over them in double, and
 * printed for each of x, LayerNorm(x) and RMSNorm(x) the largest |mean|
 * over the tokens: max(abs(sum(v) / D) for v in rows). This file does the
 * same arithmetic in the same order, so the C program prints the same
 * digits; only the way the sums are taken is a parameter, because the
 * LayerNorm figure is made of nothing but summation rounding. */
#include "normlab.h"

#include <math.h>

// @snippet seed-norms
/* mu = sum(v) / len(v); var = sum((t - mu) ** 2 for t in v) / len(v);
 * inv = 1.0 / (var + eps) ** 0.5; out = (t - mu) * inv * w + b */
static void layer_norm(const double *v, const double *w, const double *b, double eps,
                       size_t d, nl_sum_method how, double *tmp, double *out)
{
    double mu = nl_sum(v, d, how) / (double)d;
    for (size_t i = 0; i < d; i++)
        tmp[i] = pow(v[i] - mu, 2.0);
    double var = nl_sum(tmp, d, how) / (double)d;
    double inv = 1.0 / pow(var + eps, 0.5);
    for (size_t i = 0; i < d; i++)
        out[i] = (v[i] - mu) * inv * w[i] + b[i];
}

/* ms = sum(t * t for t in v) / len(v); inv = 1.0 / (ms + eps) ** 0.5;
 * out = t * inv * w */
static void rms_norm(const double *v, const double *w, double eps, size_t d,
                     nl_sum_method how, double *tmp, double *out)
{
    for (size_t i = 0; i < d; i++)
        tmp[i] = v[i] * v[i];
    double ms = nl_sum(tmp, d, how) / (double)d;
    double inv = 1.0 / pow(ms + eps, 0.5);
    for (size_t i = 0; i < d; i++)
        out[i] = v[i] * inv * w[i];
}
// @end

int nl_seed_experiment(nl_sum_method inside, nl_sum_method measure,
                       nl_seed_figures *out)
{
    enum { D = NL_SEED_D };
    const double eps = 1e-6;
    /* One token at a time: the article's x is built row by row from one
     * stream of gauss() draws, so generating row t just before using it
     * draws exactly the same numbers without holding 4 MB per matrix. */
    double w[D], b[D], v[D], tmp[D], ln[D], rn[D];
    for (size_t i = 0; i < D; i++) {
        w[i] = 1.0;
        b[i] = 0.0;
    }

    nl_pyrandom rng;
    nl_pyrandom_seed(&rng, 7);
    nl_seed_figures f = {0.0, 0.0, 0.0};
    for (size_t t = 0; t < NL_SEED_TOKENS; t++) {
        for (size_t i = 0; i < D; i++)
            v[i] = nl_pyrandom_gauss(&rng, 0.0, 3.0);
        layer_norm(v, w, b, eps, D, inside, tmp, ln);
        rms_norm(v, w, eps, D, inside, tmp, rn);

        double m_in = fabs(nl_sum(v, D, measure) / D);
        double m_ln = fabs(nl_sum(ln, D, measure) / D);
        double m_rn = fabs(nl_sum(rn, D, measure) / D);
        f.input = fmax(f.input, m_in);
        f.layernorm = fmax(f.layernorm, m_ln);
        f.rmsnorm = fmax(f.rmsnorm, m_rn);
    }
    *out = f;
    return NL_OK;
}
