/* normlab.h — the one public header of normlab.
 *
 * Every forward implementation of LayerNorm and RMSNorm, scalar, SIMD,
 * threaded or OpenCL, has the same signature (nl_forward_fn) and is listed
 * in one registry (nl_impls), so the tests and the benchmark can iterate
 * over all of them and adding one is one file plus one registry line.
 */
#ifndef NORMLAB_H
#define NORMLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- kernels */

typedef enum { NL_LAYERNORM = 0, NL_RMSNORM = 1 } nl_norm;

/* One forward pass over `rows` rows of `d` float32 values, row-major.
 *
 *   y[r][i] = (x[r][i] - mean_r) / sqrt(var_r + eps) * gamma[i] + beta[i]   LayerNorm
 *   y[r][i] =  x[r][i]           / sqrt(ms_r  + eps) * gamma[i]             RMSNorm
 *
 * var_r is the biased (population) variance, ms_r the mean of squares; eps
 * sits inside the square root, as in PyTorch and Hugging Face.
 * gamma: d values, never NULL.  beta: d values for LayerNorm; RMSNorm
 * implementations ignore it (callers pass NULL).
 * In place is allowed: y may equal x exactly (every implementation reads a
 * whole row's statistics before it writes that row).  Partially overlapping
 * buffers are not allowed.
 * rows == 0 is a no-op: nothing is read or written, so x and y may then be
 * NULL.  d must be >= 1 (callers check; nl_check_args helps).
 * A NaN or +-Inf in x spoils at most its own row: every other row comes out
 * as without it, within tol.  Subnormal inputs are handled like any others;
 * flushing them to zero is allowed, as it changes no output by more than tol.
 * eps == 0 on a row with no spread (all zeros) gives NaN in every output of
 * that row (0 * 1/sqrt(0)), as nl_reference and PyTorch do; no
 * implementation special-cases it.  (tests/check_edge.c holds them to this.)
 * Returns 0 on success, or a negative NL_E* code (only implementations that
 * can fail at run time, e.g. OpenCL, return non-zero). */
typedef int (*nl_forward_fn)(const float *x, const float *gamma,
                             const float *beta, float eps, size_t rows,
                             size_t d, float *y);

enum {
    NL_OK = 0,
    NL_EARG = -1,      /* bad argument (d == 0, NULL pointer, overflow) */
    NL_ENOMEM = -2,    /* allocation failed */
    NL_EDEVICE = -3,   /* OpenCL or other device failure; see nl_last_error() */
    NL_EUNAVAIL = -4,  /* implementation not usable on this machine */
};

/* Requirements an implementation has of the machine it runs on. */
enum {
    NL_REQ_NONE   = 0,
    NL_REQ_AVX2   = 1u << 0,  /* AVX2 + FMA (x86-64) */
    NL_REQ_AVX512 = 1u << 1,  /* AVX-512F (x86-64) */
    NL_REQ_NEON   = 1u << 2,  /* Advanced SIMD (aarch64) */
    NL_REQ_OPENCL = 1u << 3,  /* an OpenCL platform and device */
    NL_REQ_OPENMP = 1u << 4,  /* uses OpenMP threads */
};

/* Documented numerical properties; the property tests read them. */
enum {
    NL_PROP_NONE      = 0,
    NL_PROP_UNSTABLE  = 1u << 0, /* E[x^2]-E[x]^2: wrong on offset data (kept on purpose) */
    NL_PROP_HUGE_OK   = 1u << 1, /* correct for |x| ~ 1e20 (no float overflow of x^2) */
};

typedef struct nl_impl {
    const char   *name;     /* "layernorm_twopass": unique, used by --impl and tests */
    nl_norm       norm;
    int           chapter;  /* the chapter that explains it */
    nl_forward_fn fn;
    unsigned      requires; /* NL_REQ_* bits */
    unsigned      props;    /* NL_PROP_* bits */
    double        tol;      /* max |y - reference| on unit-scale data (stated bound) */
    const char   *summary;  /* one line for tables and --help */
} nl_impl;

/* The registry, in ladder order (naive first). */
const nl_impl *nl_impls(size_t *count);
const nl_impl *nl_find_impl(const char *name);
/* NULL when `impl` can run here, else a reason ("CPU lacks AVX-512F"). */
const char *nl_impl_unavailable(const nl_impl *impl);
const char *nl_norm_name(nl_norm norm);          /* "LayerNorm" / "RMSNorm" */

/* Validates a call: NL_OK, or NL_EARG with nl_last_error() naming the problem. */
int nl_check_args(const float *x, const float *gamma, const float *beta,
                  size_t rows, size_t d, const float *y, nl_norm norm);

/* Thread-local text of the last error set by the library ("" if none). */
const char *nl_last_error(void);
void nl_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Learnable parameters of one norm layer of width d: 2d for LayerNorm
 * (gamma and beta), d for RMSNorm (gamma only). */
