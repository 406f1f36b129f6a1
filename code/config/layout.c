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
    if (r == 0) {
        /* Without head_dim the code divides; more heads than width is no
         * model, and would size these norms at width 0. */
        if (h->heads > c->hidden_size) {
            nl_set_error("%snum_attention_heads is %zu, more than hidden size %zu: each head would be "
                         "0 wide (and no head_dim key says otherwise)", prefix, h->heads, c->hidden_size);
            return -1;
        }
        h->head_dim = c->hidden_size / h->heads;
    }
    return 0;
}

/* Layers that are not attention (Mamba, linear attention) have mixers of
 * their own, often with a gated norm inside: said, not counted, since the
 * family rules here describe attention blocks. */
static int is_softmax_attention(const char *type)
{
    size_t n = strlen(type), k = strlen("attention");
    return n >= k && strcmp(type + n - k, "attention") == 0 && strncmp(type, "linear", 6) != 0;
}

static void note_hybrid(const cJSON *lm, nl_config *c)
{
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(lm, "layer_types");
    const cJSON *t;
    size_t other = 0;
    const char *kind = NULL;
    const cJSON *list = cJSON_IsArray(types) ? types : NULL;
    cJSON_ArrayForEach(t, list) {
        if (cJSON_IsString(t) && !is_softmax_attention(t->valuestring)) {
            other++;
            kind = t->valuestring;
        }
    }
    if (other)
        nl_note(c, "hybrid: %zu of the layers are '%s', whose mixers carry norms of their own (a gated "
                   "RMSNorm in linear-attention and Mamba mixers) that this count does not include",
                other, kind);
}

/* Jamba: layer i is attention when i % attn_layer_period ==
 * attn_layer_offset, Mamba otherwise (JambaConfig.layers_block_type).  Both
 * kinds have input_layernorm and pre_ff_layernorm; a Mamba mixer adds RMSNorms
 * on dt (mamba_dt_rank wide, "auto" = ceil(hidden / 16)), B and C
 * (mamba_d_state wide each). */
