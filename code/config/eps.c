/* eps.c — finding eps in a config.json.  The key has no fixed name (six
 * spellings are in use), multimodal configs nest the language model under
 * `text_config` beside other towers that carry their own eps, and some
 * architectures write no key at all and hard-code the value. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

// @snippet eps-key-names
static const char *const eps_names[] = {
    "rms_norm_eps",        /* Llama, Mistral, Qwen, Gemma, OLMo-2, DeepSeek */
    "layer_norm_eps",      /* GPT-NeoX, Phi, StableLM, BERT, Cohere */
    "layer_norm_epsilon",  /* GPT-2, GPT-J, Falcon, BLOOM, and RMSNorm in T5, Mamba */
    "norm_epsilon",
    "norm_eps",
    "rms_norm_epsilon",
    "layernorm_epsilon",
    NULL,
};
// @end

const char *const *nl_eps_key_names(void) { return eps_names; }

const cJSON *nl_language_model(const cJSON *root, const char **prefix)
{
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (cJSON_IsObject(text)) {
        *prefix = "text_config.";
        return text;
    }
    *prefix = "";
    return root;
}

// @snippet eps-find
nl_eps_status nl_eps_find(const cJSON *root, const char *const *names,
                          double *eps, char *key, size_t keylen)
{
    // @exercise 04-eps-key
    /* The language model's own object first: at the root of a multimodal
     * config there may be nothing, or a value that is not the LM's. */
    const char *prefix;
    const cJSON *lm = nl_language_model(root, &prefix);
    const cJSON *where[2] = {lm, root};
    const char *path[2] = {prefix, ""};
    int nwhere = lm == root ? 1 : 2;

    for (int w = 0; w < nwhere; w++) {
        for (size_t i = 0; names[i]; i++) {
            const cJSON *item = cJSON_GetObjectItemCaseSensitive(where[w], names[i]);
            if (!item)
                continue;
            snprintf(key, keylen, "%s%s", path[w], names[i]);
            double v;
            if (!nl_json_number(item, &v)) {
                if (cJSON_IsString(item))
                    nl_set_error("key '%s' is a string (\"%.40s\"), expected a number: eps is written "
                                 "without quotes", key, item->valuestring);
                else
                    nl_set_error("key '%s' is %s, expected a number (eps)", key, nl_json_kind(item));
                return NL_EPS_BAD;
            }
            if (!(v > 0.0) || isinf(v)) {
                nl_set_error("key '%s' is %g: eps must be a positive finite number", key, v);
                return NL_EPS_BAD;
            }
            *eps = v;
            return NL_EPS_FOUND;
        }
    }
    key[0] = '\0';
    return NL_EPS_MISSING;
    // @stub (void)root; (void)names; (void)eps; (void)keylen;
    // @stub key[0] = '\0';
    // @stub return NL_EPS_MISSING;
    // @end
}
// @end
