/* gpt2.h — chapter 12: a GPT-2 forward pass over llm.c's checkpoint
 * layout, and the conversion of that LayerNorm model into an RMSNorm model
 * with the same outputs (code/gpt2/).
 *
 * One model type serves both: a LayerNorm model as llm.c writes it (tied
 * head, norms with gamma and beta) and the converted model (no norm
 * parameters, its own head with a bias, optionally one residual dimension
 * fewer, optionally the 1/rms applied after the matmul).  A model holds its
 * tensors in float or in double; the forward exists in both, generated from
 * one body (forward_body.h), so that the double run is the same arithmetic
 * with 29 more bits and can judge the float one. */
#ifndef NL_GPT2_H
#define NL_GPT2_H

#include <stddef.h>
#include <stdint.h>

/* llm.c's header: 256 int32, magic 20240326, version 3 = fp32 parameters
 * (karpathy/llm.c train_gpt2.c, gpt2_build_from_checkpoint; version 5 is
 * train_gpt2.cu's bf16, which this reader refuses by name). */
#define NL_GPT2_MAGIC 20240326
#define NL_GPT2_VERSION_F32 3
#define NL_GPT2_VERSION_BF16 5
/* The converted model's header: the same 256 int32 with a magic of ours
 * (see gpt2_format.c for the layout). */
#define NL_GPT2_RMS_MAGIC 20261212
#define NL_GPT2_RMS_VERSION 1
#define NL_GPT2_HEADER_INTS 256
#define NL_GPT2_EPS 1e-5f /* llm.c layernorm_forward: float eps = 1e-5f */

typedef struct {
    int max_seq_len, vocab_size, num_layers, num_heads, channels, padded_vocab_size;
} nl_gpt2_config;

typedef enum {
    NL_GPT2_LAYERNORM = 0, /* llm.c's model: every norm a LayerNorm with gamma, beta */
    NL_GPT2_RMSNORM = 1,   /* converted: parameter-free RMSNorm, width = channels */
    NL_GPT2_CRMSNORM = 2,  /* converted, Pre-CRMSNorm: width = channels - 1 */
    NL_GPT2_RMSNORM_GAIN = 3, /* GPT-2 with RMSNorm in LayerNorm's place, trained so
                                 (chapter 13): a gain per norm, no beta, the tied head */
} nl_gpt2_norm;

/* 1 when the model's head is its token embedding (llm.c's layout keeps the
 * padded vocabulary then), 0 when it has a head of its own with a bias. */
int nl_gpt2_tied(nl_gpt2_norm norm);

/* The tensors in llm.c's order, then the converted model's own head. */
typedef enum {
    NL_T_WTE, NL_T_WPE, NL_T_LN1W, NL_T_LN1B, NL_T_QKVW, NL_T_QKVB, NL_T_ATTPROJW,
    NL_T_ATTPROJB, NL_T_LN2W, NL_T_LN2B, NL_T_FCW, NL_T_FCB, NL_T_FCPROJW, NL_T_FCPROJB,
    NL_T_LNFW, NL_T_LNFB, NL_T_HEADW, NL_T_HEADB, NL_GPT2_NTENSORS
} nl_gpt2_tensor;

/* llm.c's name of a tensor ("wte", "ln1w", ...; "headw", "headb"). */
const char *nl_gpt2_tensor_name(nl_gpt2_tensor t);

typedef struct {
    nl_gpt2_config cfg;
    nl_gpt2_norm norm;
    int deferred;        /* FlashNorm: matmul the raw row, scale by 1/rms after */
    int is_double;       /* tensors hold double (else float) */
    size_t width;        /* the residual stream's width: channels, or channels - 1 */
    size_t count[NL_GPT2_NTENSORS]; /* elements of each tensor; 0 = not in this model */
    void *t[NL_GPT2_NTENSORS];      /* into mem; a tied model's head is wte */
    void *mem;
} nl_gpt2;

/* The elements of every tensor of a model of this config, norm and width;
 * NL_EARG (nl_last_error says which) when a size overflows size_t. */
int nl_gpt2_counts(const nl_gpt2_config *cfg, nl_gpt2_norm norm, size_t width,
                   size_t count[NL_GPT2_NTENSORS]);
/* Checks a config's values one by one (positive, heads divide channels,
 * padded >= vocab); NL_EARG naming the first that is wrong. */
