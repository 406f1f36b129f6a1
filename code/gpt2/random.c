/* random.c — small random GPT-2 checkpoints in llm.c's layout, so that
 * the tests need nothing downloaded.  The draws have means away from 0
 * on purpose: centring removes a mean, and a test of it on data whose
 * mean is already 0 would prove nothing. */
#include <math.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

int nl_gpt2_random(nl_gpt2 *m, const nl_gpt2_config *cfg, uint64_t seed)
{
    int rc = nl_gpt2_alloc(m, cfg, NL_GPT2_LAYERNORM, 0, 0);
    if (rc)
        return rc;
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    double C = cfg->channels;
    /* mean and spread of each tensor's values; matrices spread 1/sqrt(in)
     * so that activations stay of order 1 through the layers */
    const struct {
        nl_gpt2_tensor t;
        double mean, sd;
    } law[] = {
        {NL_T_WTE, 0.1, 0.5},          {NL_T_WPE, -0.05, 0.2},
        {NL_T_LN1W, 1.0, 0.2},         {NL_T_LN1B, 0.05, 0.2},
        {NL_T_QKVW, 0.02, 1 / sqrt(C)}, {NL_T_QKVB, 0.02, 0.1},
        {NL_T_ATTPROJW, 0.03, 1 / sqrt(C)}, {NL_T_ATTPROJB, 0.05, 0.1},
        {NL_T_LN2W, 1.0, 0.2},         {NL_T_LN2B, -0.05, 0.2},
        {NL_T_FCW, 0.02, 1 / sqrt(C)}, {NL_T_FCB, 0.02, 0.1},
        {NL_T_FCPROJW, 0.03, 0.5 / sqrt(C)}, {NL_T_FCPROJB, -0.05, 0.1},
        {NL_T_LNFW, 1.0, 0.2},         {NL_T_LNFB, 0.1, 0.2},
    };
    for (size_t k = 0; k < sizeof law / sizeof law[0]; k++) {
        float *p = m->t[law[k].t];
        size_t n = m->count[law[k].t];
        if (law[k].t == NL_T_WTE) /* llm.c leaves the padding rows zero */
            n = (size_t)cfg->vocab_size * (size_t)cfg->channels;
        for (size_t i = 0; i < n; i++)
            p[i] = (float)nl_pyrandom_gauss(&r, law[k].mean, law[k].sd);
    }
    return NL_OK;
}
