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
 * rows == 0 is a no-op.  d must be >= 1 (callers check; nl_check_args helps).
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

/* Summary of repeated timings: machines are shared and noisy, so the
 * course reports medians and spread, never a single run. */
typedef struct { double median, min, max, p10, p90; size_t n; } nl_stats;
/* Sorts samples[0..n) in place; n >= 1. */
nl_stats nl_summarize(double *samples, size_t n);

/* ---------------------------------------------------------- config.json */
/* (section owned by the config reader; see code/config/) */

/* --------------------------------------------------------------- OpenCL */
/* (section owned by the OpenCL host code; see code/opencl/) */

/* NULL when an OpenCL device is usable, else why not ("no OpenCL platform"). */
const char *nl_opencl_unavailable(void);
/* `normlab bench --opencl ...`: the OpenCL benchmark (argv as given to bench). */
int nl_cl_bench_main(int argc, char **argv);

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

#ifdef __cplusplus
}
#endif
#endif /* NORMLAB_H */
