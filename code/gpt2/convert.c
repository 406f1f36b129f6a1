/* convert.c — a pre-norm LayerNorm GPT-2 made into an RMSNorm model with
 * the same outputs (Jiang et al., "Pre-RMSNorm and Pre-CRMSNorm
 * Transformers", NeurIPS 2023, arXiv 2305.14858, section 3).
 *
 * LayerNorm subtracts the row's mean; RMSNorm does not.  If every vector
 * ever added into the residual stream has mean 0, the stream's mean is 0
 * and the subtraction does nothing: LayerNorm(x) = RMSNorm(x), same eps.
 * GPT-2's stream is written by the token and position embeddings and by
 * the two output projections of each block (weight and bias), so those are
 * centred over the model dimension.  The norms' gamma and beta then fold
 * into the matrix each norm feeds (fold.c).  The head is GPT-2's token
 * embedding; it must not be the centred one, so the converted model gets a
 * head of its own, the original embedding with the final norm folded in,
 * and with it a bias per vocabulary entry. */
#include <string.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

nl_gpt2_convert_opts nl_gpt2_convert_default(void)
{
    return (nl_gpt2_convert_opts){.norm = NL_GPT2_RMSNORM, .deferred = 0,
                                  .centre = NL_CENTRE_ALL, .fold_beta = 1, .untie = 1};
}

#define D(m, i) ((double *)(m)->t[(i)])

// @snippet centre-writers
/* `groups` vectors of n values, the k-th value of group g at w[g * gstride
 * + k * step], each made mean 0 over its n values. */
static void centre(double *w, size_t groups, size_t n, size_t gstride, size_t step)
{
    for (size_t g = 0; g < groups; g++) {
        double *v = w + g * gstride, mean = 0;
        for (size_t k = 0; k < n; k++)
            mean += v[k * step];
        mean /= (double)n;
        for (size_t k = 0; k < n; k++)
            v[k * step] -= mean;
    }
}

/* An embedding's vectors (the rows of w, rows x cols), or a bias (one row). */
static void centre_rows(double *w, size_t rows, size_t cols)
{
    centre(w, rows, cols, cols, 1);
}

/* A projection whose outputs (its rows) are the model dimension: each
 * column mean 0, so that W x has mean 0 whatever x is. */
static void centre_columns(double *w, size_t rows, size_t cols)
{
    centre(w, cols, rows, 1, cols);
}
// @end

// @snippet crms-compress
/* Pre-CRMSNorm (Jiang et al., section 3.3): a zero-mean vector of C values
 * is known from its first C - 1, the last being minus their sum.  A writer
 * keeps the first C - 1 rows of its output; a reader W sees x_last =
 * -sum(x'), so W x = sum_i (W[:, i] - W[:, last]) x'_i. */
static void compress_reader(double *dst, const double *src, size_t rows, size_t C)
{
    for (size_t o = 0; o < rows; o++)
        for (size_t i = 0; i + 1 < C; i++)
            dst[o * (C - 1) + i] = src[o * C + i] - src[o * C + C - 1];
}
// @end

/* The first `keep` values of each row of src (rows x cols) */
static void keep_columns(double *dst, const double *src, size_t rows, size_t cols,
                         size_t keep)
{
    for (size_t r = 0; r < rows; r++)
        memcpy(dst + r * keep, src + r * cols, keep * sizeof *dst);
}

/* The CRMS model from the full-width RMS model rms (width C). */
static void compress(const nl_gpt2 *rms, nl_gpt2 *out)
{
    size_t C = (size_t)rms->cfg.channels, L = (size_t)rms->cfg.num_layers;
    size_t V = (size_t)rms->cfg.vocab_size, T = (size_t)rms->cfg.max_seq_len, R = C - 1;
    keep_columns(D(out, NL_T_WTE), D(rms, NL_T_WTE), V, C, R);
    keep_columns(D(out, NL_T_WPE), D(rms, NL_T_WPE), T, C, R);
    for (size_t l = 0; l < L; l++) {
        /* writers: rows are outputs, the first R of them */
        memcpy(D(out, NL_T_ATTPROJW) + l * R * C, D(rms, NL_T_ATTPROJW) + l * C * C,
               R * C * sizeof(double));
        memcpy(D(out, NL_T_ATTPROJB) + l * R, D(rms, NL_T_ATTPROJB) + l * C,
               R * sizeof(double));
        memcpy(D(out, NL_T_FCPROJW) + l * R * 4 * C, D(rms, NL_T_FCPROJW) + l * C * 4 * C,
               R * 4 * C * sizeof(double));
        memcpy(D(out, NL_T_FCPROJB) + l * R, D(rms, NL_T_FCPROJB) + l * C,
               R * sizeof(double));
        compress_reader(D(out, NL_T_QKVW) + l * 3 * C * R, D(rms, NL_T_QKVW) + l * 3 * C * C,
                        3 * C, C);
        compress_reader(D(out, NL_T_FCW) + l * 4 * C * R, D(rms, NL_T_FCW) + l * 4 * C * C,
                        4 * C, C);
    }
    memcpy(D(out, NL_T_QKVB), D(rms, NL_T_QKVB), rms->count[NL_T_QKVB] * sizeof(double));
    memcpy(D(out, NL_T_FCB), D(rms, NL_T_FCB), rms->count[NL_T_FCB] * sizeof(double));
    compress_reader(D(out, NL_T_HEADW), D(rms, NL_T_HEADW), V, C);
    memcpy(D(out, NL_T_HEADB), D(rms, NL_T_HEADB), V * sizeof(double));
}

