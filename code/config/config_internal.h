/* config_internal.h — what the parts of the config reader share and the
 * rest of the library does not need to see: cJSON, and the family table. */
#ifndef NL_CONFIG_INTERNAL_H
#define NL_CONFIG_INTERNAL_H

#include <cJSON.h>

#include "normlab.h"

/* Config switches some families read to decide how many norms they build. */
typedef enum {
    NL_FAM_PLAIN = 0,  /* per_block + final + embed, nothing read from the config */
    NL_FAM_FALCON,     /* parallel_attn, new_decoder_architecture, num_ln_in_parallel_attn */
    NL_FAM_OPT,        /* do_layer_norm_before, layer_norm_elementwise_affine, enable_bias */
    NL_FAM_T5,         /* encoder and decoder stacks */
    NL_FAM_STABLELM,   /* use_parallel_residual, qk_layernorm */
    NL_FAM_PHI,        /* qk_layernorm */
    NL_FAM_COHERE,     /* use_qk_norm */
    NL_FAM_DEEPSEEK,   /* q_lora_rank, kv_lora_rank */
    NL_FAM_CHATGLM,    /* rmsnorm, post_layer_norm */
    NL_FAM_MPT,        /* norm_type, no_bias */
    NL_FAM_MIMO,       /* num_nextn_predict_layers: multi-token prediction layers */
    NL_FAM_MAMBA2,     /* expand: the width of each mixer's gated norm */
    NL_FAM_JAMBA,      /* attn_layer_period/offset, mamba_d_state, mamba_dt_rank */
} nl_fam_rule;

/* Where a family's QK-norms live, if it has them. */
typedef enum {
    NL_QK_NONE = 0,
    NL_QK_HEAD,        /* one norm of width head_dim for q, one for k (Qwen3, Gemma-3) */
    NL_QK_PROJ,        /* over the whole projection: heads*head_dim and kv_heads*head_dim (OLMo-2) */
} nl_qk;

typedef struct {
    const char   *types;       /* model_type values, space separated */
    const char   *label;
    nl_norm_shape shape;
    const char   *eps_key;     /* the key its configuration class reads ("" = none: hard-coded) */
    double        default_eps; /* what the code uses when the key is absent */
    unsigned      per_block;   /* hidden-width norms in one block */
    unsigned      final;       /* final norms after the last block */
    unsigned      embed;       /* norms right after the embedding */
    nl_qk         qk;
    nl_fam_rule   rule;
    int           llama_like;  /* gated MLP, no biases: whole-model count is computed */
    const char   *archs;       /* class-name stems ("Llama" of LlamaForCausalLM), space separated */
    const char   *source;      /* reference modeling file, transformers/src/transformers/models/...,
                                  or the checkpoint's own file for remote-code families */
} nl_family;

const nl_family *nl_family_find(const char *model_type);
/* A model_type in no row: the family its `architectures` or
 * auto_map.AutoConfig class names, or whose fields it carries (DeepSeek's
 * MLA ranks).  NULL if none; *how (static text) says which was used, *what
 * the class name or field it matched (points into lm/root). */
const nl_family *nl_family_resolve(const cJSON *root, const cJSON *lm, const char **how,
                                   const char **what);
/* The families in table order (for tests and the chapter). */
const nl_family *nl_families(size_t *count);

/* The object that describes the language model: `text_config` when the
 * config nests it there (multimodal models), else the root itself. *prefix
 * gets "text_config." or "". */
const cJSON *nl_language_model(const cJSON *root, const char **prefix);

/* Result of looking for eps. */
typedef enum { NL_EPS_FOUND = 1, NL_EPS_MISSING = 0, NL_EPS_BAD = -1 } nl_eps_status;

/* Finds the language model's eps under any of `names` (NULL-terminated,
 * tried in order).  Looks in the language model's object first, then at the
 * root.  On NL_EPS_FOUND, *eps and key (a dotted path) are set; on
 * NL_EPS_BAD the key exists but is not a positive finite number, and
 * nl_last_error() says which key and why. */
nl_eps_status nl_eps_find(const cJSON *root, const char *const *names,
                          double *eps, char *key, size_t keylen);

/* eps as the family's code reads it (see eps.c); sets eps, eps_key and
 * eps_is_default of c, and notes other spellings.  fam NULL: any spelling. */
nl_eps_status nl_eps_for_family(const nl_family *fam, const cJSON *root, nl_config *c);

