/* gradcheck.c — the whole model's gradient against finite differences
 * (chapter 13): every parameter of a double model nudged up and down, the
 * loss's central difference beside the backward pass's gradient, tensor
 * by tensor.  For small models: two forward passes a parameter. */
#include <math.h>
#include <string.h>

#include "gpt2/train.h"
#include "normlab.h"

int nl_train_finite_differences(nl_train *tr, const int *inputs, const int *targets, size_t nb,
                                size_t nt, double h, double *fd)
{
    nl_gpt2 *m = tr->m;
    if (!m->is_double) {
        nl_set_error("finite differences need the double model: in float, h's rounding "
                     "swamps the difference");
        return NL_EARG;
    }
    size_t total = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        total += m->count[i];
    double *p = m->mem;
    for (size_t k = 0; k < total; k++) {
        double keep = p[k], up, down;
        p[k] = keep + h;
        int rc = nl_train_forward(tr, inputs, targets, nb, nt);
        up = tr->loss;
        p[k] = keep - h;
        if (rc == NL_OK)
            rc = nl_train_forward(tr, inputs, targets, nb, nt);
        down = tr->loss;
        p[k] = keep;
        if (rc)
            return rc;
        fd[k] = (up - down) / (2 * h);
    }
    return NL_OK;
}

double nl_train_grad_error(const nl_train *tr, const double *fd, int *which)
{
    const double *g = tr->grad_mem;
    double worst = 0;
    size_t at = 0;
    *which = -1;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        size_t n = tr->m->count[i];
        double e = n ? nl_grad_rel_err_d(g + at, fd + at, n) : 0;
        if (!(e <= worst)) { /* a NaN is the worst of all */
            worst = e;
            *which = i;
        }
        at += n;
    }
    return worst;
}

int nl_train_gradcheck_model(int kind, const nl_gpt2_config *cfg, uint64_t seed, nl_gpt2 *md)
{
    nl_gpt2 ln, lnd;
    int rc = nl_gpt2_random(&ln, cfg, seed);
    if (rc == NL_OK)
        rc = nl_gpt2_to_double(&ln, &lnd);
    nl_gpt2_free(&ln);
    if (rc)
        return rc;
    if (kind == 0) {
        *md = lnd;
        return NL_OK;
    }
    if (kind == 1) {
        rc = nl_gpt2_drop_betas(&lnd, md);
    } else {
        nl_gpt2_convert_opts o = nl_gpt2_convert_default();
        rc = nl_gpt2_convert(&lnd, &o, md);
    }
    nl_gpt2_free(&lnd);
    return rc;
}

int nl_train_gradcheck(nl_gpt2 *md, const int *inputs, const int *targets, size_t nb, size_t nt,
                       double h, nl_gradcheck_report *r)
{
    memset(r, 0, sizeof *r);
    nl_train tr;
    int rc = nl_train_init(&tr, md, nb, nt, 1);
    if (rc)
        return rc;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        r->params += md->count[i];
    double *fd = nl_alloc(r->params * sizeof *fd);
    rc = fd ? nl_train_finite_differences(&tr, inputs, targets, nb, nt, h, fd) : NL_ENOMEM;
    for (int p = 0; rc == NL_OK && p < NL_PLANT_COUNT; p++) {
        tr.plant = p;
        rc = nl_train_forward(&tr, inputs, targets, nb, nt);
        if (rc == NL_OK)
            rc = nl_train_backward(&tr);
        r->error[p] = nl_train_grad_error(&tr, fd, &r->tensor[p]);
    }
    nl_free(fd);
    nl_train_free(&tr);
    return rc;
}
