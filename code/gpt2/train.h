/* train.h — chapter 13: training the GPT-2 of chapter 12 in C.
 *
 * One forward and one backward pass, written once (train_body.h) and
 * compiled twice: in float, the model as it trains (matmuls through BLAS
 * or chapter 12's blocked matmul, the norms' backward through chapter 10's
 * kernels), and in double, plain loops, the judge the gradient check holds
 * the float pass to.  Three kinds of model train through it: llm.c's
 * LayerNorm GPT-2, the RMSNorm GPT-2 with gains (NL_GPT2_RMSNORM_GAIN)
 * and chapter 12's converted RMSNorm model (no gains, its own head with a
 * bias).  Pre-CRMSNorm and FlashNorm models run in `normlab logits` only.
 *
 * Data: token sequences as llm.c's loader cuts them (data.c); the
 * optimizers: AdamW and SGD (optim.c; AdamW's update of a tensor, adamw.c). */
#ifndef NL_GPT2_TRAIN_H
#define NL_GPT2_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

/* A known mistake planted in one layer's backward, for the tests that show
 * the gradient check catches each one; NL_PLANT_NONE in every real run. */
typedef enum {
    NL_PLANT_NONE = 0,
    NL_PLANT_CROSSENTROPY, /* d logits = softmax, the -1 at the target forgotten */
    NL_PLANT_LINEAR,       /* the bias gradient left out */
    NL_PLANT_GELU,         /* GELU's derivative without the tanh's own derivative */
    NL_PLANT_ATTENTION,    /* softmax backward without subtracting the row's sum */
    NL_PLANT_NORM,         /* the other norm's backward (the mean term dropped or added) */
    NL_PLANT_RESIDUAL,     /* the gradient through the skip connection dropped */
    NL_PLANT_EMBEDDING,    /* position gradients written, not added, per sequence */
    NL_PLANT_COUNT
} nl_train_plant;
const char *nl_train_plant_name(nl_train_plant p);

/* The activations one forward keeps for the backward, and the backward's
 * own buffers; per-layer tensors hold num_layers copies. */
enum {
    NL_A_ENC, NL_A_LN1, NL_A_LN1_MEAN, NL_A_LN1_RSTD, NL_A_QKV, NL_A_ATT, NL_A_ATTY,
    NL_A_RES2, NL_A_LN2, NL_A_LN2_MEAN, NL_A_LN2_RSTD, NL_A_FCH, NL_A_FCH_GELU, NL_A_RES3,
    NL_A_LNF, NL_A_LNF_MEAN, NL_A_LNF_RSTD, NL_A_LOGITS, NL_A_PROBS, NL_A_LOSSES,
    /* the backward's: the residual stream's gradient, a norm's input and
     * output gradients, the sublayers', one T x T block per thread, the
     * logits', ones (gamma = 1 for a model whose norms have none, and the
     * vector a bias gradient's column sums multiply), a dgamma and dbeta
     * that go nowhere */
    NL_D_RES, NL_D_NORMIN, NL_D_LN, NL_D_QKV, NL_D_ATTY, NL_D_FCH, NL_D_SCRATCH,
    NL_D_LOGITS, NL_D_ONES, NL_D_GAIN,
    NL_TRAIN_NBUF
};

typedef struct {
    nl_gpt2 *m;                     /* the model trained (not owned) */
    size_t B, T;                    /* the largest batch a call may give */
    size_t nb, nt;                  /* the last forward's sequences and tokens */
    int threads;                    /* OpenMP threads the passes use */
    int plant;                      /* nl_train_plant: tests only */
    void *g[NL_GPT2_NTENSORS];      /* gradients, shaped as m's tensors */
    void *grad_mem;
    void *a[NL_TRAIN_NBUF];         /* activations and backward buffers */
    void *act_mem;
    int *inputs, *targets;          /* the last forward's B x T tokens */
    int has_targets;                /* whether it had targets (a backward needs them) */
    double loss;                    /* its mean loss (NaN without targets) */
    double norm_seconds;            /* time in the norms, forward and backward */
} nl_train;

