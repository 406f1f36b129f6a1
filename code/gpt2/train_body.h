/* train_body.h — one training step's forward and backward pass, written
 * once for both precisions.  train_float.c and train_double.c include it
 * after defining:
 *   REAL, FN(name), SQRT, EXP, LOG   the type, a name suffix, its maths
 *   GEMM(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc)
 *       C = beta C + op(A) op(B), row-major; op(A) is M x K, op(B) K x N,
 *       op the transpose when ta (tb) is 1
 *   NORM_FWD(tr, ln, x, gamma, beta, rows, d, y, mean, rstd)
 *       y = the norm of each row (LayerNorm when ln, else RMSNorm; gamma
 *       NULL means 1, beta NULL 0), keeping mean (LayerNorm) and rstd
 *   NORM_BWD(tr, ln, x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta)
 *       dx written, dgamma (and LayerNorm's dbeta) added to
 *   GELU_FWD(y, x, n), GELU_BWD(d, x, n, tanh_term)
 *       GPT-2's GELU, and d *= its derivative (without the tanh's own
 *       derivative when tanh_term is 0: the planted mistake)
 * The float file maps these onto BLAS (or chapter 12's blocked matmul),
 * chapter 10's kernels and vectorised GELU; the double file onto plain
 * loops.
 *
 * The layout is llm.c's: activations are rows of the nb x nt tokens, a
 * linear layer's weight is out x in (y = x W^T + b), attention keeps its
 * softmax probabilities per sequence and head.  The embedding gradients
 * are summed in one fixed order and the products' sums are the matmul's,
 * so a run is the same for a given thread count; the OpenMP loops split
 * independent rows or heads only. */
#include <omp.h>

#define ACT(tr, i) ((REAL *)(tr)->a[(i)])
#define PAR(tr, i) ((const REAL *)(tr)->m->t[(i)])
#define GRAD(tr, i) ((REAL *)(tr)->g[(i)])
/* a per-layer tensor of the model or its gradient, or NULL if absent */
#define PAR_AT(tr, i, off) ((tr)->m->t[(i)] ? PAR(tr, i) + (off) : NULL)
#define GRAD_AT(tr, i, off) ((tr)->g[(i)] ? GRAD(tr, i) + (off) : NULL)

/* ----------------------------------------------------------- embeddings */
static void FN(encoder_forward)(REAL *x, const int *tok, const REAL *wte, const REAL *wpe,
                                size_t nb, size_t nt, size_t C)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < nb * nt; r++) {
        const REAL *e = wte + (size_t)tok[r] * C, *p = wpe + (r % nt) * C;
        for (size_t i = 0; i < C; i++)
            x[r * C + i] = e[i] + p[i];
    }
}

/* A token's row of wte gets the gradient of every position it sits at,
 * a position's row of wpe that of every sequence: both are sums. */
static void FN(encoder_backward)(REAL *dwte, REAL *dwpe, const REAL *dx, const int *tok,
                                 size_t nb, size_t nt, size_t C, int plant)
{
    for (size_t r = 0; r < nb * nt; r++) {
        const REAL *d = dx + r * C;
        REAL *e = dwte + (size_t)tok[r] * C, *p = dwpe + (r % nt) * C;
        for (size_t i = 0; i < C; i++) {
            e[i] += d[i];
            p[i] = plant == NL_PLANT_EMBEDDING ? d[i] : p[i] + d[i];
        }
    }
}

/* -------------------------------------------------------- linear layers */
// @snippet train-linear
/* y = x W^T + b over n rows: W is out x in, as llm.c stores it. */
static void FN(linear_forward)(REAL *y, const REAL *x, const REAL *w, const REAL *b, size_t n,
                               size_t in, size_t out)
{
    GEMM(0, 1, n, out, in, x, in, w, in, 0, y, out);
    if (b) {
#pragma omp parallel for schedule(static)
        for (size_t r = 0; r < n; r++)
            for (size_t o = 0; o < out; o++)
                y[r * out + o] += b[o];
    }
}

