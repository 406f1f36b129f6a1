/* train.c — what the float and double training passes share: the
 * buffers, which model kinds can train, and the dispatch to the pass of
 * the model's precision. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "gpt2/train.h"
#include "normlab.h"

const char *nl_train_plant_name(nl_train_plant p)
{
    static const char *const name[NL_PLANT_COUNT] = {
        "none", "crossentropy", "linear", "gelu", "attention", "norm", "residual",
        "embedding",
    };
    return p >= 0 && p < NL_PLANT_COUNT ? name[p] : "?";
}

int nl_gpt2_decays(nl_gpt2_tensor t)
{
    return t == NL_T_WTE || t == NL_T_WPE || t == NL_T_QKVW || t == NL_T_ATTPROJW ||
           t == NL_T_FCW || t == NL_T_FCPROJW || t == NL_T_HEADW;
}

void nl_train_buffer_sizes(const nl_train *tr, size_t size[NL_TRAIN_NBUF])
{
    const nl_gpt2_config *c = &tr->m->cfg;
    size_t L = (size_t)c->num_layers, C = (size_t)c->channels, NH = (size_t)c->num_heads;
    size_t V = (size_t)c->vocab_size, rows = tr->B * tr->T, BTC = rows * C;
    size_t per_layer[] = {
        [NL_A_LN1] = BTC, [NL_A_LN1_MEAN] = rows, [NL_A_LN1_RSTD] = rows,
        [NL_A_QKV] = 3 * BTC, [NL_A_ATT] = tr->B * NH * tr->T * tr->T, [NL_A_ATTY] = BTC,
        [NL_A_RES2] = BTC, [NL_A_LN2] = BTC, [NL_A_LN2_MEAN] = rows, [NL_A_LN2_RSTD] = rows,
        [NL_A_FCH] = 4 * BTC, [NL_A_FCH_GELU] = 4 * BTC, [NL_A_RES3] = BTC,
    };
    memset(size, 0, NL_TRAIN_NBUF * sizeof size[0]);
    for (size_t i = 0; i < sizeof per_layer / sizeof per_layer[0]; i++)
        size[i] = L * per_layer[i];
    size[NL_A_ENC] = size[NL_A_LNF] = BTC;
    size[NL_A_LNF_MEAN] = size[NL_A_LNF_RSTD] = size[NL_A_LOSSES] = rows;
    size[NL_A_LOGITS] = size[NL_A_PROBS] = size[NL_D_LOGITS] = rows * V;
    size[NL_D_RES] = size[NL_D_NORMIN] = size[NL_D_LN] = size[NL_D_ATTY] = BTC;
    size[NL_D_QKV] = 3 * BTC;
    size[NL_D_FCH] = 4 * BTC;
    size[NL_D_SCRATCH] = (size_t)tr->threads * tr->T * tr->T;
    size[NL_D_ONES] = rows > C ? rows : C; /* gamma = 1, and the bias gradients' sums */
    size[NL_D_GAIN] = 2 * C;
}

/* What the passes cannot run, named; NL_OK otherwise. */
static int trainable(const nl_gpt2 *m, size_t B, size_t T)
{
    if (m->norm == NL_GPT2_CRMSNORM || m->deferred) {
        nl_set_error("a %s model runs in normlab logits only: training takes LayerNorm, "
                     "RMSNorm and converted RMSNorm models",
                     m->deferred ? "FlashNorm" : "Pre-CRMSNorm");
        return NL_EARG;
    }
    if (B == 0 || T == 0 || T > (size_t)m->cfg.max_seq_len) {
        nl_set_error("sequences of %zu tokens: the model's context is 1 to %d tokens "
                     "(max_seq_len)", T, m->cfg.max_seq_len);
        return NL_EARG;
    }
    /* the largest buffer is the attention's, B x heads x T x T per layer */
    double elems = (double)B * (double)T * ((double)m->cfg.num_heads * (double)T +
                                            24.0 * (double)m->cfg.channels) *
                   (double)m->cfg.num_layers;
    if (elems > (double)(SIZE_MAX / 16)) {
        nl_set_error("a batch of %zu x %zu tokens needs more memory than size_t counts", B, T);
        return NL_EARG;
    }
    return NL_OK;
}

int nl_train_init(nl_train *tr, nl_gpt2 *m, size_t B, size_t T, int threads)
{
    memset(tr, 0, sizeof *tr);
    int rc = trainable(m, B, T);
    if (rc)
        return rc;
    tr->m = m, tr->B = B, tr->T = T;
    tr->threads = threads > 0 ? threads : omp_get_max_threads();
    tr->loss = NAN;
    size_t elem = m->is_double ? sizeof(double) : sizeof(float), total = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        total += m->count[i];
    size_t size[NL_TRAIN_NBUF], acts = 0;
    nl_train_buffer_sizes(tr, size);
    for (int i = 0; i < NL_TRAIN_NBUF; i++)
        acts += (size[i] + 15) / 16 * 16; /* each buffer on a 64-byte line */
    tr->grad_mem = nl_alloc(total * elem);
    tr->act_mem = nl_alloc(acts * elem);
    tr->inputs = nl_alloc(2 * B * T * sizeof(int));
    if (!tr->grad_mem || !tr->act_mem || !tr->inputs) {
        nl_train_free(tr);
        nl_set_error("no memory for training a model of %zu parameters on %zu x %zu tokens",
                     total, B, T);
        return NL_ENOMEM;
    }
    tr->targets = tr->inputs + B * T;
    memset(tr->grad_mem, 0, total * elem);
    memset(tr->act_mem, 0, acts * elem); /* an RMSNorm model's means stay 0 */
    char *p = tr->grad_mem;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        tr->g[i] = m->count[i] ? p : NULL;
        p += m->count[i] * elem;
    }
    if (nl_gpt2_tied(m->norm))
        tr->g[NL_T_HEADW] = tr->g[NL_T_WTE]; /* the head's gradient adds into wte's */
    p = tr->act_mem;
    for (int i = 0; i < NL_TRAIN_NBUF; i++) {
        tr->a[i] = p;
        p += (size[i] + 15) / 16 * 16 * elem;
    }
    for (size_t i = 0; i < size[NL_D_ONES]; i++)
        if (m->is_double)
            ((double *)tr->a[NL_D_ONES])[i] = 1;
        else
            ((float *)tr->a[NL_D_ONES])[i] = 1;
    return NL_OK;
}

void nl_train_free(nl_train *tr)
{
    nl_free(tr->grad_mem);
    nl_free(tr->act_mem);
    nl_free(tr->inputs);
    memset(tr, 0, sizeof *tr);
}

int nl_train_forward(nl_train *tr, const int *inputs, const int *targets, size_t nb, size_t nt)
{
    return tr->m->is_double ? nl_train_forward_d(tr, inputs, targets, nb, nt)
                            : nl_train_forward_f(tr, inputs, targets, nb, nt);
}

int nl_train_backward(nl_train *tr)
{
    return tr->m->is_double ? nl_train_backward_d(tr) : nl_train_backward_f(tr);
}

const void *nl_train_logits(const nl_train *tr, size_t b, size_t t)
{
    size_t at = (b * tr->nt + t) * (size_t)tr->m->cfg.vocab_size;
    return tr->m->is_double ? (const void *)((const double *)tr->a[NL_A_LOGITS] + at)
                            : (const void *)((const float *)tr->a[NL_A_LOGITS] + at);
}
