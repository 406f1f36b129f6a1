/* forward_body.h — the GPT-2 forward pass, written once for both precisions:
 * forward_float.c and forward_double.c include it with REAL (float or
 * double), FN(name) (a suffix for the names) and the maths functions of
 * that type.  Weights are stored as llm.c stores them, out x in, so a
 * linear layer is y = x W^T + b, one dot product per output. */

#define P(m, i) ((const REAL *)(m)->t[(i)])
/* A norm's parameters at an offset, or NULL in a model without them. */
#define PN(m, i, off) ((m)->t[(i)] ? P(m, i) + (off) : NULL)

/* y[t][o] = (x[t] . w[o]) * scale[t] + b[o]; scale NULL means 1, b NULL 0.
 * The scale after the dot product is FlashNorm's deferred 1/rms: the
 * matmul reads the raw row and the norm's one number per row comes last. */
static void FN(linear)(REAL *y, const REAL *x, const REAL *w, const REAL *b,
                       const REAL *scale, size_t T, size_t in, size_t out)
{
    for (size_t t = 0; t < T; t++)
        for (size_t o = 0; o < out; o++) {
            REAL s = 0;
            for (size_t i = 0; i < in; i++)
                s += x[t * in + i] * w[o * in + i];
            if (scale)
                s *= scale[t];
            y[t * out + o] = s + (b ? b[o] : 0);
        }
}

// @snippet gpt2-norm
/* The norm before each sublayer, over rows of the residual stream.  The
 * LayerNorm model uses gamma and beta; the converted one has none (they
 * live in the next matrix) and only divides by the rms; an RMSNorm model
 * trained as such (chapter 13) has a gamma and no beta.  Pre-CRMSNorm's
 * rows hold channels - 1 values of a vector whose last, dropped value is
 * minus their sum, so its mean square counts that value too.  Deferred:
 * the row goes on unscaled and rstd[t] waits for the matmul. */
static void FN(norm_rows)(const nl_gpt2 *m, REAL *y, REAL *rstd, const REAL *x,
                          const REAL *gamma, const REAL *beta, size_t T)
{
    size_t R = m->width;
    REAL C = (REAL)m->cfg.channels, eps = (REAL)NL_GPT2_EPS;
    for (size_t t = 0; t < T; t++) {
        const REAL *xt = x + t * R;
        REAL *yt = y + t * R;
        if (m->norm == NL_GPT2_LAYERNORM) {
            REAL mean = 0, var = 0;
            for (size_t i = 0; i < R; i++)
                mean += xt[i];
            mean /= C;
            for (size_t i = 0; i < R; i++)
                var += (xt[i] - mean) * (xt[i] - mean);
            REAL r = 1 / SQRT(var / C + eps);
            for (size_t i = 0; i < R; i++)
                yt[i] = (xt[i] - mean) * r * gamma[i] + beta[i];
            continue;
        }
        REAL sq = 0, sum = 0;
        for (size_t i = 0; i < R; i++) {
            sq += xt[i] * xt[i];
            sum += xt[i];
        }
        if (m->norm == NL_GPT2_CRMSNORM)
            sq += sum * sum; /* the dropped coordinate, -sum, squared */
        REAL r = 1 / SQRT(sq / C + eps);
        rstd[t] = r;
        for (size_t i = 0; i < R; i++)
            yt[i] = m->deferred ? xt[i] : gamma ? xt[i] * r * gamma[i] : xt[i] * r;
    }
}
// @end

/* GELU in the tanh form GPT-2 was trained with (llm.c gelu_forward). */
static REAL FN(gelu)(REAL x)
{
    const REAL k = (REAL)0.7978845608028654; /* sqrt(2 / pi) */
    return (REAL)0.5 * x * (1 + TANH(k * (x + (REAL)0.044715 * x * x * x)));
}

/* Causal self-attention: qkv is T x 3C (queries, keys, values, each C =
 * heads x head size); out is T x C. */
