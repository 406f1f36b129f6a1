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
 *   blk fin emb qk          rule             llama archs (class-name stems)
 *   source */
  {"gpt2",                    "GPT-2",    LN,      "layer_norm_epsilon", 1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "GPT2",
     "gpt2/modeling_gpt2.py"},
  {"gpt_bigcode",             "GPTBigCode", LN,    "layer_norm_epsilon", 1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "GPTBigCode",
     "gpt_bigcode/modeling_gpt_bigcode.py"},
  {"gpt_neox",                "GPT-NeoX", LN,      "layer_norm_eps",     1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "GPTNeoX",
     "gpt_neox/modeling_gpt_neox.py"},
  {"gptj",                    "GPT-J",    LN,      "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "GPTJ",
     "gptj/modeling_gptj.py"},
  {"phi",                     "Phi",      LN,      "layer_norm_eps",     1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PHI,      0,    "Phi",
     "phi/modeling_phi.py"},
  {"",                        "Phi (MixFormer, remote code)", LN, "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PHI,      0,    "MixFormerSequential",
     "microsoft/phi-1_5 modeling_mixformer_sequential.py"},
  {"stablelm",                "StableLM", LN,      "layer_norm_eps",     1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_STABLELM, 0,    "StableLm",
     "stablelm/modeling_stablelm.py"},
  {"falcon",                  "Falcon",   LN,      "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_FALCON,   0,    "Falcon",
     "falcon/modeling_falcon.py"},
  {"",                        "Falcon (RefinedWeb, remote code)", LN, "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_FALCON,   0,    "RW",
     "tiiuae/falcon-40b modelling_RW.py"},
  {"bloom",                   "BLOOM",    LN,      "layer_norm_epsilon", 1e-5,
     2,  1,  1,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Bloom",
     "bloom/modeling_bloom.py"},
  {"opt",                     "OPT",      LN,      "",                   1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_OPT,      0,    "OPT",
     "opt/modeling_opt.py"},
  {"mpt",                     "MPT",      LN_NOB,  "layer_norm_epsilon", 1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_MPT,      0,    "MPT Mpt",
     "mpt/modeling_mpt.py"},
  {"bert roberta",            "BERT",     LN,      "layer_norm_eps",     1e-12,
     2,  0,  1,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Bert Roberta",
     "bert/modeling_bert.py"},
  {"olmo",                    "OLMo",     LN_BARE, "",                   1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Olmo",
     "olmo/modeling_olmo.py"},
  {"cohere",                  "Cohere",   LN_NOB,  "layer_norm_eps",     1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_COHERE,   0,    "Cohere",
     "cohere/modeling_cohere.py"},
  {"chatglm",                 "ChatGLM (remote code)", LN, "layernorm_epsilon", 1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_CHATGLM,  0,    "ChatGLM",
     "THUDM/chatglm2-6b modeling_chatglm.py"},
  {"llama",                   "Llama",    RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "Llama",
     "llama/modeling_llama.py"},
  {"mistral",                 "Mistral",  RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "Mistral",
     "mistral/modeling_mistral.py"},
  {"mixtral",                 "Mixtral",  RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Mixtral",
     "mixtral/modeling_mixtral.py"},
  {"granite granitemoe",      "Granite",  RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Granite GraniteMoe",
     "granite/modeling_granite.py, granitemoe/modeling_granitemoe.py"},
  {"qwen",                    "Qwen (v1, remote code)", RMS, "layer_norm_epsilon", 1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "QWen",
     "Qwen/Qwen-7B modeling_qwen.py"},
  {"qwen2 qwen2_moe qwen2_vl qwen2_5_vl", "Qwen2", RMS, "rms_norm_eps", 1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Qwen2 Qwen2Moe Qwen2VL Qwen2_5_VL",
     "qwen2/modeling_qwen2.py, qwen2_vl/modeling_qwen2_vl.py"},
  {"mimo",                    "MiMo (remote code)", RMS, "rms_norm_eps", 1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_MIMO,     0,    "MiMo",
     "XiaomiMiMo/MiMo-7B modeling_mimo.py"},
  {"qwen3 qwen3_moe qwen3_vl qwen3_vl_text", "Qwen3", RMS, "rms_norm_eps", 1e-6,
     2,  1,  0,  NL_QK_HEAD, NL_FAM_PLAIN,    1,    "Qwen3 Qwen3Moe Qwen3VL",
     "qwen3/modeling_qwen3.py, qwen3_vl/modeling_qwen3_vl.py"},
  {"PanguEmbedded",           "openPangu (remote code)", RMS, "rms_norm_eps", 1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "PanguEmbedded",
     "openPangu-Embedded modeling_openpangu_dense.py"},
  {"phi3",                    "Phi-3",    RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "Phi3",
     "phi3/modeling_phi3.py"},
  {"olmo2",                   "OLMo-2",   RMS,     "rms_norm_eps",       1e-5,
     2,  1,  0,  NL_QK_PROJ, NL_FAM_PLAIN,    1,    "Olmo2",
     "olmo2/modeling_olmo2.py"},
  {"gemma",                   "Gemma",    RMS_1PW, "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    1,    "Gemma",
     "gemma/modeling_gemma.py"},
  {"gemma2",                  "Gemma-2",  RMS_1PW, "rms_norm_eps",       1e-6,
     4,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Gemma2",
     "gemma2/modeling_gemma2.py"},
  {"gemma3 gemma3_text",      "Gemma-3",  RMS_1PW, "rms_norm_eps",       1e-6,
     4,  1,  0,  NL_QK_HEAD, NL_FAM_PLAIN,    0,    "Gemma3",
     "gemma3/modeling_gemma3.py"},
  {"deepseek_v2",             "DeepSeek-V2", RMS,  "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_DEEPSEEK, 0,    "DeepseekV2",
     "deepseek_v2/modeling_deepseek_v2.py"},
  {"deepseek_v3",             "DeepSeek-V3", RMS,  "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_DEEPSEEK, 0,    "DeepseekV3",
     "deepseek_v3/modeling_deepseek_v3.py"},
  {"mamba2",                  "Mamba-2",  RMS,     "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_MAMBA2,   0,    "Mamba2",
     "mamba2/modeling_mamba2.py"},
  {"jamba",                   "Jamba",    RMS,     "rms_norm_eps",       1e-6,
     2,  1,  0,  NL_QK_NONE, NL_FAM_JAMBA,    0,    "Jamba",
     "jamba/modeling_jamba.py"},
  {"t5",                      "T5",       RMS,     "layer_norm_epsilon", 1e-6,
     2,  2,  0,  NL_QK_NONE, NL_FAM_T5,       0,    "T5",
     "t5/modeling_t5.py"},
  {"mamba",                   "Mamba",    RMS,     "layer_norm_epsilon", 1e-5,
     1,  1,  0,  NL_QK_NONE, NL_FAM_PLAIN,    0,    "Mamba",
     "mamba/modeling_mamba.py"},
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