/* dx = dy W (written); dW += dy^T x; db += dy^T 1, the column sums of dy
 * (ones: n ones). */
static void FN(linear_backward)(REAL *dx, REAL *dw, REAL *db, const REAL *dy, const REAL *x,
                                const REAL *w, const REAL *ones, size_t n, size_t in,
                                size_t out, int plant)
{
    GEMM(0, 0, n, in, out, dy, out, w, in, 0, dx, in);
    GEMM(1, 0, out, in, n, dy, out, x, in, 1, dw, in);
    if (db && plant != NL_PLANT_LINEAR)
        GEMM(1, 0, out, 1, n, dy, out, ones, 1, 1, db, 1);
}
// @end

/* ------------------------------------------------------------ attention */
/* Causal self-attention of one sequence and head at a time: the scores
 * S = Q K^T / sqrt(hs) as one product (the entries above the diagonal are
 * computed and then dropped: a matmul library does the square faster than
 * loops do the triangle), the softmax of each row over positions u <= t,
 * then Y = P V.  att keeps P, nt x nt per sequence and head. */
static void FN(attention_forward)(nl_train *tr, REAL *atty, REAL *att, const REAL *qkv,
                                  size_t nb, size_t nt)
{
    size_t C = (size_t)tr->m->cfg.channels, NH = (size_t)tr->m->cfg.num_heads, hs = C / NH;
    REAL scale = 1 / SQRT((REAL)hs);
#pragma omp parallel for schedule(static) num_threads(tr->threads)
    for (size_t bh = 0; bh < nb * NH; bh++) {
        size_t b = bh / NH, h = bh % NH;
        const REAL *q = qkv + b * nt * 3 * C + h * hs, *k = q + C, *v = q + 2 * C;
        REAL *p = att + bh * nt * nt;
        GEMM(0, 1, nt, nt, hs, q, 3 * C, k, 3 * C, 0, p, nt);
        for (size_t t = 0; t < nt; t++) {
            REAL *row = p + t * nt, max = row[0] * scale, sum = 0;
            for (size_t u = 1; u <= t; u++)
                max = row[u] * scale > max ? row[u] * scale : max;
            for (size_t u = 0; u <= t; u++) {
                row[u] = EXP(row[u] * scale - max);
                sum += row[u];
            }
            for (size_t u = 0; u <= t; u++)
                row[u] /= sum;
            for (size_t u = t + 1; u < nt; u++)
                row[u] = 0;
        }
        GEMM(0, 0, nt, hs, nt, p, nt, v, 3 * C, 0, atty + b * nt * C + h * hs, C);
    }
}

// @snippet train-attention-backward
/* dP = dY V^T, dV = P^T dY; the softmax's backward dS = P (dP - rowsum(P dP))
 * (scaled as the scores were); dQ = dS K, dK = dS^T Q.  P is 0 above the
 * diagonal, so dS is too: no gradient reaches a future position. */
static void FN(attention_backward)(nl_train *tr, REAL *dqkv, const REAL *datty,
                                   const REAL *qkv, const REAL *att, size_t nb, size_t nt)
{
    size_t C = (size_t)tr->m->cfg.channels, NH = (size_t)tr->m->cfg.num_heads, hs = C / NH;
    REAL scale = 1 / SQRT((REAL)hs);
    REAL *scratch = ACT(tr, NL_D_SCRATCH);
#pragma omp parallel for schedule(static) num_threads(tr->threads)
    for (size_t bh = 0; bh < nb * NH; bh++) {
        size_t b = bh / NH, h = bh % NH;
        const REAL *q = qkv + b * nt * 3 * C + h * hs, *k = q + C, *v = q + 2 * C;
        const REAL *p = att + bh * nt * nt, *dy = datty + b * nt * C + h * hs;
        REAL *dq = dqkv + b * nt * 3 * C + h * hs, *dk = dq + C, *dv = dq + 2 * C;
        REAL *ds = scratch + (size_t)omp_get_thread_num() * tr->T * tr->T;
        GEMM(0, 1, nt, nt, hs, dy, C, v, 3 * C, 0, ds, nt);
        GEMM(1, 0, nt, hs, nt, p, nt, dy, C, 0, dv, 3 * C);
        for (size_t t = 0; t < nt; t++) {
            const REAL *pr = p + t * nt;
            REAL *dr = ds + t * nt, dot = 0;
            for (size_t u = 0; u <= t; u++)
                dot += pr[u] * dr[u];
            if (tr->plant == NL_PLANT_ATTENTION)
                dot = 0;
            for (size_t u = 0; u <= t; u++)
                dr[u] = pr[u] * (dr[u] - dot) * scale;
            for (size_t u = t + 1; u < nt; u++)
                dr[u] = 0;
        }
        GEMM(0, 0, nt, hs, nt, ds, nt, k, 3 * C, 0, dq, 3 * C);
        GEMM(1, 0, nt, hs, nt, ds, nt, q, 3 * C, 0, dk, 3 * C);
    }
}
// @end