size_t nl_param_count(nl_norm norm, size_t d);

/* -------------------------------------------------------------- reference */

/* Double-precision reference used to validate every implementation:
 * two-pass mean and variance in double, same formula and eps placement. */
void nl_reference(nl_norm norm, const float *x, const float *gamma,
                  const float *beta, double eps, size_t rows, size_t d,
                  double *y);

/* max |y[i] - ref[i]| over n values: how far an implementation is from the
 * reference. NaN when y holds a NaN where ref does not, so a NaN fails
 * every bound (fmax would quietly drop it); where both are NaN they agree. */
double nl_max_abs_diff(const float *y, const double *ref, size_t n);

/* ---------------------------------------------------------- welford/chan */

/* Running statistics of a stream: count, mean and M2 = sum (x - mean)^2. */
typedef struct { double n; double mean; double m2; } nl_moments;

void nl_welford_push(nl_moments *m, double x);
/* Chan, Golub & LeVeque's pairwise merge: the moments of the union of the
 * two streams, exactly as if one had pushed all values into one. */
nl_moments nl_chan_merge(nl_moments a, nl_moments b);

/* ------------------------------------------------------------- utilities */

double nl_now(void);          /* monotonic seconds */
void  *nl_alloc(size_t bytes); /* 64-byte aligned, NULL on failure; free with nl_free */
void   nl_free(void *p);

/* Floats a kernel keeps from call to call, grown when a call needs more
 * and never shrunk: a large buffer allocated afresh each call is a fresh
 * mapping each call, its page faults and zeroing included.  One per use,
 * _Thread_local where concurrent callers must not share it. */
typedef struct {
    float *p;
    size_t floats;
} nl_reused;
float *nl_reused_floats(nl_reused *r, size_t floats); /* NULL when out of memory */

/* The whole file at `path` in memory (from malloc, NUL-terminated; *len,
 * when len is not NULL, counts the bytes before the NUL). NULL, with
 * nl_last_error() naming the file and the problem, when it cannot be
 * opened or read or is larger than `limit` bytes; errno is then ENOENT for
 * a missing file and EFBIG for one over the limit. Reads pipes too. */
char  *nl_read_file(const char *path, size_t limit, size_t *len);

/* Summary of repeated timings: machines are shared and noisy, so the
 * course reports medians and spread, never a single run. */
typedef struct { double median, min, max, p10, p90; size_t n; } nl_stats;
/* Sorts samples[0..n) in place; n >= 1. */
nl_stats nl_summarize(double *samples, size_t n);

/* ------------------------------------------- python-compatible random */
/* (section owned by code/experiment/pyrandom.c, code/experiment/summation.c, code/experiment/seed_experiment.c) */

/* Python's `random` module, bit for bit: the Mersenne Twister MT19937 seeded
 * as random.seed(n) seeds it, random.random() and random.gauss(mu, sigma)
 * with its cached second value. The seed article's numbers come from
 * Python; drawing the same numbers in C lets the course reproduce them
 * digit for digit instead of "roughly". */
typedef struct {
    uint32_t mt[624];
    size_t   index;       /* next word of mt to temper; 624 = regenerate */
    int      have_gauss;  /* gauss() has a second value waiting */
    double   gauss_next;
} nl_pyrandom;

/* random.seed(n) for an integer 0 <= n < 2^64. */
void nl_pyrandom_seed(nl_pyrandom *r, uint64_t n);
/* The general form: init_by_array over 32-bit words, least significant
 * first (random.seed(n) passes n's words; n == 0 passes one zero word). */
void nl_pyrandom_seed_words(nl_pyrandom *r, const uint32_t *key, size_t nwords);
uint32_t nl_pyrandom_u32(nl_pyrandom *r);                    /* getrandbits(32) */
double   nl_pyrandom_random(nl_pyrandom *r);                 /* random(): [0, 1), 53 bits */
double   nl_pyrandom_gauss(nl_pyrandom *r, double mu, double sigma); /* gauss(mu, sigma) */

/* How a sum of doubles is taken. The seed experiment's LayerNorm figure is
 * rounding noise whose value depends on exactly this. */
typedef enum {
    NL_SUM_LEFT = 0,     /* left to right: Python <= 3.11's sum(), a plain C loop */
    NL_SUM_NEUMAIER = 1, /* Neumaier-compensated: Python >= 3.12's sum() of floats */
    NL_SUM_EXACT = 2,    /* the exact sum, rounded once: like math.fsum() */
} nl_sum_method;
double nl_sum(const double *v, size_t n, nl_sum_method how);

