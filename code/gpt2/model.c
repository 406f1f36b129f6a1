/* model.c — the shape of a GPT-2 model: how many elements each tensor
 * has, for llm.c's LayerNorm model, the RMSNorm model chapter 13 trains
 * and the converted one, and the memory that holds them. */
#include <string.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

/* a * b, or 0 with *ok cleared when it does not fit size_t */
static size_t mul(size_t a, size_t b, int *ok)
{
    if (b && a > SIZE_MAX / b) {
        *ok = 0;
        return 0;
    }
    return a * b;
}

const char *nl_gpt2_tensor_name(nl_gpt2_tensor t)
{
    static const char *const name[NL_GPT2_NTENSORS] = {
        "wte", "wpe", "ln1w", "ln1b", "qkvw", "qkvb", "attprojw", "attprojb", "ln2w", "ln2b",
        "fcw", "fcb", "fcprojw", "fcprojb", "lnfw", "lnfb", "headw", "headb"};
    return t >= 0 && t < NL_GPT2_NTENSORS ? name[t] : "?";
}

int nl_gpt2_tied(nl_gpt2_norm norm)
{
    return norm == NL_GPT2_LAYERNORM || norm == NL_GPT2_RMSNORM_GAIN;
}

int nl_gpt2_check_config(const nl_gpt2_config *c)
{
    const struct {
        const char *name;
        int v;
    } field[] = {
        {"max_seq_len", c->max_seq_len}, {"vocab_size", c->vocab_size},
        {"num_layers", c->num_layers},   {"num_heads", c->num_heads},
        {"channels", c->channels},       {"padded_vocab_size", c->padded_vocab_size},
    };
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
        if (field[i].v <= 0) {
            nl_set_error("%s = %d: must be positive", field[i].name, field[i].v);
            return NL_EARG;
        }
    if (c->channels % c->num_heads) {
        nl_set_error("channels = %d is not a multiple of num_heads = %d", c->channels,
                     c->num_heads);
        return NL_EARG;
    }
    if (c->padded_vocab_size < c->vocab_size) {
        nl_set_error("padded_vocab_size = %d is smaller than vocab_size = %d",
                     c->padded_vocab_size, c->vocab_size);
        return NL_EARG;
    }
    return NL_OK;
}

int nl_gpt2_counts(const nl_gpt2_config *cfg, nl_gpt2_norm norm, size_t width,
                   size_t count[NL_GPT2_NTENSORS])
{
    int ok = 1;
    size_t C = (size_t)cfg->channels, L = (size_t)cfg->num_layers, R = width;
    size_t T = (size_t)cfg->max_seq_len;
    /* llm.c keeps the padded rows of wte; the converted model keeps the
     * vocabulary only, since its head is a matrix of its own */
    int tied = nl_gpt2_tied(norm);
    size_t V = tied ? (size_t)cfg->padded_vocab_size : (size_t)cfg->vocab_size;
    memset(count, 0, NL_GPT2_NTENSORS * sizeof count[0]);
    count[NL_T_WTE] = mul(V, R, &ok);
    count[NL_T_WPE] = mul(T, R, &ok);
    count[NL_T_QKVW] = mul(L, mul(mul(3, C, &ok), R, &ok), &ok);
    count[NL_T_QKVB] = mul(L, mul(3, C, &ok), &ok);
    count[NL_T_ATTPROJW] = mul(L, mul(R, C, &ok), &ok);
    count[NL_T_ATTPROJB] = mul(L, R, &ok);
    count[NL_T_FCW] = mul(L, mul(mul(4, C, &ok), R, &ok), &ok);
    count[NL_T_FCB] = mul(L, mul(4, C, &ok), &ok);
    count[NL_T_FCPROJW] = mul(L, mul(R, mul(4, C, &ok), &ok), &ok);
    count[NL_T_FCPROJB] = mul(L, R, &ok);
    if (tied) { /* the norms keep their parameters: gamma, and LayerNorm's beta */
        count[NL_T_LN1W] = count[NL_T_LN2W] = mul(L, C, &ok);
        count[NL_T_LNFW] = C;
        if (norm == NL_GPT2_LAYERNORM) {
            count[NL_T_LN1B] = count[NL_T_LN2B] = count[NL_T_LN1W];
            count[NL_T_LNFB] = C;
        }
    } else {
        count[NL_T_HEADW] = mul(V, R, &ok);
        count[NL_T_HEADB] = V;
    }
    size_t total = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        if (total > SIZE_MAX / sizeof(double) - count[i])
            ok = 0;
        total += count[i];
    }
    if (!ok) {
        nl_set_error("a model of %d layers, %d channels, vocabulary %d, %d positions does not "
                     "fit in memory's size_t",
                     cfg->num_layers, cfg->channels, cfg->padded_vocab_size, cfg->max_seq_len);
        return NL_EARG;
    }
    return NL_OK;
}