static int jamba_mixers(const cJSON *lm, const char *prefix, nl_config *c, size_t *per_layer_extra)
{
    static const char *const period_names[] = {"attn_layer_period", NULL};
    static const char *const offset_names[] = {"attn_layer_offset", NULL};
    static const char *const state_names[] = {"mamba_d_state", NULL};
    static const char *const rank_names[] = {"mamba_dt_rank", NULL};
    size_t period = 8, offset = 4, state = 16, rank = (c->hidden_size + 15) / 16;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(lm, "mamba_dt_rank");
    int rank_auto = cJSON_IsString(r) && strcmp(r->valuestring, "auto") == 0;
    if (nl_json_size(lm, period_names, prefix, &period, NULL, 0) < 0 ||
        nl_json_size(lm, offset_names, prefix, &offset, NULL, 0) < 0 ||
        nl_json_size(lm, state_names, prefix, &state, NULL, 0) < 0 ||
        (!rank_auto && nl_json_size(lm, rank_names, prefix, &rank, NULL, 0) < 0))
        return -1;
    size_t mamba = 0;
    for (size_t i = 0; i < c->num_layers; i++)
        mamba += i % period != offset;
    add(c, mamba, rank, 0, "Mamba dt_layernorm");
    add(c, 2 * mamba, state, 0, "Mamba b_layernorm + c_layernorm");
    nl_note(c, "%zu of %zu layers are Mamba, each mixer with 3 RMSNorms (dt %zu wide, B and C %zu)", mamba,
            c->num_layers, rank, state);
    /* The per-block figure describes a Mamba layer, the most common kind. */
    *per_layer_extra += mamba ? 3 : 0;
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
        /* As FalconDecoderLayer decides: a sequential block has two norms;
         * a parallel one has ln_attn and ln_mlp when num_ln_in_parallel_attn
         * is 2 (what an unset value becomes in the new decoder layout), else
         * one input_layernorm (a config may set it to 1).  The legacy
         * model_type RefinedWeb is falcon-40b's remote code, which builds
         * ln_attn and ln_mlp; RefinedWebModel (falcon-7b) builds one. */
        int legacy_40b = strcmp(c->model_type, "RefinedWeb") == 0;
        int parallel = nl_json_flag(lm, "parallel_attn", 1);
        int newdec = nl_json_flag(lm, "new_decoder_architecture", legacy_40b);
        size_t nln = 0;
        static const char *const nln_names[] = {"num_ln_in_parallel_attn", NULL};
        int set = nl_json_size(lm, nln_names, prefix, &nln, NULL, 0);
        if (set < 0)
            return -1;
        if (nln == 0 && newdec)
            nln = 2;
        per_block = !parallel ? 2 : nln == 2 ? 2 : 1;
        nl_note(c, "%s%s", !parallel ? "sequential block: two norms"
                           : per_block == 2 ? "parallel block with ln_attn and ln_mlp"
                                            : "parallel block with one input_layernorm",
                !parallel || set ? ""
                : legacy_40b     ? " (falcon-40b's RefinedWeb code builds both)"
                : newdec         ? " (num_ln_in_parallel_attn unset: 2 under new_decoder_architecture)"
                                 : "");
        break;
    }
    case NL_FAM_CHATGLM:
        /* ChatGLM2/3 choose the kind with `rmsnorm`; ChatGLM-6B (v1) has
         * no switch and builds LayerNorm.  post_layer_norm decides the
         * final norm. */
        if (nl_json_flag(lm, "rmsnorm", 0)) {
            c->shape = (nl_norm_shape){NL_RMSNORM, 1, 0, 0};
            nl_note(c, "rmsnorm: true, so RMSNorm");
        } else {
            nl_note(c, "no rmsnorm switch set: LayerNorm");
        }
        if (!nl_json_flag(lm, "post_layer_norm", 1)) {
            final = 0;
            nl_note(c, "post_layer_norm: false, so no final norm");
        }
        break;
    case NL_FAM_MPT: {
        /* transformers' MptBlock drops every norm bias; MosaicML's own
         * code picks the class by norm_type and drops biases on no_bias. */
        const cJSON *nt = cJSON_GetObjectItemCaseSensitive(lm, "norm_type");
        if (cJSON_IsString(nt) && strstr(nt->valuestring, "rmsnorm")) {
            c->shape = (nl_norm_shape){NL_RMSNORM, 1, 0, 0};
            nl_note(c, "norm_type '%s': RMSNorm", nt->valuestring);
        } else {
            nl_note(c, "LayerNorm without bias%s", cJSON_IsString(nt) ? " (norm_type names a LayerNorm)" : "");
        }
        break;
    }
    case NL_FAM_MIMO: {
        /* Each multi-token-prediction layer adds five norms of hidden width. */
        static const char *const mtp_names[] = {"num_nextn_predict_layers", NULL};
        size_t mtp = 0;
        if (nl_json_size(lm, mtp_names, prefix, &mtp, NULL, 0) < 0)
            return -1;
        add(c, 5 * mtp, H, 0, "MTP layers (5 norms each)");
        if (mtp)
            nl_note(c, "%zu multi-token-prediction layer%s, 5 norms each", mtp, mtp > 1 ? "s" : "");
        break;
    }
    case NL_FAM_OPT:
        /* Post-norm OPT (do_layer_norm_before false, e.g. 350m) has no final norm. */
        if (!nl_json_flag(lm, "do_layer_norm_before", 1)) {
            final = 0;
            nl_note(c, "post-norm: no final norm");
        }
        if (!nl_json_flag(lm, "layer_norm_elementwise_affine", 1)) {
            c->shape.weight = c->shape.bias = 0;
            nl_note(c, "norms without weight or bias");
        }
        break;
    case NL_FAM_STABLELM:
        if (nl_json_flag(lm, "use_parallel_residual", 0)) {
            per_block = 1;
            nl_note(c, "parallel residual: one norm per block");
        }
        if (nl_json_flag(lm, "qk_layernorm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            /* One LayerNorm (no bias) per head, for q and for k. */
            add(c, L * h.heads, h.head_dim, 1, "q per-head norms");
            add(c, L * h.kv_heads, h.head_dim, 1, "k per-head norms");
            per_layer_extra += h.heads + h.kv_heads;
            nl_note(c, "qk_layernorm: a LayerNorm per head");
        }
        break;
    case NL_FAM_PHI:
        nl_note(c, "parallel block: one norm");
        if (nl_json_flag(lm, "qk_layernorm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            add(c, 2 * L, H / h.heads, 0, "q_layernorm + k_layernorm");
            per_layer_extra += 2;
            nl_note(c, "qk_layernorm");
        }
        break;
    case NL_FAM_COHERE:
        nl_note(c, "parallel block: one norm");
        if (nl_json_flag(lm, "use_qk_norm", 0)) {
            if (read_heads(lm, prefix, c, &h) < 0)
                return -1;
            add(c, L, h.heads * h.head_dim, 0, "q_norm");
            add(c, L, h.kv_heads * h.head_dim, 0, "k_norm");
            per_layer_extra += 2;
            nl_note(c, "use_qk_norm");
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
            nl_note(c, "MLA: norms on the compressed q and kv");
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
        nl_note(c, "encoder-decoder: 3 norms per decoder block, a final norm per stack");
        break;
    }
    case NL_FAM_MAMBA2: {
        /* Mamba2Mixer ends in a gated RMSNorm over its inner width,
         * int(expand * hidden_size); Mamba2Block and norm_f as in Mamba. */
        static const char *const expand_names[] = {"expand", NULL};
        size_t expand = 2;
        if (nl_json_size(lm, expand_names, prefix, &expand, NULL, 0) < 0)
            return -1;
        add(c, L, expand * H, 0, "mixer gated norms");
        per_layer_extra += 1;
        nl_note(c, "a gated RMSNorm in every mixer, %zu wide (expand %zu)", expand * H, expand);
        break;
    }
    case NL_FAM_JAMBA:
        if (jamba_mixers(lm, prefix, c, &per_layer_extra) < 0)
            return -1;
        break;
    case NL_FAM_PLAIN:
        break;
    }
    note_hybrid(lm, c);

    if (fam->qk != NL_QK_NONE) {
        if (read_heads(lm, prefix, c, &h) < 0)
            return -1;
        if (fam->qk == NL_QK_HEAD) {
            add(c, 2 * L, h.head_dim, 0, "q_norm + k_norm (head_dim)");
            nl_note(c, "QK-norm over head_dim");
        } else {
            add(c, L, h.heads * h.head_dim, 0, "q_norm (all heads)");
            add(c, L, h.kv_heads * h.head_dim, 0, "k_norm (all kv heads)");
            nl_note(c, "QK-norm over the whole projection");
        }
        per_layer_extra += 2;
    }
    if (fam->per_block == 4)
        nl_note(c, "norms before and after each sublayer");
    if (fam->rule == NL_FAM_PLAIN && fam->qk == NL_QK_PROJ)
        nl_note(c, "post-norm placement");
    if (fam->embed)
        nl_note(c, "embedding norm");
    if (fam->rule == NL_FAM_PLAIN && fam->final == 0)
        nl_note(c, "post-norm: no final norm");

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
    /* A mixture of experts (Qwen3-MoE under Qwen3's row) has a whole-model
     * count the dense arithmetic below does not give: no total then. */
    static const char *const e_names[] = {"num_experts", "num_local_experts", "n_routed_experts",
                                          "moe_num_experts", NULL};
    size_t experts = 0;
    int has_experts = nl_json_size(lm, e_names, prefix, &experts, NULL, 0) > 0 && experts > 1;
    if (fam->llama_like && !has_experts) {
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