/* The seed article's experiment: random.seed(7); 512 tokens of D = 1024
 * values drawn with gauss(0, 3); LayerNorm (w = 1, b = 0) and RMSNorm
 * (w = 1), eps = 1e-6, all in double as the article's Python does.
 * Each figure is the article's "mean per token": the largest |mean| over
 * the 512 tokens. `inside` sums inside the two norms (mean, variance,
 * mean square); `measure` sums for the figures themselves. */
enum { NL_SEED_TOKENS = 512, NL_SEED_D = 1024 };
typedef struct {
    double input;      /* of x itself; the article printed 0.268950 */
    double layernorm;  /* of LayerNorm(x): rounding noise around 0 */
    double rmsnorm;    /* of RMSNorm(x); the article printed 0.087061 */
} nl_seed_figures;
/* Returns NL_OK (it needs no allocation; int for the library's convention). */
int nl_seed_experiment(nl_sum_method inside, nl_sum_method measure,
                       nl_seed_figures *out);

/* ---------------------------------------------------------- config.json */
/* (section owned by the config reader; see code/config/) */

/* The shape of one norm layer: which norm, and which learnable vectors it
 * carries.  weight_offset marks an RMSNorm that scales by (1 + w) (Gemma):
 * same parameter count, different initial value. */
typedef struct {
    nl_norm norm;
    int     weight;         /* has a learnable scale (gamma) */
    int     bias;           /* has a learnable shift (beta); RMSNorm never does */
    int     weight_offset;  /* scales by (1 + weight) */
} nl_norm_shape;

/* `count` norm layers of width `width` (e.g. 2L norms of hidden_size, or
 * 2L QK-norms of head_dim). */
typedef struct {
    size_t count, width;
    int    nobias;      /* 1: these norms have no bias even where the model's others do */
    const char *what;   /* "blocks", "final", "q_norm+k_norm", ... */
} nl_norm_group;

/* Learnable parameters of one norm layer of this shape and width. */
size_t nl_norm_layer_params(nl_norm_shape shape, size_t width);
/* Learnable parameters of all the model's norm layers. */
size_t nl_norm_total_params(nl_norm_shape shape, const nl_norm_group *groups, size_t n);
/* What RMSNorm saves over LayerNorm at these norm positions: the bias
 * vectors the LayerNorm version of the model has and the RMSNorm version
 * has not (0 where the model's norms carry no weight, or a LayerNorm
 * without bias: there is nothing left to save). */
size_t nl_norm_params_saved(nl_norm_shape shape, const nl_norm_group *groups, size_t n);

#define NL_CONFIG_MAX_GROUPS 16

/* What one config.json says about the model's norms.  file, model_type
 * and note are malloc'd and as long as they need to be (a path or a
 * model_type is never cut); nl_config_free() releases them.  eps_key is a
 * dotted path ("text_config.rms_norm_eps"), empty when the architecture's
 * default is used. */
typedef struct {
    char  *file;                 /* the name given to the reader */
    char  *model_type;           /* the language model's model_type ("" if none) */
    const char *family;          /* family label from the table ("Llama", ...) */
    const char *source;          /* the reference modeling file it was checked against */
    const char *answered_from;   /* "census" (measured from transformers' modules), "table"
                                    (hand-written row), or "guess" */
    int    guessed;              /* 1: family not recognised; kind and count guessed (note says how) */
    const char *placement;       /* where the block's norms sit, measured by running the model
                                    (scripts/census/placement.py): "pre" x + F(N(x)), "post"
                                    x + N(F(x)), "add" N(x + F(x)), "sandwich" (pre and post),
                                    "mixed"; NULL when not measured */
    const char *placement_roles; /* each stream-width norm's role in a block, per layer stack */
    nl_norm_shape shape;
    double eps;
    char   eps_key[128];
    int    eps_is_default;       /* 1: no eps key the code reads; eps is the code's default */
    size_t hidden_size;
    char   hidden_key[64];
    size_t num_layers;
    char   layers_key[64];
    size_t norms_per_layer;      /* norm layers in one block (all widths) */
    size_t norm_layers;          /* norm layers in the whole model */
    size_t norm_params;
    size_t params_saved;
    size_t model_params;         /* whole model, 0 when not computed for this family */
    nl_norm_group groups[NL_CONFIG_MAX_GROUPS];
    size_t ngroups;
    char  *note;                 /* how the count was made, what was assumed ("" if nothing) */
    char  *owned;                /* storage behind the group names of a census answer */
    char   source_text[192];     /* storage behind source for a census answer */
    char   derived[240];         /* fields the file leaves out, as the configuration class
                                    derives them ("head_dim = hidden_size/num_attention_heads"),
                                    measured by the census; "" if none */
} nl_config;

/* Releases what the reader allocated in *c (safe on a zeroed or failed one). */
void nl_config_free(nl_config *c);