/* Buffers for batches of up to B sequences of up to T tokens for model m
 * (float or double; its precision picks the passes), with `threads`
 * OpenMP threads (0: omp_get_max_threads()).  NL_EARG naming what m
 * cannot train (Pre-CRMSNorm, FlashNorm, T beyond its context), NL_ENOMEM. */
int nl_train_init(nl_train *tr, nl_gpt2 *m, size_t B, size_t T, int threads);
void nl_train_free(nl_train *tr);

/* The forward pass over nb sequences of nt tokens (inputs nb x nt, row
 * after row), keeping what the backward needs; with targets, the mean
 * cross-entropy over the nb x nt predictions in tr->loss (targets NULL:
 * logits only, loss NaN).  NL_EARG for a token outside the vocabulary or a
 * batch beyond tr's, naming it. */
int nl_train_forward(nl_train *tr, const int *inputs, const int *targets, size_t nb, size_t nt);
/* The gradient of tr->loss with respect to every parameter, into tr->g
 * (overwritten), from the last forward, which must have had targets. */
int nl_train_backward(nl_train *tr);
/* The logits of the last forward's sequence b, position t: vocab_size
 * values, in the model's precision. */
const void *nl_train_logits(const nl_train *tr, size_t b, size_t t);

/* The precisions' own passes, which the two above dispatch to. */
int nl_train_forward_f(nl_train *tr, const int *inputs, const int *targets, size_t nb, size_t nt);
int nl_train_forward_d(nl_train *tr, const int *inputs, const int *targets, size_t nb, size_t nt);
int nl_train_backward_f(nl_train *tr);
int nl_train_backward_d(nl_train *tr);

/* Elements of each activation buffer for tr's shape (per-layer ones
 * times num_layers), for nl_train_init. */
void nl_train_buffer_sizes(const nl_train *tr, size_t size[NL_TRAIN_NBUF]);

/* The gradient check (gradcheck.c): the central difference
 * (L(p + h) - L(p - h)) / 2h of tr->loss for every parameter of tr's
 * double model, in the model's memory order (fd holds every parameter);
 * then the worst tensor's max |g - fd| / max |fd| of tr->g (a NaN is the
 * worst), and which tensor. */
int nl_train_finite_differences(nl_train *tr, const int *inputs, const int *targets, size_t nb,
                                size_t nt, double h, double *fd);
double nl_train_grad_error(const nl_train *tr, const double *fd, int *which);

/* The whole check: finite differences once, then the backward pass
 * without a planted mistake (error[NL_PLANT_NONE]) and with each one
 * (error[p]), the worst tensor's error and which tensor each time. */
typedef struct {
    size_t params;
    double error[NL_PLANT_COUNT];
    int tensor[NL_PLANT_COUNT];
} nl_gradcheck_report;
int nl_train_gradcheck(nl_gpt2 *md, const int *inputs, const int *targets, size_t nb, size_t nt,
                       double h, nl_gradcheck_report *r);
/* A double model of each kind that trains, 0 LayerNorm, 1 RMSNorm with
 * gains, 2 chapter 12's converted RMSNorm, from chapter 12's random
 * weights (means away from 0, gains away from 1) of `seed`. */
int nl_train_gradcheck_model(int kind, const nl_gpt2_config *cfg, uint64_t seed, nl_gpt2 *md);

/* Whether a tensor is a matrix or an embedding (2-D): the ones weight
 * decay applies to, as llm.c's train_gpt2.py configure_optimizers does;
 * biases and gains are left alone. */
int nl_gpt2_decays(nl_gpt2_tensor t);

/* A new float model of this shape and norm (NL_GPT2_LAYERNORM or
 * NL_GPT2_RMSNORM_GAIN), initialised as GPT-2 is (llm.c train_gpt2.py,
 * _init_weights): weights and embeddings N(0, 0.02), the two projections
 * that write into the residual stream N(0, 0.02 / sqrt(2 L)), biases 0,
 * gains 1, betas 0, llm.c's padding rows of wte 0.  The draws come from
 * Python's Mersenne Twister seeded with `seed`, tensor by tensor in
 * llm.c's order, and the norms draw nothing: a LayerNorm and an RMSNorm
 * model of the same seed share every other weight, bit for bit. */