/* --------------------------------------------------------- cross-entropy */
/* probs = softmax of each row of logits; losses[r] = -log probs[target],
 * taken as log(sum) - (logit - max) so that a tiny probability does not
 * round to log(0).  Returns the mean loss (a NaN anywhere shows). */
static double FN(crossentropy_forward)(REAL *probs, REAL *losses, const REAL *logits,
                                       const int *targets, size_t n, size_t V)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < n; r++) {
        const REAL *lr = logits + r * V;
        REAL *pr = probs + r * V, max = lr[0], sum = 0;
        for (size_t v = 1; v < V; v++)
            max = lr[v] > max ? lr[v] : max;
        for (size_t v = 0; v < V; v++) {
            pr[v] = EXP(lr[v] - max);
            sum += pr[v];
        }
        for (size_t v = 0; v < V; v++)
            pr[v] /= sum;
        if (targets)
            losses[r] = LOG(sum) - (lr[targets[r]] - max);
    }
    if (!targets)
        return NAN;
    double total = 0;
    for (size_t r = 0; r < n; r++)
        total += (double)losses[r];
    return total / (double)n;
}

// @snippet train-crossentropy-backward
/* The mean over n rows of -log softmax(logits)[target]: its gradient is
 * (softmax - onehot(target)) / n. */
static void FN(crossentropy_backward)(REAL *dlogits, const REAL *probs, const int *targets,
                                      size_t n, size_t V, int plant)
{
    REAL inv = (REAL)1 / (REAL)n;
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < n; r++) {
        for (size_t v = 0; v < V; v++)
            dlogits[r * V + v] = probs[r * V + v] * inv;
        if (plant != NL_PLANT_CROSSENTROPY)
            dlogits[r * V + (size_t)targets[r]] -= inv;
    }
}
// @end

/* -------------------------------------------------------------- residual */
static void FN(add)(REAL *y, const REAL *x, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        y[i] += x[i];
}

/* ------------------------------------------------------------ the passes */
static int FN(check_batch)(const nl_train *tr, const int *inputs, const int *targets,
                           size_t nb, size_t nt)
{
    if (tr->m->is_double != (sizeof(REAL) == sizeof(double))) {
        nl_set_error("the model holds %s; this pass runs %s", tr->m->is_double ? "double" : "float",
                     sizeof(REAL) == sizeof(double) ? "double" : "float");
        return NL_EARG;
    }
    if (nb == 0 || nt == 0 || nb > tr->B || nt > tr->T) {
        nl_set_error("a batch of %zu x %zu tokens: this trainer takes 1 to %zu sequences of 1 "
                     "to %zu tokens", nb, nt, tr->B, tr->T);
        return NL_EARG;
    }
    int V = tr->m->cfg.vocab_size;
    for (size_t r = 0; r < nb * nt; r++)
        if (inputs[r] < 0 || inputs[r] >= V || (targets && (targets[r] < 0 || targets[r] >= V))) {
            nl_set_error("token %d at position %zu of the batch is outside the model's "
                         "vocabulary (0 to %d)", inputs[r] < 0 || inputs[r] >= V ? inputs[r]
                         : targets[r], r, V - 1);
            return NL_EARG;
        }
    return NL_OK;
}