static void FN(attention)(REAL *out, REAL *score, const REAL *qkv, size_t T, size_t C,
                          size_t heads)
{
    size_t hs = C / heads;
    REAL scale = 1 / SQRT((REAL)hs);
    for (size_t t = 0; t < T; t++)
        for (size_t h = 0; h < heads; h++) {
            const REAL *q = qkv + t * 3 * C + h * hs;
            REAL max = 0, sum = 0;
            for (size_t u = 0; u <= t; u++) {
                const REAL *k = qkv + u * 3 * C + C + h * hs;
                REAL s = 0;
                for (size_t i = 0; i < hs; i++)
                    s += q[i] * k[i];
                score[u] = s * scale;
                if (u == 0 || score[u] > max)
                    max = score[u];
            }
            for (size_t u = 0; u <= t; u++) {
                score[u] = EXP(score[u] - max);
                sum += score[u];
            }
            REAL *o = out + t * C + h * hs;
            for (size_t i = 0; i < hs; i++)
                o[i] = 0;
            for (size_t u = 0; u <= t; u++) {
                const REAL *v = qkv + u * 3 * C + 2 * C + h * hs;
                for (size_t i = 0; i < hs; i++)
                    o[i] += score[u] / sum * v[i];
            }
        }
}

int FN(nl_gpt2_logits)(const nl_gpt2 *m, const int *tokens, size_t T, REAL *logits)
{
    if (m->is_double != (sizeof(REAL) == sizeof(double))) {
        nl_set_error("the model holds %s; this forward runs %s", m->is_double ? "double" : "float",
                     sizeof(REAL) == sizeof(double) ? "double" : "float");
        return NL_EARG;
    }
    if (T == 0 || T > (size_t)m->cfg.max_seq_len) {
        nl_set_error("%zu tokens: the model takes 1 to max_seq_len = %d", T, m->cfg.max_seq_len);
        return NL_EARG;
    }
    for (size_t t = 0; t < T; t++)
        if (tokens[t] < 0 || tokens[t] >= m->cfg.vocab_size) {
            nl_set_error("token %zu is %d: the vocabulary is 0 to %d", t, tokens[t],
                         m->cfg.vocab_size - 1);
            return NL_EARG;
        }
    size_t R = m->width, C = (size_t)m->cfg.channels, L = (size_t)m->cfg.num_layers;
    size_t V = (size_t)m->cfg.vocab_size, H = (size_t)m->cfg.num_heads;
    size_t need = T * R * 3 + T + T * 3 * C + T * C + T * 4 * C + T;
    REAL *mem = nl_alloc(need * sizeof(REAL));
    if (!mem) {
        nl_set_error("no memory for the activations of %zu tokens", T);
        return NL_ENOMEM;
    }
    REAL *x = mem, *a = x + T * R, *w = a + T * R, *rstd = w + T * R, *qkv = rstd + T;
    REAL *att = qkv + T * 3 * C, *h = att + T * C, *score = h + T * 4 * C;
    const REAL *s = m->deferred ? rstd : NULL;

    for (size_t t = 0; t < T; t++)
        for (size_t i = 0; i < R; i++)
            x[t * R + i] = P(m, NL_T_WTE)[(size_t)tokens[t] * R + i] + P(m, NL_T_WPE)[t * R + i];
    for (size_t l = 0; l < L; l++) {
        FN(norm_rows)(m, a, rstd, x, PN(m, NL_T_LN1W, l * C), PN(m, NL_T_LN1B, l * C), T);
        FN(linear)(qkv, a, P(m, NL_T_QKVW) + l * 3 * C * R, P(m, NL_T_QKVB) + l * 3 * C, s, T,
                   R, 3 * C);
        FN(attention)(att, score, qkv, T, C, H);
        FN(linear)(w, att, P(m, NL_T_ATTPROJW) + l * R * C, P(m, NL_T_ATTPROJB) + l * R, NULL,
                   T, C, R);
        for (size_t k = 0; k < T * R; k++)
            x[k] += w[k];
        FN(norm_rows)(m, a, rstd, x, PN(m, NL_T_LN2W, l * C), PN(m, NL_T_LN2B, l * C), T);
        FN(linear)(h, a, P(m, NL_T_FCW) + l * 4 * C * R, P(m, NL_T_FCB) + l * 4 * C, s, T, R,
                   4 * C);
        for (size_t k = 0; k < T * 4 * C; k++)
            h[k] = FN(gelu)(h[k]);
        FN(linear)(w, h, P(m, NL_T_FCPROJW) + l * R * 4 * C, P(m, NL_T_FCPROJB) + l * R, NULL,
                   T, 4 * C, R);
        for (size_t k = 0; k < T * R; k++)
            x[k] += w[k];
    }
    FN(norm_rows)(m, a, rstd, x, PN(m, NL_T_LNFW, 0), PN(m, NL_T_LNFB, 0), T);
    /* the first vocab_size rows of the head: llm.c's padding rows are never logits */
    FN(linear)(logits, a, P(m, NL_T_HEADW), PN(m, NL_T_HEADB, 0), s, T, R, V);
    nl_free(mem);
    return NL_OK;
}

#undef P
#undef PN