int nl_gpt2_alloc(nl_gpt2 *m, const nl_gpt2_config *cfg, nl_gpt2_norm norm, int deferred,
                  int is_double)
{
    memset(m, 0, sizeof *m);
    int rc = nl_gpt2_check_config(cfg);
    if (rc)
        return rc;
    if (norm == NL_GPT2_CRMSNORM && cfg->channels < 2) {
        nl_set_error("Pre-CRMSNorm needs channels >= 2 (it keeps channels - 1)");
        return NL_EARG;
    }
    m->cfg = *cfg;
    m->norm = norm;
    m->deferred = deferred;
    m->is_double = is_double;
    m->width = (size_t)cfg->channels - (norm == NL_GPT2_CRMSNORM);
    rc = nl_gpt2_counts(cfg, norm, m->width, m->count);
    if (rc)
        return rc;
    size_t total = 0, elem = is_double ? sizeof(double) : sizeof(float);
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        total += m->count[i];
    m->mem = nl_alloc(total * elem);
    if (!m->mem) {
        nl_set_error("no memory for a model of %zu parameters", total);
        return NL_ENOMEM;
    }
    memset(m->mem, 0, total * elem);
    char *p = m->mem;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        m->t[i] = m->count[i] ? p : NULL;
        p += m->count[i] * elem;
    }
    if (nl_gpt2_tied(norm))
        m->t[NL_T_HEADW] = m->t[NL_T_WTE]; /* GPT-2's head is its embedding */
    return NL_OK;
}

void nl_gpt2_free(nl_gpt2 *m)
{
    nl_free(m->mem);
    memset(m, 0, sizeof *m);
}

static int copy_model(const nl_gpt2 *src, nl_gpt2 *dst, int to_double)
{
    int rc = nl_gpt2_alloc(dst, &src->cfg, src->norm, src->deferred, to_double);
    if (rc)
        return rc;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        for (size_t k = 0; k < src->count[i]; k++) {
            double v = src->is_double ? ((const double *)src->t[i])[k]
                                      : ((const float *)src->t[i])[k];
            if (to_double)
                ((double *)dst->t[i])[k] = v;
            else
                ((float *)dst->t[i])[k] = (float)v;
        }
    return NL_OK;
}

int nl_gpt2_drop_betas(const nl_gpt2 *ln, nl_gpt2 *rms)
{
    if (ln->norm != NL_GPT2_LAYERNORM) {
        nl_set_error("nl_gpt2_drop_betas: a LayerNorm model has betas to drop");
        return NL_EARG;
    }
    int rc = nl_gpt2_alloc(rms, &ln->cfg, NL_GPT2_RMSNORM_GAIN, 0, ln->is_double);
    if (rc)
        return rc;
    size_t elem = ln->is_double ? sizeof(double) : sizeof(float);
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        if (rms->count[i] && i != NL_T_HEADW)
            memcpy(rms->t[i], ln->t[i], rms->count[i] * elem);
    return NL_OK;
}

int nl_gpt2_to_double(const nl_gpt2 *src, nl_gpt2 *dst) { return copy_model(src, dst, 1); }
int nl_gpt2_to_float(const nl_gpt2 *src, nl_gpt2 *dst) { return copy_model(src, dst, 0); }

double nl_gpt2_rel_error(const double *a, const double *b, size_t n)
{
    double diff = 0, scale = 0;
    for (size_t i = 0; i < n; i++) {
        double e = a[i] - b[i];
        e = e < 0 ? -e : e;
        double s = b[i] < 0 ? -b[i] : b[i];
        if (e != e)
            return e; /* a NaN anywhere is an error of NaN, never hidden by a max */
        if (e > diff)
            diff = e;
        if (s > scale)
            scale = s;
    }
    return scale > 0 ? diff / scale : diff;
}