int FN(nl_train_forward)(nl_train *tr, const int *inputs, const int *targets, size_t nb,
                         size_t nt)
{
    int rc = FN(check_batch)(tr, inputs, targets, nb, nt);
    if (rc)
        return rc;
    const nl_gpt2 *m = tr->m;
    size_t C = (size_t)m->cfg.channels, L = (size_t)m->cfg.num_layers;
    size_t V = (size_t)m->cfg.vocab_size, NH = (size_t)m->cfg.num_heads, n = nb * nt;
    size_t BTC = tr->B * tr->T * C, att = tr->B * NH * tr->T * tr->T;
    int ln = m->norm == NL_GPT2_LAYERNORM;
    tr->nb = nb, tr->nt = nt;
    memcpy(tr->inputs, inputs, n * sizeof *inputs);
    if (targets)
        memcpy(tr->targets, targets, n * sizeof *targets);

    FN(encoder_forward)(ACT(tr, NL_A_ENC), inputs, PAR(tr, NL_T_WTE), PAR(tr, NL_T_WPE), nb, nt, C);
    for (size_t l = 0; l < L; l++) {
        const REAL *x = l ? ACT(tr, NL_A_RES3) + (l - 1) * BTC : ACT(tr, NL_A_ENC);
        REAL *ln1 = ACT(tr, NL_A_LN1) + l * BTC, *qkv = ACT(tr, NL_A_QKV) + 3 * l * BTC;
        REAL *atty = ACT(tr, NL_A_ATTY) + l * BTC, *res2 = ACT(tr, NL_A_RES2) + l * BTC;
        REAL *ln2 = ACT(tr, NL_A_LN2) + l * BTC, *fch = ACT(tr, NL_A_FCH) + 4 * l * BTC;
        REAL *gelu = ACT(tr, NL_A_FCH_GELU) + 4 * l * BTC, *res3 = ACT(tr, NL_A_RES3) + l * BTC;
        size_t rows = tr->B * tr->T;
        NORM_FWD(tr, ln, x, PAR_AT(tr, NL_T_LN1W, l * C), PAR_AT(tr, NL_T_LN1B, l * C), n, C, ln1,
                 ACT(tr, NL_A_LN1_MEAN) + l * rows, ACT(tr, NL_A_LN1_RSTD) + l * rows);
        FN(linear_forward)(qkv, ln1, PAR(tr, NL_T_QKVW) + l * 3 * C * C,
                           PAR(tr, NL_T_QKVB) + l * 3 * C, n, C, 3 * C);
        FN(attention_forward)(tr, atty, ACT(tr, NL_A_ATT) + l * att, qkv, nb, nt);
        FN(linear_forward)(res2, atty, PAR(tr, NL_T_ATTPROJW) + l * C * C,
                           PAR(tr, NL_T_ATTPROJB) + l * C, n, C, C);
        FN(add)(res2, x, n * C);
        NORM_FWD(tr, ln, res2, PAR_AT(tr, NL_T_LN2W, l * C), PAR_AT(tr, NL_T_LN2B, l * C), n, C,
                 ln2, ACT(tr, NL_A_LN2_MEAN) + l * rows, ACT(tr, NL_A_LN2_RSTD) + l * rows);
        FN(linear_forward)(fch, ln2, PAR(tr, NL_T_FCW) + l * 4 * C * C,
                           PAR(tr, NL_T_FCB) + l * 4 * C, n, C, 4 * C);
        GELU_FWD(gelu, fch, n * 4 * C);
        FN(linear_forward)(res3, gelu, PAR(tr, NL_T_FCPROJW) + l * 4 * C * C,
                           PAR(tr, NL_T_FCPROJB) + l * C, n, 4 * C, C);
        FN(add)(res3, res2, n * C);
    }
    const REAL *last = L ? ACT(tr, NL_A_RES3) + (L - 1) * BTC : ACT(tr, NL_A_ENC);
    NORM_FWD(tr, ln, last, PAR_AT(tr, NL_T_LNFW, 0), PAR_AT(tr, NL_T_LNFB, 0), n, C,
             ACT(tr, NL_A_LNF), ACT(tr, NL_A_LNF_MEAN), ACT(tr, NL_A_LNF_RSTD));
    /* the head's first vocab_size rows: llm.c's padding rows are never logits */
    FN(linear_forward)(ACT(tr, NL_A_LOGITS), ACT(tr, NL_A_LNF), PAR(tr, NL_T_HEADW),
                       PAR_AT(tr, NL_T_HEADB, 0), n, C, V);
    tr->loss = FN(crossentropy_forward)(ACT(tr, NL_A_PROBS), ACT(tr, NL_A_LOSSES),
                                        ACT(tr, NL_A_LOGITS), targets, n, V);
    tr->has_targets = targets != NULL;
    return NL_OK;
}