/* A number read from JSON: true for numbers, and for the marker that
 * json_python.c writes for NaN. */
int nl_json_number(const cJSON *item, double *out);
/* The text of a value's JSON type ("a string", "an object", ...). */
const char *nl_json_kind(const cJSON *item);

/* The marker string that stands for Python's NaN after the pre-pass. */
#define NL_JSON_NAN_MARKER "\x1bnormlab:NaN"

/* The first of `names` present in obj, as a positive whole number: 1 found
 * (key, if not NULL, gets prefix+name), 0 none present, -1 present but not
 * a positive whole number (nl_last_error() says which and why). */
int nl_json_size(const cJSON *obj, const char *const *names, const char *prefix,
                 size_t *out, char *key, size_t keylen);
#define NL_CONFIG_SIZE_LIMIT (1u << 24)

/* A boolean switch; `fallback` when absent or not a boolean. */
int nl_json_flag(const cJSON *obj, const char *name, int fallback);

/* Limits of the text check, far past any real config.json. */
#define NL_JSON_MAX_DEPTH  100
#define NL_JSON_MAX_VALUES 100000

/* Checks the raw text before parsing (encoding, \u0000, NaN keys, depth,
 * number of values).  0, or -1 with nl_last_error() saying what and where. */
int nl_json_check_text(const char *text, size_t len);

/* Keeps only the last occurrence of each key in every object, as Python's
 * json does.  Returns how many were dropped (-1: out of memory); the first
 * repeated key is strdup'd into *first_dup if that is still NULL. */
long nl_json_last_wins(cJSON *item, char **first_dup);

/* Appends a clause to c->note ("; " between clauses). */
void nl_note(nl_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One row of the census (census.def, generated by scripts/census/census.py). */
typedef struct {
    const char *model_type, *transformers, *modeling_file, *status, *kind;
    int         weight, bias, offset;
    const char *eps_key;
    double      eps_default;
    const char *groups;    /* "COUNT x WIDTH[~ no bias][! no weight] : where; ..." */
    const char *toggles;   /* "field=true -> GROUPS | ..." */
    const char *aliases;   /* "list<pattern_property:letter=value,...; ..." */
    const char *defaults;  /* "field=N,...": what a file without the field builds: the class
                              default, or an expression the class derives it by
                              ("head_dim=hidden_size/num_attention_heads"), or for a
                              per-layer list the count of one value
                              ("layer_types#full_attention=%num_hidden_layers/P/-1") */
    const char *why;       /* failures, or norms it could not classify */
    const char *varied;    /* "builds=N; field:K,...": the builds the widths were fitted
                              over, and in how many each field a width reads was varied */
} nl_census_row;

const nl_census_row *nl_census_rows(size_t *count);
/* The transformers version the census measured ("5.23.0"). */
const char *nl_census_rows_version(void);
/* The row of a model_type whatever its status (a failed build included), or NULL. */
const nl_census_row *nl_census_row_of(const char *model_type);
/* The measured row for a model_type (status "ok"), or NULL. */
const nl_census_row *nl_census_find(const char *model_type);
nl_norm_shape nl_census_shape(const nl_census_row *r);
/* Fills groups and counts of c (hidden_size and num_layers set) from the
 * row's formulas evaluated on lm.  -1 with the error set when the config
 * lacks what a formula reads; -2 when the row has a group whose layers the
 * census could not tie to a config field (the count falls back). */
int nl_census_count(const nl_census_row *r, const cJSON *lm, nl_config *c);

/* One row of placement.def (scripts/census/placement.py): where the
 * family's stream-width norms sit in a block, measured by running it. */
typedef struct {
    const char *model_type;
    const char *placement;  /* "pre", "post", "add", "sandwich", "mixed"; "failed", "timeout", "none" */
    const char *roles;      /* per stack, each norm's role in the order they run */
    const char *why;        /* blocks that could not be classified, or why none was */
} nl_placement_row;

const nl_placement_row *nl_placement_rows(size_t *count);
const nl_placement_row *nl_placement_find(const char *model_type);
/* 1 when the row has a measured placement (not failed, timeout or none). */
int nl_placement_measured(const nl_placement_row *p);

/* Fills groups/counts of `c` from the family rules and the config. */
int nl_count_norms(const nl_family *fam, const cJSON *lm, const char *prefix, nl_config *c);

#endif
