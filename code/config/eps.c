/* eps.c — finding eps in a config.json.  The key has no fixed name (seven
 * spellings below), multimodal configs nest the language model under
 * `text_config` beside other towers that carry their own eps, and some
 * architectures write no key at all and hard-code the value. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

// @snippet eps-key-names
static const char *const eps_names[] = {
    "rms_norm_eps",        /* Llama, Mistral, Qwen2/3, Gemma, OLMo-2, DeepSeek, Granite */
    "layer_norm_eps",      /* GPT-NeoX, Phi, StableLM, BERT, Cohere */
    "layer_norm_epsilon",  /* GPT-2, GPT-J, Falcon, BLOOM, MPT; RMSNorm in T5, Mamba, Qwen v1 */
    "norm_epsilon",        /* Starcoder2 (configuration_starcoder2.py) */
    "norm_eps",            /* Nemotron's LayerNorm1P (configuration_nemotron.py) */
    "rms_norm_epsilon",    /* read by no family in families.c: found only for a guess */
    "layernorm_epsilon",   /* ChatGLM (remote code: configuration_chatglm.py) */
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
                    nl_set_error("key '%s' is a string (\"%.40s\"), expected a number: "
                                 "eps is written without quotes", key, item->valuestring);
                else
                    nl_set_error("key '%s' is %s, expected a number (eps)", key,
                                 nl_json_kind(item));
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

/* The value of another spelling, for the note (0 if absent or unusable). */
static int other_spelling(const cJSON *root, const char *name, double *v, const char **path)
{
    const char *prefix;
    const cJSON *lm = nl_language_model(root, &prefix);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(lm, name);
    *path = prefix;
    if (!item && lm != root) {
        item = cJSON_GetObjectItemCaseSensitive(root, name);
        *path = "";
    }
    return item && nl_json_number(item, v);
}

/* The key the family's code reads, and only that one: a Llama config
 * whose eps sits under layer_norm_eps gets LlamaConfig's default, because
 * that is what the model runs with.  Other spellings are named in the
 * note, with whether their values agree.  An unrecognised family (fam
 * NULL) takes the first spelling found, in the order of eps_names. */
nl_eps_status nl_eps_for_family(const nl_family *fam, const cJSON *root, nl_config *c)
{
    const char *own[2] = {fam ? fam->eps_key : NULL, NULL};
    nl_eps_status st = NL_EPS_MISSING;
    c->eps_key[0] = '\0';
    if (!fam || fam->eps_key[0])
        st = nl_eps_find(root, fam ? own : eps_names, &c->eps, c->eps_key, sizeof c->eps_key);
    if (st == NL_EPS_BAD)
        return st;
    if (st == NL_EPS_MISSING) {
        c->eps_is_default = 1;
        c->eps = fam ? fam->default_eps : 0.0;   /* a guess sets its own */
    }
    const char *used = strrchr(c->eps_key, '.');
    used = used ? used + 1 : c->eps_key;
    for (size_t i = 0; eps_names[i]; i++) {
        double v;
        const char *path;
        if (!strcmp(eps_names[i], used) || !other_spelling(root, eps_names[i], &v, &path))
            continue;
        if (st == NL_EPS_FOUND)
            nl_note(c, "%s%s = %g is also present (%s); %s is the key read", path, eps_names[i], v,
                    v == c->eps ? "the same value" : "a different value", c->eps_key);
        else if (fam && fam->eps_key[0])
            nl_note(c, "%s%s = %g is present, but %s reads %s: its default %g is what runs", path,
                    eps_names[i], v, fam->label, fam->eps_key, c->eps);
        else if (fam)
            nl_note(c, "%s%s = %g is present, but %s's code reads no eps key: it uses %g", path,
                    eps_names[i], v, fam->label, c->eps);
    }
    return st;
}
