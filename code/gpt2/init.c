/* init.c — a GPT-2 to train from scratch, initialised as GPT-2 is
 * (karpathy/llm.c train_gpt2.py, GPT._init_weights: std 0.02, and
 * 0.02 / sqrt(2 L) for the projections flagged LLMC_RESIDUAL_SCALE_FLAG,
 * the attention's and the MLP's c_proj; biases zeros; nn.LayerNorm's
 * own defaults, weight 1 and bias 0). */
#include <math.h>

#include "gpt2/train.h"
#include "normlab.h"

int nl_gpt2_init(nl_gpt2 *m, const nl_gpt2_config *cfg, nl_gpt2_norm norm, uint64_t seed)
{
    if (norm != NL_GPT2_LAYERNORM && norm != NL_GPT2_RMSNORM_GAIN) {
        nl_set_error("a model trained from scratch is LayerNorm or RMSNorm with gains");
        return NL_EARG;
    }
    int rc = nl_gpt2_alloc(m, cfg, norm, 0, 0);
    if (rc)
        return rc;
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    double residual = 0.02 / sqrt(2.0 * cfg->num_layers);
    /* in llm.c's tensor order; gains and betas draw nothing, so that both
     * norms' models take the same draws for every other weight */
    const struct {
        nl_gpt2_tensor t;
        double sd;
    } drawn[] = {
        {NL_T_WTE, 0.02}, {NL_T_WPE, 0.02}, {NL_T_QKVW, 0.02}, {NL_T_ATTPROJW, residual},
        {NL_T_FCW, 0.02}, {NL_T_FCPROJW, residual},
    };
    for (size_t k = 0; k < sizeof drawn / sizeof drawn[0]; k++) {
        float *p = m->t[drawn[k].t];
        size_t n = m->count[drawn[k].t];
        if (drawn[k].t == NL_T_WTE) /* the padding rows stay zero, as llm.c writes them */
            n = (size_t)cfg->vocab_size * (size_t)cfg->channels;
        for (size_t i = 0; i < n; i++)
            p[i] = (float)nl_pyrandom_gauss(&r, 0.0, drawn[k].sd);
    }
    const nl_gpt2_tensor gains[] = {NL_T_LN1W, NL_T_LN2W, NL_T_LNFW};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < m->count[gains[k]]; i++)
            ((float *)m->t[gains[k]])[i] = 1.0f;
    return NL_OK;
}
