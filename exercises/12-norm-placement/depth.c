/* depth.c — where the norm sits (chapter 9): a toy residual stream run
 * through many blocks in pre-norm, post-norm and DeepNorm arrangements.
 *
 * The sublayers are fixed random linear maps with entries N(0, 1/d): for
 * a vector u, |W u| is about |u|, and W u is nearly orthogonal to u.  That
 * is all the experiment needs to show what the arrangements do to the
 * stream's scale and to the share of the input that survives; nothing is
 * trained, so it says nothing about gradients (see the chapter).
 *
 * Cost: 2 * layers matrix-vector products of d x d per token, plus a
 * d x d matrix of Gaussian draws per sublayer (Python's generator,
 * pyrandom.c, so the draws are reproducible anywhere). */
#include <math.h>
#include <string.h>

#include "block/block.h"

const char *nl_block_arch_name(nl_block_arch arch)
{
    switch (arch) {
    case NL_BLOCK_PRE: return "pre-norm";
    case NL_BLOCK_POST: return "post-norm";
    default: return "DeepNorm";
    }
}

double nl_deepnorm_alpha(size_t layers)
{
    return pow(2.0 * (double)layers, 0.25);
}

double nl_deepnorm_beta(size_t layers)
{
    return pow(8.0 * (double)layers, -0.25);
}

/* out = W h for each token: W is d x d, row-major. */
static void apply_map(const float *w, const float *h, size_t tokens, size_t d, float *out)
{
    for (size_t t = 0; t < tokens; t++)
        for (size_t i = 0; i < d; i++) {
            double s = 0.0;
            for (size_t j = 0; j < d; j++)
                s += (double)w[i * d + j] * h[t * d + j];
            out[t * d + i] = (float)s;
        }
}

/* The stream's norm: each token scaled to root mean square 1, with no
 * weight (the toy's sublayers have gain 1).  The values here are near 1,
 * so a float sum of squares is enough; chapter 2's rmsnorm_fused sums in
 * double for the inputs where a float sum would overflow.  The toy keeps a
 * norm of its own so that its exercise (12) needs no other exercise's
 * code.  out may be h. */
static void unit_rms(const float *h, size_t tokens, size_t d, float *out)
{
    for (size_t t = 0; t < tokens; t++) {
        const float *v = h + t * d;
        float ss = 0.0f;
        for (size_t i = 0; i < d; i++)
            ss += v[i] * v[i];
        float scale = 1.0f / sqrtf(ss / (float)d + 1e-6f);
        for (size_t i = 0; i < d; i++)
            out[t * d + i] = v[i] * scale;
    }
}

/* The buffers of one run. */
typedef struct {
    size_t tokens, d;
    float *h, *h0, *u, *f, *w;
    float alpha; /* residual scale: DeepNorm's alpha, 1 otherwise */
} stream;

/* One sublayer F (the map w) applied to the stream in arrangement `arch`. */
static void sublayer(nl_block_arch arch, stream *s)
{
    size_t n = s->tokens * s->d;
    /* TODO(12-norm-placement): your code here; see exercises/12-norm-placement/README.md */
    (void)arch; (void)n; (void)apply_map; (void)unit_rms; /* TODO: the three arrangements of residual add, norm and sublayer */
}

static nl_depth_point measure(const stream *s)
{
    double sq = 0.0, cos_sum = 0.0;
    for (size_t t = 0; t < s->tokens; t++) {
        const float *h = s->h + t * s->d, *h0 = s->h0 + t * s->d;
        double hh = 0.0, h00 = 0.0, dot = 0.0;
        for (size_t i = 0; i < s->d; i++) {
            hh += (double)h[i] * h[i];
            h00 += (double)h0[i] * h0[i];
            dot += (double)h[i] * h0[i];
        }
        sq += hh;
        cos_sum += hh > 0 && h00 > 0 ? dot / sqrt(hh * h00) : 0.0;
    }
    nl_depth_point p = {sqrt(sq / (double)(s->tokens * s->d)), cos_sum / (double)s->tokens};
    return p;
}

static void fill_gauss(nl_pyrandom *r, float *v, size_t n, double std)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)nl_pyrandom_gauss(r, 0.0, std);
}

int nl_depth_run(nl_block_arch arch, size_t tokens, size_t d, size_t layers,
                 uint64_t seed, nl_depth_point *out, double *final_rms)
{
    if (tokens == 0 || d == 0 || layers == 0 || !out || (size_t)arch > NL_BLOCK_DEEPNORM) {
        nl_set_error("depth experiment: tokens, d and layers must be >= 1 and the "
                     "arrangement one of pre-norm, post-norm, DeepNorm");
        return NL_EARG;
    }
    size_t n = tokens * d;
    stream s = {tokens, d, nl_alloc(n * sizeof(float)), nl_alloc(n * sizeof(float)),
                nl_alloc(n * sizeof(float)), nl_alloc(n * sizeof(float)),
                nl_alloc(d * d * sizeof(float)), 1.0f};
    int rc = NL_OK;
    if (!s.h || !s.h0 || !s.u || !s.f || !s.w) {
        nl_set_error("depth experiment: no memory for %zu x %zu", tokens, d);
        rc = NL_ENOMEM;
        goto done;
    }
    double map_std = 1.0 / sqrt((double)d);
    if (arch == NL_BLOCK_DEEPNORM) {
        s.alpha = (float)nl_deepnorm_alpha(layers);
        map_std *= nl_deepnorm_beta(layers);
    }
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    fill_gauss(&r, s.h, n, 1.0); /* the embeddings: unit rms */
    memcpy(s.h0, s.h, n * sizeof(float));
    out[0] = measure(&s);
    for (size_t l = 1; l <= layers; l++) {
        for (int k = 0; k < 2; k++) { /* attention, then MLP */
            fill_gauss(&r, s.w, d * d, map_std);
            sublayer(arch, &s);
        }
        out[l] = measure(&s);
    }
    if (final_rms) {
        /* Pre-norm's stream is handed on through one last norm (Llama's
         * model.norm, GPT-2's ln_f); post-norm's already went through one. */
        if (arch == NL_BLOCK_PRE)
            unit_rms(s.h, tokens, d, s.h);
        *final_rms = measure(&s).rms;
    }
done:
    nl_free(s.h);
    nl_free(s.h0);
    nl_free(s.u);
    nl_free(s.f);
    nl_free(s.w);
    return rc;
}
