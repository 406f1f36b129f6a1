/* layout.c — how many norm layers a model builds, and how wide.  The
 * textbook count is 2L + 1 (two per block, one final), and it is wrong for
 * most of the families in the table: parallel blocks share one norm,
 * Gemma-2 wraps both sublayers in norms (four), QK-norm adds two more per
 * block at head width, BLOOM and BERT normalise the embeddings, T5 has two
 * stacks and a third norm for cross-attention. */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

static const char *const head_names[] = {"num_attention_heads", "n_head", "num_heads", NULL};
static const char *const kv_names[] = {"num_key_value_heads", "num_kv_heads", NULL};
static const char *const head_dim_names[] = {"head_dim", NULL};

static void add(nl_config *c, size_t count, size_t width, int nobias, const char *what)
{
    if (count == 0 || c->ngroups == NL_CONFIG_MAX_GROUPS)
        return;
    c->groups[c->ngroups++] = (nl_norm_group){count, width, nobias, what};
}

static void note(nl_config *c, const char *text)
{
    size_t used = strlen(c->note);
    snprintf(c->note + used, sizeof c->note - used, "%s%s", used ? "; " : "", text);
}

/* Attention geometry, read only by the families that need it. */
typedef struct { size_t heads, kv_heads, head_dim; } heads_t;

static int read_heads(const cJSON *lm, const char *prefix, const nl_config *c, heads_t *h)
{
    int r = nl_json_size(lm, head_names, prefix, &h->heads, NULL, 0);
    if (r < 0)
        return -1;
    if (r == 0) {
        nl_set_error("no attention head count (looked for %s%s, %s%s): needed to size the QK-norms",
                     prefix, head_names[0], prefix, head_names[1]);
        return -1;
    }
    r = nl_json_size(lm, kv_names, prefix, &h->kv_heads, NULL, 0);
    if (r < 0)
        return -1;
    if (r == 0)
        h->kv_heads = h->heads;
    r = nl_json_size(lm, head_dim_names, prefix, &h->head_dim, NULL, 0);
    if (r < 0)
        return -1;
    if (r == 0)
        h->head_dim = c->hidden_size / h->heads;
    return 0;
}