/* The norm's backward: dx into NL_D_NORMIN, then added to the residual
 * stream's gradient, which is the skip connection's share. */
static void FN(norm_backward)(nl_train *tr, int ln, const REAL *x, nl_gpt2_tensor gw,
                              nl_gpt2_tensor gb, size_t off, const REAL *mean,
                              const REAL *rstd, const REAL *dy, size_t n, REAL *dres, int first)
{
    size_t C = (size_t)tr->m->cfg.channels;
    const REAL *gamma = PAR_AT(tr, gw, off);
    REAL *dgamma = GRAD_AT(tr, gw, off);
    if (!gamma) { /* a model whose norms have no gain: gamma = 1, dgamma unused */
        gamma = ACT(tr, NL_D_ONES);
        dgamma = ACT(tr, NL_D_GAIN);
    }
    REAL *dbeta = GRAD_AT(tr, gb, off);
    /* the planted mistake: the other norm's backward (an RMSNorm model's
     * mean is 0, its beta gradient goes nowhere) */
    int as_ln = tr->plant == NL_PLANT_NORM ? !ln : ln;
    if (as_ln && !dbeta)
        dbeta = ACT(tr, NL_D_GAIN) + C;
    REAL *dx = first ? dres : ACT(tr, NL_D_NORMIN);
    NORM_BWD(tr, as_ln, x, gamma, mean, rstd, dy, n, C, dx, dgamma, dbeta);
    if (first)
        return;
    if (tr->plant == NL_PLANT_RESIDUAL)
        memcpy(dres, dx, n * C * sizeof *dres);
    else
        FN(add)(dres, dx, n * C);
}