/* Reads a config.json as Python's json module writes it (NaN, Infinity and
 * -Infinity included; a repeated key means its last occurrence, as in
 * Python).  `name` labels messages.  Returns NL_OK, or NL_EARG with
 * nl_last_error() naming the file, the key and the problem; either way
 * *out must be released with nl_config_free(). */
int nl_config_parse(const char *text, size_t len, const char *name, nl_config *out);
/* Same, from a file (NL_EARG also when it cannot be read). */
int nl_config_read(const char *path, nl_config *out);

/* Python's JSON dialect -> strict JSON: NaN, Infinity and -Infinity outside
 * strings become values cJSON reads (see json_python.c).  Returns a
 * malloc'd NUL-terminated buffer (length in *out_len) or NULL. */
char *nl_json_from_python(const char *text, size_t len, size_t *out_len);

/* A copy of s in which every byte that is not part of valid UTF-8 is
 * written as the four characters \xNN (for JSON output of file names).
 * malloc'd; NULL when out of memory. */
char *nl_utf8_escape(const char *s);

/* The eps key names this reader knows, NULL-terminated, in search order. */
const char *const *nl_eps_key_names(void);

/* --------------------------------------------------------------- OpenCL */
/* (section owned by the OpenCL host code; see code/opencl/) */

/* NULL when an OpenCL device is usable, else why not ("no OpenCL platform"). */
const char *nl_opencl_unavailable(void);

/* Releases every OpenCL object normlab holds (context, queue, programs,
 * buffers); the next call starts afresh.  Also runs at exit. */
void nl_opencl_shutdown(void);
/* The name of an OpenCL status code: -5 -> "CL_OUT_OF_RESOURCES". */
const char *nl_cl_error_name(int code);

typedef struct {
    char platform[128];
    char name[128];
    char version[128];
    char type[16];                  /* "GPU", "CPU", "accelerator", "other" */
    int is_gpu;
    unsigned compute_units;
    unsigned long long global_mem_bytes;
    size_t max_work_group;
} nl_cl_device_info;
/* Every device of every platform, numbered as `normlab devices` shows
 * them; fills out[0..min(count, max)).  Returns the count, or a negative
 * NL_E* code with nl_last_error() saying why (no platform at all). */
int nl_opencl_devices(nl_cl_device_info *out, int max);
/* The number of the device `spec` selects: an index ("1") or a
 * case-insensitive substring of the device or platform name ("nvidia").
 * NULL means: the device given to nl_opencl_use, else $NORMLAB_CL_DEVICE,
 * else the first GPU, else device 0.  Negative NL_E* code if none fits. */
int nl_opencl_pick(const char *spec);
/* Use `spec` (as in nl_opencl_pick; NULL to forget) for every following
 * OpenCL call, outranking $NORMLAB_CL_DEVICE. */
int nl_opencl_use(const char *spec);

/* ------------------------------------------------------- bf16 and fp16 */
/* (section owned by code/precision/ and code/io/; chapter 8) */

/* The 16-bit storage types real models keep activations in. Values live as
 * raw bits (uint16_t) so that every compiler and architecture can hold
 * them; arithmetic always happens in float after widening. */
typedef enum { NL_DT_F32 = 0, NL_DT_BF16 = 1, NL_DT_F16 = 2 } nl_dtype;
const char *nl_dtype_name(nl_dtype dt);           /* "f32", "bf16", "f16" */
size_t nl_dtype_size(nl_dtype dt);                /* 4, 2, 2 */
/* "f32"/"float32", "bf16"/"bfloat16", "f16"/"fp16"/"float16" -> dtype; -1 if none. */
int nl_dtype_parse(const char *name);

/* Narrowing rounds to nearest, ties to even; a NaN stays a NaN (made
 * quiet, sign and top payload bits kept); +-Inf stay; values beyond the
 * largest finite become +-Inf; fp16 keeps its subnormals. Widening is
 * exact. */
uint16_t nl_bf16_from_float(float f);
float    nl_bf16_to_float(uint16_t h);
uint16_t nl_fp16_from_float(float f);
float    nl_fp16_to_float(uint16_t h);
/* The pair for `dt` (bf16 or f16). */
uint16_t nl_half_from_float(nl_dtype dt, float f);
float    nl_half_to_float(nl_dtype dt, uint16_t h);

/* Where a model rounds to its 16-bit dtype inside the norm. Each names the
 * Hugging Face transformers module it reproduces (code/precision/cast_order.c
 * states every rounding point):
 *   LLAMA   LlamaRMSNorm (Mistral, Qwen2/3): fp32 statistics, x*r rounded
 *           to the dtype, then times the weight in the dtype.
 *   GEMMA   GemmaRMSNorm: everything in fp32 including (1 + w); one
 *           rounding at the end.
 *   T5      T5LayerNorm with a bf16/fp16 weight: as LLAMA, rounded to the
 *           weight's dtype.
 *   T5_F32W T5LayerNorm with an fp32 weight: w * (x*r) in fp32; stored here
 *           rounded once to the input dtype.
 *   TORCH   torch's CPU layer_norm on bf16/fp16 input (LayerNorm): fp32
 *           statistics, y = (x*rstd + (-rstd*mean))*g + b in fp32, one
 *           rounding at the end. */