int nl_count_norms(const nl_family *fam, const cJSON *lm, const char *prefix, nl_config *c)
{
    const size_t H = c->hidden_size, L = c->num_layers;
    size_t per_block = fam->per_block, final = fam->final, per_layer_extra = 0;
    heads_t h = {0, 0, 0};
    c->ngroups = 0;

    switch (fam->rule) {
    case NL_FAM_FALCON: {
        /* As FalconDecoderLayer decides: sequential blocks have two norms;
         * parallel ones one, or two (ln_attn, ln_mlp) in the new layout. */
        int parallel = nl_json_flag(lm, "parallel_attn", 1);
        int newdec = nl_json_flag(lm, "new_decoder_architecture", 0);
        size_t nln = 0;
        static const char *const nln_names[] = {"num_ln_in_parallel_attn", NULL};
        if (nl_json_size(lm, nln_names, prefix, &nln, NULL, 0) < 0)
            return -1;
        if (nln == 0 && newdec)
            nln = 2;
        per_block = !parallel ? 2 : nln == 2 ? 2 : 1;
        note(c, !parallel ? "sequential block" : per_block == 2 ? "parallel block, ln_attn + ln_mlp"
                                                               : "parallel block: one norm");
        break;
    }
    case NL_FAM_OPT:
        /* Post-norm OPT (do_layer_norm_before false, e.g. 350m) has no final norm. */
        if (!nl_json_flag(lm, "do_layer_norm_before", 1)) {
            final = 0;
            note(c, "post-norm: no final norm");
        }
        if (!nl_json_flag(lm, "layer_norm_elementwise_affine", 1)) {
            c->shape.weight = c->shape.bias = 0;
            note(c, "norms without weight or bias");
        }
        break;
    case NL_FAM_STABLELM:
        if (nl_json_flag(lm, "use_parallel_residual", 0)) {
            per_block = 1;
            note(c, "parallel residual: one norm per block");
        }
        if (nl_json_flag(lm, "qk_layernorm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            /* One LayerNorm (no bias) per head, for q and for k. */
            add(c, L * h.heads, h.head_dim, 1, "q per-head norms");
            add(c, L * h.kv_heads, h.head_dim, 1, "k per-head norms");
            per_layer_extra += h.heads + h.kv_heads;
            note(c, "qk_layernorm: a LayerNorm per head");
        }
        break;
    case NL_FAM_PHI:
        note(c, "parallel block: one norm");
        if (nl_json_flag(lm, "qk_layernorm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            add(c, 2 * L, H / h.heads, 0, "q_layernorm + k_layernorm");
            per_layer_extra += 2;
            note(c, "qk_layernorm");
        }
        break;
    case NL_FAM_COHERE:
        note(c, "parallel block: one norm");
        if (nl_json_flag(lm, "use_qk_norm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            add(c, L, h.heads * h.head_dim, 0, "q_norm");
            add(c, L, h.kv_heads * h.head_dim, 0, "k_norm");
            per_layer_extra += 2;
            note(c, "use_qk_norm");
        }
        break;
    case NL_FAM_DEEPSEEK: {
        /* Multi-head latent attention normalises its compressed q and kv. */
        static const char *const q_names[] = {"q_lora_rank", NULL};
        static const char *const kv_names_mla[] = {"kv_lora_rank", NULL};
        size_t qr = 0, kvr = 0;
        if (nl_json_size(lm, q_names, prefix, &qr, NULL, 0) < 0 ||
            nl_json_size(lm, kv_names_mla, prefix, &kvr, NULL, 0) < 0)
            return -1;
        add(c, qr ? L : 0, qr, 0, "q_a_layernorm");
        add(c, kvr ? L : 0, kvr, 0, "kv_a_layernorm");
        per_layer_extra += (qr ? 1 : 0) + (kvr ? 1 : 0);
        if (qr || kvr)
            note(c, "MLA: norms on the compressed q and kv");
        break;
    }
    case NL_FAM_T5: {
        static const char *const dec_names[] = {"num_decoder_layers", NULL};
        size_t Ld = 0;
        if (nl_json_size(lm, dec_names, prefix, &Ld, NULL, 0) < 0)
            return -1;
        if (Ld == 0)
            Ld = L;
        /* Encoder blocks: self-attention, feed-forward; decoder blocks add
         * cross-attention; each stack ends in its own final norm. */
        add(c, 3 * Ld, H, 0, "decoder blocks");
        note(c, "encoder-decoder: 3 norms per decoder block, a final norm per stack");
        break;
    }
    case NL_FAM_PLAIN:
        break;
    }

    if (fam->qk != NL_QK_NONE) {
        if (read_heads(lm, prefix, c, &h) < 0)
            return -1;
        if (fam->qk == NL_QK_HEAD) {
            add(c, 2 * L, h.head_dim, 0, "q_norm + k_norm (head_dim)");
            note(c, "QK-norm over head_dim");
        } else {
            add(c, L, h.heads * h.head_dim, 0, "q_norm (all heads)");
            add(c, L, h.kv_heads * h.head_dim, 0, "k_norm (all kv heads)");
            note(c, "QK-norm over the whole projection");
        }
        per_layer_extra += 2;
    }
    if (fam->per_block == 4)
        note(c, "norms before and after each sublayer");
    if (fam->rule == NL_FAM_PLAIN && fam->qk == NL_QK_PROJ)
        note(c, "post-norm placement");
    if (fam->embed)
        note(c, "embedding norm");
    if (fam->rule == NL_FAM_PLAIN && fam->final == 0)
        note(c, "post-norm: no final norm");

    /* The blocks' hidden-width norms go first: they are the 2L of 2L + 1. */
    nl_norm_group rest[NL_CONFIG_MAX_GROUPS];
    size_t nrest = c->ngroups;
    memcpy(rest, c->groups, nrest * sizeof rest[0]);
    c->ngroups = 0;
    add(c, per_block * L, H, 0, fam->rule == NL_FAM_T5 ? "encoder blocks" : "blocks");
    for (size_t i = 0; i < nrest; i++)
        add(c, rest[i].count, rest[i].width, rest[i].nobias, rest[i].what);
    add(c, final, H, 0, final > 1 ? "final (one per stack)" : "final");
    add(c, fam->embed, H, 0, "embedding");

    /* Sizes are capped at 2^24, but a product of three can still pass
     * 2^64: estimate in long double first and refuse what cannot be real. */
    long double estimate = 0;
    for (size_t i = 0; i < c->ngroups; i++)
        estimate += 2.0L * (long double)c->groups[i].count * (long double)c->groups[i].width;
    if (estimate > 0x1p62L) {
        nl_set_error("hidden size %zu x %zu layers gives about %.3Lg norm parameters: "
                     "no model is that large", H, L, estimate);
        return -1;
    }
    c->norms_per_layer = per_block + per_layer_extra;
    c->norm_layers = 0;
    for (size_t i = 0; i < c->ngroups; i++)
        c->norm_layers += c->groups[i].count;
    c->norm_params = nl_norm_total_params(c->shape, c->groups, c->ngroups);
    c->params_saved = nl_norm_params_saved(c->shape, c->groups, c->ngroups);

    c->model_params = 0;
    if (fam->llama_like) {
        /* Embedding, attention, gated MLP and norms, no biases: enough to
         * set the norms against the whole model. */
        static const char *const v_names[] = {"vocab_size", NULL};
        static const char *const i_names[] = {"intermediate_size", NULL};
        size_t V = 0, I = 0;
        /* Optional: without the geometry there is simply no total. */
        if (h.heads == 0 && nl_json_size(lm, head_names, prefix, &h.heads, NULL, 0) > 0 &&
            read_heads(lm, prefix, c, &h) < 0)
            return -1;
        if (h.heads > 0 && nl_json_size(lm, v_names, prefix, &V, NULL, 0) > 0 &&
            nl_json_size(lm, i_names, prefix, &I, NULL, 0) > 0) {
            /* Absent key: the configuration class default, True only for Gemma here. */
            int tied = nl_json_flag(lm, "tie_word_embeddings", fam->shape.weight_offset ? 1 : 0);
            size_t q = h.heads * h.head_dim, kv = h.kv_heads * h.head_dim;
            long double est = (long double)V * H * 2 +
                              (long double)L * H * ((long double)q * 2 + 2.0L * kv + 3.0L * I);
            if (est < 0x1p62L) {
                size_t per = H * q + 2 * H * kv + q * H + 3 * H * I;
                c->model_params = V * H * (tied ? 1 : 2) + L * per + c->norm_params;
            }
        }
    }
    return 0;
}