int nl_gpt2_init(nl_gpt2 *m, const nl_gpt2_config *cfg, nl_gpt2_norm norm, uint64_t seed);

/* ------------------------------------------------------------ optimizers */
typedef enum { NL_OPTIM_ADAMW, NL_OPTIM_SGD } nl_optim_kind;

typedef struct {
    nl_optim_kind kind;
    float lr, beta1, beta2, eps, weight_decay;
    int t;          /* updates made so far */
    float *mom, *vel; /* AdamW's moments, one per parameter (allocated here) */
    size_t n;
} nl_optim;

/* AdamW with llm.c's train_gpt2.py betas (0.9, 0.95) and eps 1e-8. */
nl_optim nl_optim_default(nl_optim_kind kind, float lr, float weight_decay);
/* One update of tr's float model from tr->g:
 *   SGD    p -= lr * (g + wd * p)
 *   AdamW  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
 *          p -= lr * (m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps) + wd * p)
 * with wd applied to 2-D tensors only (nl_gpt2_decays).  NL_ENOMEM. */
int nl_optim_step(nl_optim *o, nl_train *tr);
void nl_optim_free(nl_optim *o);

/* AdamW's update of n parameters at step t (1, 2, ...); wd = 0 for a
 * tensor that does not decay.  The exercise of chapter 13. */
void nl_adamw_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                     float beta1, float beta2, float eps, float wd, int t);

/* ------------------------------------------------------------------ data */
/* Tokens, each below 65536: a text's bytes or an llm.c token shard. */
typedef struct {
    uint16_t *tok;
    size_t n;
} nl_tokens;

/* llm.c's token shard (karpathy/llm.c dev/data/data_common.py,
 * write_datafile; read by llmc/dataloader.h): 256 int32 — magic 20240520,
 * version 1, the token count — then that many uint16.  NL_EARG naming the
 * file and what is wrong: magic (llama-3's uint32 shards, magic 20240801,
 * by name), version, count, a file shorter or longer than the count says. */
int nl_tokens_read_shard(const char *path, nl_tokens *t);
/* A file's bytes, one token each (vocabulary 256). */
int nl_tokens_read_text(const char *path, nl_tokens *t);
void nl_tokens_free(nl_tokens *t);
/* The part from `from` on, moved into a new nl_tokens (a copy); the
 * original keeps [0, from). */
int nl_tokens_split(nl_tokens *t, size_t from, nl_tokens *tail);

/* Batches as llm.c's loader cuts them: B sequences of T tokens, sequence b
 * of batch k from token (k B + b) T on, each target the next token; an
 * epoch is (n - 1) / (B T) batches, and step s takes batch s mod that.
 * With shuffle, each epoch takes its batches in an order drawn from the
 * seed and the epoch's number (Python's Mersenne Twister). */
typedef struct {
    const nl_tokens *data;
    size_t B, T, per_epoch;
    int shuffle;
    uint64_t seed;
    size_t *order, order_epoch;
} nl_loader;

/* NL_EARG when the data holds fewer than B T + 1 tokens. */
int nl_loader_init(nl_loader *ld, const nl_tokens *data, size_t B, size_t T, int shuffle,
                   uint64_t seed);
/* inputs and targets of step `step`, B x T each. */
int nl_loader_batch(nl_loader *ld, size_t step, int *inputs, int *targets);
void nl_loader_free(nl_loader *ld);

/* --------------------------------------------------------------- sampling */
/* The next token from logits[0..V): argmax at temperature 0, else a draw
 * from softmax(logits / temperature) with one random() of r. */
int nl_sample_token(const float *logits, size_t V, double temperature, nl_pyrandom *r);

#endif