int nl_gpt2_check_config(const nl_gpt2_config *cfg);
/* Allocates a zeroed model of that shape (counts, pointers, the tied head). */
int nl_gpt2_alloc(nl_gpt2 *m, const nl_gpt2_config *cfg, nl_gpt2_norm norm, int deferred,
                  int is_double);
void nl_gpt2_free(nl_gpt2 *m);
/* An RMSNorm model with gains holding a LayerNorm model's weights, its
 * betas dropped, in the same precision: the two norms on the same weights
 * (chapter 13's tests). */
int nl_gpt2_drop_betas(const nl_gpt2 *ln, nl_gpt2 *rms);
/* A double copy of a float model, element for element (exact). */
int nl_gpt2_to_double(const nl_gpt2 *src, nl_gpt2 *dst);
/* A float copy of a double model, each element rounded to nearest. */
int nl_gpt2_to_float(const nl_gpt2 *src, nl_gpt2 *dst);

/* Reads llm.c's layout or the converted one (the magic says which) into a
 * float model.  NL_EARG with nl_last_error() naming the file and what was
 * wrong: magic, version, a config value, a size that overflows, a file
 * shorter or longer than its header says. */
int nl_gpt2_read(const char *path, nl_gpt2 *m);
/* Writes a float model in its layout (llm.c's for a LayerNorm model, ours
 * for a converted one).  Refuses an existing file unless `force`, and
 * anything there that is not a regular file even with it. */
int nl_gpt2_write(const char *path, const nl_gpt2 *m, int force);

/* A random LayerNorm model in llm.c's layout, for tests: weights with
 * non-zero means (so that centring matters), gamma near 1, beta near 0,
 * padding rows of wte zero as llm.c leaves them; the same seed gives the
 * same model on every machine (Python's Mersenne Twister, chapter 2). */
int nl_gpt2_random(nl_gpt2 *m, const nl_gpt2_config *cfg, uint64_t seed);

/* The forward pass: logits of tokens[0..T) as T x vocab_size (the real
 * vocabulary, padding rows left out).  T <= max_seq_len, every token <
 * vocab_size, the model in the function's precision; NL_EARG otherwise. */
int nl_gpt2_logits_f(const nl_gpt2 *m, const int *tokens, size_t T, float *logits);
int nl_gpt2_logits_d(const nl_gpt2 *m, const int *tokens, size_t T, double *logits);

/* Which steps the conversion takes.  All on is the conversion; the tests
 * turn one off at a time to show what it was for. */
enum {
    NL_CENTRE_WTE = 1 << 0, NL_CENTRE_WPE = 1 << 1, NL_CENTRE_ATTPROJW = 1 << 2,
    NL_CENTRE_ATTPROJB = 1 << 3, NL_CENTRE_FCPROJW = 1 << 4, NL_CENTRE_FCPROJB = 1 << 5,
    NL_CENTRE_ALL = (1 << 6) - 1,
};
typedef struct {
    nl_gpt2_norm norm;  /* NL_GPT2_RMSNORM or NL_GPT2_CRMSNORM */
    int deferred;       /* FlashNorm's scaling after the matmul */
    int centre;         /* NL_CENTRE_* writers to centre */
    int fold_beta;      /* b + W beta; 0 drops beta */
    int untie;          /* the head from the original wte; 0 uses the centred one */
} nl_gpt2_convert_opts;
/* The whole conversion, every step on. */
nl_gpt2_convert_opts nl_gpt2_convert_default(void);

/* Converts a double LayerNorm model into a double RMSNorm model (out is
 * allocated here).  Double, so that the converted parameters are the exact
 * ones to 1e-16 and rounding them to float is the only float step. */
int nl_gpt2_convert(const nl_gpt2 *ln, const nl_gpt2_convert_opts *opts, nl_gpt2 *out);

/* Folding a norm's gamma and beta into the linear layer that reads it:
 * w is rows x d (row-major, as llm.c stores a layer: out x in); after the
 * call w[o][i] = w[o][i] * gamma[i] and bias[o] = bias[o] + sum_i w[o][i] *
 * beta[i] (the original w).  bias may be NULL when beta is (nothing to fold
 * into); beta NULL folds gamma alone.  The exercise of chapter 12. */
void nl_fold_norm_into_linear(double *w, double *bias, const double *gamma,
                              const double *beta, size_t rows, size_t d);

/* The error of one logits array against another: max |a - b| over max |b|
 * (relative to the logits' scale, not element by element: a logit near 0
 * has no relative error worth the name). */
double nl_gpt2_rel_error(const double *a, const double *b, size_t n);

#endif