/* "LlamaForCausalLM" -> "Llama", "QWenLMHeadModel" -> "QWen",
 * "ChatGLMModel" -> "ChatGLM", "RWConfig" -> "RW": the name before a
 * "For" that starts a word (not the one in "MixFormer"), else before a
 * final "LMHeadModel", "Model" or "Config". */
static size_t class_stem(const char *name)
{
    for (const char *p = strstr(name, "For"); p; p = strstr(p + 1, "For"))
        if (p > name && p[3] >= 'A' && p[3] <= 'Z')
            return (size_t)(p - name);
    static const char *const endings[] = {"LMHeadModel", "Model", "Config", NULL};
    size_t n = strlen(name);
    for (size_t i = 0; endings[i]; i++) {
        size_t k = strlen(endings[i]);
        if (n > k && strcmp(name + n - k, endings[i]) == 0)
            return n - k;
    }
    return n;
}

static const nl_family *by_class(const char *name)
{
    if (!name)
        return NULL;
    /* auto_map values are module.Class, maybe behind a "repo--" prefix. */
    const char *dot = strrchr(name, '.');
    if (dot)
        name = dot + 1;
    size_t n = class_stem(name);
    char stem[128];
    if (n == 0 || n >= sizeof stem)
        return NULL;
    memcpy(stem, name, n);
    stem[n] = '\0';
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (has_word(families[i].archs, stem))
            return &families[i];
    return NULL;
}

const nl_family *nl_family_resolve(const cJSON *root, const cJSON *lm, const char **how,
                                   const char **what)
{
    const cJSON *where[2] = {lm, root};
    for (int w = 0; w < (lm == root ? 1 : 2); w++) {
        const cJSON *archs = cJSON_GetObjectItemCaseSensitive(where[w], "architectures");
        const cJSON *a;
        const cJSON *list = cJSON_IsArray(archs) ? archs : NULL;
        cJSON_ArrayForEach(a, list) {
            const nl_family *f = cJSON_IsString(a) ? by_class(a->valuestring) : NULL;
            if (f) {
                *how = "architectures";
                *what = a->valuestring;
                return f;
            }
        }
        const cJSON *map = cJSON_GetObjectItemCaseSensitive(where[w], "auto_map");
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(map, "AutoConfig");
        const nl_family *f = cJSON_IsString(cfg) ? by_class(cfg->valuestring) : NULL;
        if (f) {
            *how = "auto_map.AutoConfig";
            *what = cfg->valuestring;
            return f;
        }
    }
    /* Multi-head latent attention is DeepSeek's, whatever the name. */
    if (cJSON_GetObjectItemCaseSensitive(lm, "kv_lora_rank")) {
        *how = "its fields";
        *what = "kv_lora_rank (multi-head latent attention)";
        return nl_family_find("deepseek_v3");
    }
    return NULL;
}

const nl_family *nl_families(size_t *count)
{
    *count = sizeof families / sizeof families[0];
    return families;
}