// @snippet convert
int nl_gpt2_convert(const nl_gpt2 *ln, const nl_gpt2_convert_opts *o, nl_gpt2 *out)
{
    memset(out, 0, sizeof *out);
    if (ln->norm != NL_GPT2_LAYERNORM) {
        nl_set_error("the model is already an RMSNorm model: "
                     "there is no LayerNorm to convert");
        return NL_EARG;
    }
    if (!ln->is_double || (o->norm != NL_GPT2_RMSNORM && o->norm != NL_GPT2_CRMSNORM)) {
        nl_set_error("nl_gpt2_convert: a double LayerNorm model into RMSNORM or CRMSNORM");
        return NL_EARG;
    }
    nl_gpt2 r; /* full width first; Pre-CRMSNorm drops a dimension at the end */
    int rc = nl_gpt2_alloc(&r, &ln->cfg, NL_GPT2_RMSNORM, o->deferred, 1);
    if (rc)
        return rc;
    size_t C = (size_t)ln->cfg.channels, L = (size_t)ln->cfg.num_layers;
    size_t V = (size_t)ln->cfg.vocab_size, T = (size_t)ln->cfg.max_seq_len;
    /* the real vocabulary: llm.c's padding rows are zero and never read */
    memcpy(D(&r, NL_T_WTE), D(ln, NL_T_WTE), V * C * sizeof(double));
    const nl_gpt2_tensor same[] = {NL_T_WPE,      NL_T_QKVW, NL_T_QKVB,    NL_T_ATTPROJW,
                                   NL_T_ATTPROJB, NL_T_FCW,  NL_T_FCB,     NL_T_FCPROJW,
                                   NL_T_FCPROJB};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
        memcpy(r.t[same[k]], ln->t[same[k]], r.count[same[k]] * sizeof(double));

    /* 1. every writer of the residual stream, centred over the model dimension */
    if (o->centre & NL_CENTRE_WTE)
        centre_rows(D(&r, NL_T_WTE), V, C);
    if (o->centre & NL_CENTRE_WPE)
        centre_rows(D(&r, NL_T_WPE), T, C);
    for (size_t l = 0; l < L; l++) {
        if (o->centre & NL_CENTRE_ATTPROJW)
            centre_columns(D(&r, NL_T_ATTPROJW) + l * C * C, C, C);
        if (o->centre & NL_CENTRE_ATTPROJB)
            centre_rows(D(&r, NL_T_ATTPROJB) + l * C, 1, C);
        if (o->centre & NL_CENTRE_FCPROJW)
            centre_columns(D(&r, NL_T_FCPROJW) + l * C * 4 * C, C, 4 * C);
        if (o->centre & NL_CENTRE_FCPROJB)
            centre_rows(D(&r, NL_T_FCPROJB) + l * C, 1, C);
    }
    /* 2. each norm's gamma and beta, into the matrix it feeds */
    for (size_t l = 0; l < L; l++) {
        nl_fold_norm_into_linear(D(&r, NL_T_QKVW) + l * 3 * C * C,
                                 D(&r, NL_T_QKVB) + l * 3 * C,
                                 D(ln, NL_T_LN1W) + l * C,
                                 o->fold_beta ? D(ln, NL_T_LN1B) + l * C : NULL, 3 * C, C);
        nl_fold_norm_into_linear(D(&r, NL_T_FCW) + l * 4 * C * C, D(&r, NL_T_FCB) + l * 4 * C,
                                 D(ln, NL_T_LN2W) + l * C,
                                 o->fold_beta ? D(ln, NL_T_LN2B) + l * C : NULL, 4 * C, C);
    }
    /* 3. the head, untied: the original embedding, not the centred one,
     * with the final norm folded in (its beta becomes a bias per token) */
    memcpy(D(&r, NL_T_HEADW), o->untie ? D(ln, NL_T_WTE) : D(&r, NL_T_WTE),
           V * C * sizeof(double));
    nl_fold_norm_into_linear(D(&r, NL_T_HEADW), D(&r, NL_T_HEADB), D(ln, NL_T_LNFW),
                             o->fold_beta ? D(ln, NL_T_LNFB) : NULL, V, C);
    if (o->norm == NL_GPT2_RMSNORM) {
        *out = r;
        return NL_OK;
    }
    rc = nl_gpt2_alloc(out, &ln->cfg, NL_GPT2_CRMSNORM, o->deferred, 1);
    if (rc == NL_OK)
        compress(&r, out);
    nl_gpt2_free(&r);
    return rc;
}
// @end