typedef enum {
    NL_CAST_LLAMA = 0, NL_CAST_GEMMA, NL_CAST_T5, NL_CAST_T5_F32W, NL_CAST_TORCH,
    NL_CAST_COUNT
} nl_cast;
const char *nl_cast_name(nl_cast c);              /* "llama", "gemma", "t5", "t5_f32w", "torch" */
int nl_cast_parse(const char *name);              /* -1 if unknown */
/* The dtype the weight (and bias) is stored in for inputs of dtype `dt`. */
nl_dtype nl_cast_weight_dtype(nl_cast c, nl_dtype dt);
/* The norm a cast order belongs to (TORCH: LayerNorm, others RMSNorm). */
nl_norm nl_cast_norm(nl_cast c);

/* One forward pass on 16-bit activations: x and y hold rows x d values of
 * dtype `dt` (bf16 or f16); gamma (and beta, LayerNorm only) hold d values
 * of nl_cast_weight_dtype(cast, dt): uint16_t bits, or float for T5_F32W.
 * y == x allowed; rows == 0 a no-op. Returns 0 or a negative NL_E* code. */
typedef int (*nl_half_fn)(nl_dtype dt, const uint16_t *x, const void *gamma,
                          const void *beta, float eps, size_t rows, size_t d,
                          uint16_t *y);

typedef struct nl_half_impl {
    const char *name;     /* "rmsnorm_llama_bf16": unique */
    nl_norm     norm;
    nl_cast     cast;
    nl_dtype    dtype;    /* of x and y */
    int         chapter;
    nl_half_fn  fn;
    unsigned    requires; /* NL_REQ_* bits */
    unsigned    ulp;      /* max distance in ulps of dtype from the scalar
                             kernel of the same cast order (0: bit-identical) */
    const char *summary;
} nl_half_impl;

const nl_half_impl *nl_half_impls(size_t *count);
const nl_half_impl *nl_find_half_impl(const char *name);
/* The scalar kernel of this cast order and dtype: the bit-exact model. */
const nl_half_impl *nl_half_scalar_of(nl_cast cast, nl_dtype dt);
const char *nl_half_unavailable(const nl_half_impl *impl);

/* The same norm in double on the widened inputs (Gemma's 1 + w included),
 * no rounding anywhere: what every cast order approximates. */
void nl_half_reference(nl_cast cast, nl_dtype dt, const uint16_t *x,
                       const void *gamma, const void *beta, double eps,
                       size_t rows, size_t d, double *y);
/* |got - want| in units of the spacing of dtype `dt` at want (an ulp of
 * the output format; subnormal spacing below the smallest normal).
 * Infinity when got is not finite and want is, 0 when both are the same
 * non-finite value. */
double nl_half_ulp_error(nl_dtype dt, uint16_t got, double want);
/* The distance of `got` from the scalar order's `want` (element i of a
 * row of `impl`, `beta` its LayerNorm bias in the weight's dtype or NULL)
 * as it counts against impl->ulp: its ulps, except where impl sums in
 * fp32 (ulp 2: registry.def says why), whose moves across a power of two
 * count in the larger spacing and whose LayerNorm outputs where t*g + b
 * cancels count as 0 while within the error of their terms. A kernel
 * keeps its contract when this stays <= impl->ulp on every element. */
double nl_half_contract_error(const nl_half_impl *impl, uint16_t got, uint16_t want,
                              const void *beta, size_t i);

/* ------------------------------- chapter 8's measurements (numerics.c) */

/* How far an implementation is from the double reference of its cast
 * order, in ulps of its dtype, over rows x d values drawn as Python's
 * random.gauss(0, 1) after random.seed(seed); `outliers`: every 97th
 * channel (from 3) scaled by 100-1000, as LLM activations have them.
 * Weights: 1 + gauss(0, 0.1) in the weight's dtype (Gemma: the offset
 * gauss(0, 0.1)); LayerNorm's bias gauss(0, 0.1). */
enum { NL_ULP_BUCKETS = 8 };
typedef struct {
    double max_ulp, mean_ulp;
    double frac_rounded;   /* outputs within 0.5 ulp: correctly rounded */
    size_t n;
    /* rows by their worst output: <= 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, more */
    size_t row_hist[NL_ULP_BUCKETS];
} nl_ulp_stats;
int nl_half_measure(const nl_half_impl *impl, size_t rows, size_t d, int outliers,
                    uint64_t seed, float eps, nl_ulp_stats *out);
