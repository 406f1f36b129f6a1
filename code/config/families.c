/* families.c — what each architecture really builds.  The norm kind comes
 * from here, keyed by model_type, never from the name of the eps key: T5
 * and Mamba read `layer_norm_epsilon` and build RMSNorms.  Every row was
 * checked against the Hugging Face transformers modeling file in `source`
 * (chapter 4 names their folders under src/transformers/models/). */
#include <string.h>

#include "config/config_internal.h"

#define LN      {NL_LAYERNORM, 1, 1, 0}
#define LN_NOB  {NL_LAYERNORM, 1, 0, 0}
#define LN_BARE {NL_LAYERNORM, 0, 0, 0}
#define RMS     {NL_RMSNORM, 1, 0, 0}
#define RMS_1PW {NL_RMSNORM, 1, 0, 1}

// @snippet family-table
static const nl_family families[] = {
/* types                       label       shape    eps key               default
 *   blk fin emb qk          rule             llama source */
  {"gpt2",                    "GPT-2",    LN,      "layer_norm_epsilon", 1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "gpt2/modeling_gpt2.py"},
  {"gpt_neox",                "GPT-NeoX", LN,      "layer_norm_eps",     1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "gpt_neox/modeling_gpt_neox.py"},
  {"gptj",                    "GPT-J",    LN,      "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "gptj/modeling_gptj.py"},
  {"phi",                     "Phi",      LN,      "layer_norm_eps",     1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PHI,      0,    "phi/modeling_phi.py"},
  {"stablelm",                "StableLM", LN,      "layer_norm_eps",     1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_STABLELM, 0,    "stablelm/modeling_stablelm.py"},
  {"falcon",                  "Falcon",   LN,      "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_FALCON,   0,    "falcon/modeling_falcon.py"},
  {"bloom",                   "BLOOM",    LN,      "layer_norm_epsilon", 1e-5,
     2,  1,  1,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "bloom/modeling_bloom.py"},
  {"opt",                     "OPT",      LN,      "",                   1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_OPT,      0,    "opt/modeling_opt.py"},
  {"bert roberta",            "BERT",     LN,      "layer_norm_eps",     1e-12,
     2,  0,  1,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "bert/modeling_bert.py"},
  {"olmo",                    "OLMo",     LN_BARE, "",                   1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "olmo/modeling_olmo.py"},
  {"cohere",                  "Cohere",   LN_NOB,  "layer_norm_eps",     1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_COHERE,   0,    "cohere/modeling_cohere.py"},
  {"llama",                   "Llama",    RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "llama/modeling_llama.py"},
  {"mistral",                 "Mistral",  RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "mistral/modeling_mistral.py"},
  {"mixtral",                 "Mixtral",  RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "mixtral/modeling_mixtral.py"},
  {"qwen2 qwen2_moe",         "Qwen2",    RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "qwen2/modeling_qwen2.py"},
  {"qwen3 qwen3_moe",         "Qwen3",    RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_HEAD, NL_FAM_PLAIN,    1,    "qwen3/modeling_qwen3.py"},
  {"phi3",                    "Phi-3",    RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "phi3/modeling_phi3.py"},
  {"olmo2",                   "OLMo-2",   RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_PROJ, NL_FAM_PLAIN,    1,    "olmo2/modeling_olmo2.py"},
  {"gemma",                   "Gemma",    RMS_1PW, "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "gemma/modeling_gemma.py"},
  {"gemma2",                  "Gemma-2",  RMS_1PW, "rms_norm_eps",       1e-6,
     4,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "gemma2/modeling_gemma2.py"},
  {"gemma3 gemma3_text",      "Gemma-3",  RMS_1PW, "rms_norm_eps",       1e-6,
     4,  1,  0,  NL_QK_HEAD, NL_FAM_PLAIN,    0,    "gemma3/modeling_gemma3.py"},
  {"deepseek_v2 deepseek_v3", "DeepSeek", RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_DEEPSEEK, 0,    "deepseek_v3/modeling_deepseek_v3.py"},
  {"t5",                      "T5",       RMS,     "layer_norm_epsilon", 1e-6,
     2,  2,  0,  NL_QK_NONE, NL_FAM_T5,       0,    "t5/modeling_t5.py"},
  {"mamba",                   "Mamba",    RMS,     "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "mamba/modeling_mamba.py"},
};
// @end

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *sp = strchr(p, ' ');
        size_t len = sp ? (size_t)(sp - p) : strlen(p);
        if (len == n && memcmp(p, word, n) == 0)
            return 1;
        if (!sp)
            break;
        p = sp + 1;
    }
    return 0;
}

const nl_family *nl_family_find(const char *model_type)
{
    if (!model_type || !*model_type)
        return NULL;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (has_word(families[i].types, model_type))
            return &families[i];
    return NULL;
}

const nl_family *nl_families(size_t *count)
{
    *count = sizeof families / sizeof families[0];
    return families;
}
