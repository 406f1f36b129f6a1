/* optim.c — the two optimizers of chapter 13: SGD, whose one step the
 * tests hold to p - lr g exactly, and AdamW, whose update of one tensor
 * is adamw.c's.  Weight decay touches 2-D tensors only (nl_gpt2_decays). */
#include <stdlib.h>
#include <string.h>

#include "gpt2/train.h"
#include "normlab.h"

nl_optim nl_optim_default(nl_optim_kind kind, float lr, float weight_decay)
{
    /* betas as llm.c's train_gpt2.py passes them to torch.optim.AdamW */
    return (nl_optim){.kind = kind, .lr = lr, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                      .weight_decay = weight_decay};
}

static void sgd_update(float *p, const float *g, size_t n, float lr, float wd)
{
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++)
        p[i] -= lr * (g[i] + wd * p[i]);
}

int nl_optim_step(nl_optim *o, nl_train *tr)
{
    nl_gpt2 *m = tr->m;
    if (m->is_double) {
        nl_set_error("the optimizers update a float model");
        return NL_EARG;
    }
    size_t total = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        total += m->count[i];
    if (o->kind == NL_OPTIM_ADAMW && !o->mom) {
        o->mom = calloc(2 * total, sizeof(float));
        if (!o->mom) {
            nl_set_error("no memory for AdamW's moments of %zu parameters", total);
            return NL_ENOMEM;
        }
        o->vel = o->mom + total;
        o->n = total;
    }
    o->t++;
    size_t at = 0; /* the tensor's place in the moments, as in the model's memory */
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        size_t n = m->count[i];
        if (!n)
            continue;
        float wd = nl_gpt2_decays((nl_gpt2_tensor)i) ? o->weight_decay : 0.0f;
        if (o->kind == NL_OPTIM_SGD)
            sgd_update(m->t[i], tr->g[i], n, o->lr, wd);
        else
            nl_adamw_update(m->t[i], tr->g[i], o->mom + at, o->vel + at, n, o->lr, o->beta1,
                            o->beta2, o->eps, wd, o->t);
        at += n;
    }
    return NL_OK;
}

void nl_optim_free(nl_optim *o)
{
    free(o->mom);
    o->mom = o->vel = NULL;
}