/* The upper edge of bucket i of row_hist (INFINITY for the last). */
double nl_ulp_bucket_edge(size_t i);

/* Outputs where the llama and gemma orders disagree on the same model:
 * Gemma's offsets w (gauss(0, wstd)) against Llama's weight dtype(1 + w). */
int nl_half_llama_gemma_differ(nl_dtype dt, size_t rows, size_t d, double wstd,
                               uint64_t seed, size_t *differ, size_t *total);

/* A row's sum of squares in fp16 arithmetic (every square and every
 * partial sum rounded to fp16): what a norm without fp32 statistics
 * computes. Inf once it passes 65504. */
float nl_fp16_sumsq_no_upcast(const uint16_t *x, size_t d);

/* ------------------------------------------------ array files (code/io/) */

/* An array read from or written to a .npy or .safetensors file: C order,
 * little-endian. `descr` is what the file said ("<f4", "|V2", "BF16"). */
enum { NL_ARRAY_MAXDIM = 8 };
typedef enum {
    NL_ELEM_F32 = 0,  /* <f4, F32 */
    NL_ELEM_F16,      /* <f2, F16 */
    NL_ELEM_U16,      /* <u2 or |V2: 16 raw bits; bf16 when the user says so */
    NL_ELEM_BF16,     /* BF16 (safetensors names it) */
} nl_elem;
typedef struct {
    nl_elem elem;
    char    descr[16];
    size_t  ndim;
    size_t  shape[NL_ARRAY_MAXDIM];
    size_t  count;    /* product of shape */
    void   *data;     /* count elements, from nl_alloc; nl_array_free */
} nl_array;
size_t nl_elem_size(nl_elem e);
void   nl_array_free(nl_array *a);

/* Reads a NumPy .npy file (format 1.0, 2.0 or 3.0). NL_EARG with
 * nl_last_error() naming the file and the problem (not .npy, big-endian,
 * Fortran order, unsupported dtype, truncated, ...). */
int nl_npy_read(const char *path, nl_array *out);
/* Writes a .npy (format 1.0) with descr for elem ("<f4", "<f2", "<u2" or
 * "|V2" when bf16_as_void). Refuses an existing file unless `force`; writes
 * to a temporary file and renames, so a failure leaves nothing behind. */
int nl_npy_write(const char *path, const nl_array *a, int bf16_as_void, int force);
/* Whether `path` may become an output: nothing there, or (with `force`) a
 * regular file. A device, a directory, a pipe or a symbolic link (dangling
 * or not) is refused: renaming over it would replace the node itself. */
int nl_output_check(const char *path, int force);
/* nl_npy_write in two steps, for a command with several outputs that
 * writes all or none: stage writes a complete temporary file beside path
 * (*staged, its name); commit checks path again and moves the file there
 * (frees staged, and removes the temporary whatever happens); discard
 * removes a staged file that will not be committed. */
int nl_npy_stage(const char *path, const nl_array *a, int bf16_as_void, char **staged);
int nl_npy_commit(const char *path, char *staged, int force);
void nl_npy_discard(char *staged);
/* Reads tensor `tensor` of a .safetensors file (F32, F16, BF16); NULL
 * tensor: the file must hold exactly one. */
int nl_safetensors_read(const char *path, const char *tensor, nl_array *out);
/* ------------------------------------------------------------ block */
/* (section owned by chapter 9; see code/block/) */

/* The norm in its block: residual add and norm in one kernel.
 *
 *   residual[r][i] <- residual[r][i] + x[r][i]      (one float rounding)
 *   y[r]           <- Norm(residual[r])
 *
 * for three norms: RMSNorm, RMSNorm scaled by (1 + w) (Gemma), LayerNorm.
 * Every fused implementation gives the same bits, residual and y, as its
 * unfused pair: the float add, then the forward implementation named
 * `pair` (nl_impls) on the updated residual; for the Gemma variant the
 * pair gets gamma' = 1.0f + w, rounded to float once, as an unfused model
 * computes it.  y may equal x (x is read before y is written); residual
 * must overlap neither x nor y.  rows == 0 is a no-op (NULLs allowed).
 * beta: d values for LayerNorm, ignored (NULL) otherwise. */
typedef enum {
    NL_FUSED_RMSNORM = 0,       /* y = r / rms(r) * w */
    NL_FUSED_RMSNORM_GEMMA = 1, /* y = r / rms(r) * (1 + w) */
    NL_FUSED_LAYERNORM = 2,     /* y = (r - mean) / std * w + b */
} nl_fused_norm;

typedef int (*nl_fused_fn)(const float *x, float *residual, const float *gamma,
                           const float *beta, float eps, size_t rows, size_t d,
                           float *y);