int FN(nl_train_backward)(nl_train *tr)
{
    if (!tr->has_targets) {
        nl_set_error("the backward pass needs a forward pass with targets first");
        return NL_EARG;
    }
    const nl_gpt2 *m = tr->m;
    size_t C = (size_t)m->cfg.channels, L = (size_t)m->cfg.num_layers;
    size_t V = (size_t)m->cfg.vocab_size, NH = (size_t)m->cfg.num_heads;
    size_t nb = tr->nb, nt = tr->nt, n = nb * nt, rows = tr->B * tr->T;
    size_t BTC = rows * C, att = tr->B * NH * tr->T * tr->T, total = 0;
    int ln = m->norm == NL_GPT2_LAYERNORM, plant = tr->plant;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        total += m->count[i];
    memset(tr->grad_mem, 0, total * sizeof(REAL));

    REAL *dres = ACT(tr, NL_D_RES), *dln = ACT(tr, NL_D_LN), *dlogits = ACT(tr, NL_D_LOGITS);
    REAL *dfch = ACT(tr, NL_D_FCH), *datty = ACT(tr, NL_D_ATTY), *dqkv = ACT(tr, NL_D_QKV);
    const REAL *ones = ACT(tr, NL_D_ONES);
    FN(crossentropy_backward)(dlogits, ACT(tr, NL_A_PROBS), tr->targets, n, V, plant);
    FN(linear_backward)(dln, GRAD(tr, NL_T_HEADW), GRAD_AT(tr, NL_T_HEADB, 0), dlogits,
                        ACT(tr, NL_A_LNF), PAR(tr, NL_T_HEADW), ones, n, C, V, plant);
    const REAL *last = L ? ACT(tr, NL_A_RES3) + (L - 1) * BTC : ACT(tr, NL_A_ENC);
    FN(norm_backward)(tr, ln, last, NL_T_LNFW, NL_T_LNFB, 0, ACT(tr, NL_A_LNF_MEAN),
                      ACT(tr, NL_A_LNF_RSTD), dln, n, dres, 1);
    for (size_t l = L; l-- > 0;) {
        const REAL *x = l ? ACT(tr, NL_A_RES3) + (l - 1) * BTC : ACT(tr, NL_A_ENC);
        const REAL *res2 = ACT(tr, NL_A_RES2) + l * BTC, *fch = ACT(tr, NL_A_FCH) + 4 * l * BTC;
        /* the MLP: res3 = res2 + fcproj(gelu(fc(ln2(res2)))) */
        FN(linear_backward)(dfch, GRAD(tr, NL_T_FCPROJW) + l * 4 * C * C,
                            GRAD(tr, NL_T_FCPROJB) + l * C, dres,
                            ACT(tr, NL_A_FCH_GELU) + 4 * l * BTC,
                            PAR(tr, NL_T_FCPROJW) + l * 4 * C * C, ones, n, 4 * C, C, plant);
        GELU_BWD(dfch, fch, n * 4 * C, plant != NL_PLANT_GELU);
        FN(linear_backward)(dln, GRAD(tr, NL_T_FCW) + l * 4 * C * C, GRAD(tr, NL_T_FCB) + l * 4 * C,
                            dfch, ACT(tr, NL_A_LN2) + l * BTC, PAR(tr, NL_T_FCW) + l * 4 * C * C, ones, n, C, 4 * C, plant);
        FN(norm_backward)(tr, ln, res2, NL_T_LN2W, NL_T_LN2B, l * C,
                          ACT(tr, NL_A_LN2_MEAN) + l * rows, ACT(tr, NL_A_LN2_RSTD) + l * rows,
                          dln, n, dres, 0);
        /* attention: res2 = x + attproj(attention(qkv(ln1(x)))) */
        FN(linear_backward)(datty, GRAD(tr, NL_T_ATTPROJW) + l * C * C,
                            GRAD(tr, NL_T_ATTPROJB) + l * C, dres, ACT(tr, NL_A_ATTY) + l * BTC,
                            PAR(tr, NL_T_ATTPROJW) + l * C * C, ones, n, C, C, plant);
        FN(attention_backward)(tr, dqkv, datty, ACT(tr, NL_A_QKV) + 3 * l * BTC,
                               ACT(tr, NL_A_ATT) + l * att, nb, nt);
        FN(linear_backward)(dln, GRAD(tr, NL_T_QKVW) + l * 3 * C * C,
                            GRAD(tr, NL_T_QKVB) + l * 3 * C, dqkv, ACT(tr, NL_A_LN1) + l * BTC,
                            PAR(tr, NL_T_QKVW) + l * 3 * C * C, ones, n, C, 3 * C, plant);
        FN(norm_backward)(tr, ln, x, NL_T_LN1W, NL_T_LN1B, l * C,
                          ACT(tr, NL_A_LN1_MEAN) + l * rows, ACT(tr, NL_A_LN1_RSTD) + l * rows,
                          dln, n, dres, 0);
    }
    FN(encoder_backward)(GRAD(tr, NL_T_WTE), GRAD(tr, NL_T_WPE), dres, tr->inputs, nb, nt, C,
                         plant);
    return NL_OK;
}

#undef ACT
#undef PAR
#undef GRAD
#undef PAR_AT
#undef GRAD_AT