typedef struct nl_fused_impl {
    const char   *name;     /* "fused_add_rmsnorm_avx2" */
    nl_fused_norm norm;
    int           chapter;
    nl_fused_fn   fn;
    const char   *pair;     /* the forward implementation whose bits it reproduces */
    unsigned      requires; /* NL_REQ_* */
    unsigned      props;    /* NL_PROP_* (those of the pair) */
    double        tol;      /* max |y - reference| on unit-scale data (the pair's) */
    int           fused;    /* 0: the unfused pair itself (add pass, then norm pass) */
    const char   *summary;
} nl_fused_impl;

const nl_fused_impl *nl_fused_impls(size_t *count);
const nl_fused_impl *nl_find_fused(const char *name);
/* NULL when `impl` can run here, else why not (as nl_impl_unavailable). */
const char *nl_fused_unavailable(const nl_fused_impl *impl);
const char *nl_fused_norm_name(nl_fused_norm norm); /* "RMSNorm", "RMSNorm (1+w)", "LayerNorm" */
/* The plain forward norm the fused one reduces to (Gemma's is RMSNorm). */
nl_norm nl_fused_base_norm(nl_fused_norm norm);
/* Validates a fused call: NL_OK, or NL_EARG with nl_last_error() saying why. */
int nl_fused_check_args(const float *x, const float *residual, const float *gamma,
                        const float *beta, size_t rows, size_t d, const float *y,
                        nl_fused_norm norm);
/* The unfused pair of `impl`, run for real: the add pass over every row,
 * then impl->pair over every row (NL_ENOMEM if gamma' cannot be had). */
int nl_fused_unfused(const nl_fused_impl *impl, const float *x, float *residual,
                     const float *gamma, const float *beta, float eps, size_t rows,
                     size_t d, float *y);

/* Where the norm sits: a toy residual stream of `tokens` x d values run
 * through `layers` blocks of two sublayers each (attention and MLP stand-
 * ins: fixed random linear maps, entries N(0, 1/d), so a sublayer keeps the
 * scale of what it is given).  Three arrangements:
 *   pre-norm   h <- h + F(RMSNorm(h))            (GPT-2, Llama), final norm at the end
 *   post-norm  h <- RMSNorm(h + F(h))            (original Transformer, BERT)
 *   DeepNorm   h <- RMSNorm(alpha h + F'(h))     (DeepNet: F' has its map scaled by beta)
 * The norms have gamma = 1 (RMSNorm for all three, so that only the place
 * of the norm differs). */
typedef enum { NL_BLOCK_PRE = 0, NL_BLOCK_POST = 1, NL_BLOCK_DEEPNORM = 2 } nl_block_arch;
const char *nl_block_arch_name(nl_block_arch arch); /* "pre-norm", "post-norm", "DeepNorm" */

/* What the stream looks like after a block. */
typedef struct {
    double rms;       /* root mean square of the stream h, over all tokens */
    double cos_input; /* mean over tokens of cos(h, h_0): how much of the input survives */
} nl_depth_point;

/* DeepNet's constants for a decoder-only model of N blocks (arXiv
 * 2203.00555; torchscale's decoder.py): alpha = (2N)^(1/4), beta = (8N)^(-1/4). */
double nl_deepnorm_alpha(size_t layers);
double nl_deepnorm_beta(size_t layers);

/* Runs the experiment: out[0] is the input h_0 (unit rms), out[l] the
 * stream after block l, for l = 1..layers (out holds layers + 1 points).
 * *final_rms (may be NULL) gets the rms of what the last norm hands on:
 * RMSNorm(h_L) for pre-norm, h_L itself for the others.  Same seed, same
 * maps for every arrangement.  NL_OK, NL_EARG or NL_ENOMEM. */
int nl_depth_run(nl_block_arch arch, size_t tokens, size_t d, size_t layers,
                 uint64_t seed, nl_depth_point *out, double *final_rms);

/* DyT ("Transformers without Normalization", arXiv 2503.10622), the
 * norm-free alternative: y = gamma * tanh(alpha * x) + beta, element by
 * element; alpha is one learnable scalar, gamma and beta per feature
 * (beta may be NULL: zero).  No statistics of the row at all.  In place
 * allowed; rows == 0 is a no-op. */
int nl_dyt(const float *x, float alpha, const float *gamma, const float *beta,
           size_t rows, size_t d, float *y);

/* Floats of memory traffic per element each arrangement must move out of
 * cache: the unfused pair reads x and r and writes r, then reads r and
 * writes y (5); the fused kernel reads x and r and writes r and y (4).
 * (A store that first reads its line adds one more to either; the kernels
 * here stream y once a call spills out of cache.) */
#define NL_FUSED_VALUES 4
#define NL_UNFUSED_VALUES 5
size_t nl_fused_values(const nl_fused_impl *impl); /* 4 or 5 */
/* ------------------------------------------------------------- backward */
/* (section owned by code/backward/: chapter 10, training) */

/* What the forward pass of training saves for the backward pass: per row,
 * the mean (LayerNorm only) and rstd = 1 / sqrt(var + eps) (LayerNorm) or
 * 1 / sqrt(mean(x^2) + eps) (RMSNorm).  Two floats per row, not x-hat:
 * x-hat is a whole rows x d tensor, and the backward recomputes it from x,
 * which it must read anyway, at no extra memory traffic.
 * Statistics in double, rounded once to float.  mean may be NULL for
 * RMSNorm.  Returns NL_OK or NL_EARG (d == 0, NULL pointer). */
int nl_forward_stats(nl_norm norm, const float *x, float eps, size_t rows,
                     size_t d, float *mean, float *rstd);

/* One backward pass through `rows` rows of width d, given dy = dL/dy:
 *
 *   LayerNorm, x^ = (x - mean) * rstd, g = gamma * dy:
 *     dx     = rstd * (g - mean_row(g) - x^ * mean_row(g * x^))
 *     dgamma += sum_rows dy * x^          dbeta += sum_rows dy
 *   RMSNorm, g = gamma * dy:
 *     dx     = rstd * g - rstd^3 * x * mean_row(g * x)
 *     dgamma += sum_rows dy * x * rstd    (no beta)
 *
 * mean and rstd are what nl_forward_stats saved (mean is ignored, and may
 * be NULL, for RMSNorm).  dx is written.  dgamma and dbeta ACCUMULATE:
 * the kernel adds this batch's gradient to what they hold, as training
 * code expects when a parameter is used several times or over
 * micro-batches; zero them first for the gradient alone.  dbeta is
 * LayerNorm's only (RMSNorm implementations ignore it; pass NULL).
 * Gemma's RMSNorm scales by (1 + w): pass gamma = 1 + w; the gradient for
 * w is then dgamma itself (d(1 + w)/dw = 1).
 * dx must not overlap any input.  rows == 0 is a no-op.  A NaN or Inf in
 * a row of x or dy spoils that row of dx and, being summed over rows,
 * dgamma/dbeta; the other rows of dx are unaffected.
 * Threaded and OpenCL implementations reduce dgamma/dbeta from per-chunk
 * partial sums in a fixed order: the same bits for any thread count.
 * Returns 0 or a negative NL_E* code. */
typedef int (*nl_backward_fn)(const float *x, const float *gamma,
                              const float *mean, const float *rstd,
                              const float *dy, size_t rows, size_t d,
                              float *dx, float *dgamma, float *dbeta);

/* The backward registry (code/backward/registry.def), the same spirit as
 * nl_impls: tests, `normlab gradcheck` and the bench iterate it.
 * tol bounds the relative error of each tensor against the double
 * reference, max |got - want| / max |want| (see nl_grad_rel_err). */
typedef struct nl_bwd_impl {
    const char    *name;     /* "rmsnorm_bwd_fused" */
    nl_norm        norm;
    int            chapter;
    nl_backward_fn fn;
    unsigned       requires; /* NL_REQ_* bits */
    unsigned       props;    /* NL_PROP_* bits */
    double         tol;
    const char    *summary;
} nl_bwd_impl;

const nl_bwd_impl *nl_bwd_impls(size_t *count);
const nl_bwd_impl *nl_find_bwd_impl(const char *name);
/* NULL when `impl` can run here, else a reason. */
const char *nl_bwd_impl_unavailable(const nl_bwd_impl *impl);

/* The double reference: statistics from x in double, then the formulas
 * above; dx, dgamma and dbeta are WRITTEN (not accumulated).  dbeta may
 * be NULL (RMSNorm leaves it alone).  weight_offset = 1: the forward
 * scales by (1 + gamma), Gemma's RMSNorm; dgamma is then for w = gamma. */
int nl_backward_reference(nl_norm norm, const float *x, const float *gamma,
                          const float *dy, double eps, int weight_offset,
                          size_t rows, size_t d, double *dx, double *dgamma,
                          double *dbeta);

/* The same gradients of L = sum(dy * y) by central finite differences in
 * double, (L(p + h) - L(p - h)) / 2h for every x and gamma (and beta),
 * each step h scaled by max(1, |p|).  Costs O(rows * d^2): meant for
 * small shapes.  Returns NL_OK, NL_EARG or NL_ENOMEM. */
int nl_backward_numeric(nl_norm norm, const float *x, const float *gamma,
                        const float *dy, double eps, int weight_offset,
                        double h, size_t rows, size_t d, double *dx,
                        double *dgamma, double *dbeta);

/* max |got - want| / max |want| over n values (a tensor's relative error);
 * NaN when got holds a NaN; the absolute error when want is all zero. */
double nl_grad_rel_err(const float *got, const double *want, size_t n);
double nl_grad_rel_err_d(const double *got, const double *want, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* NORMLAB_H */
