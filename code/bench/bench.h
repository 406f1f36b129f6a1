/* bench.h — the pieces of `normlab bench` that tests can reach: the copy
 * roofs, shape parsing, the CSV writer and the oneDNN peer.  The command
 * itself (code/cli/bench*.c) only strings them together. */
#ifndef NL_BENCH_H
#define NL_BENCH_H

#include <stdio.h>
#include <stddef.h>

#include "normlab.h"

/* ------------------------------------------------------------ copy roofs */

/* A norm reads every input float once and writes every output float once,
 * so no implementation can beat a copy of the same bytes on the same
 * threads.  Each roof copies n floats from src to dst with the current
 * OpenMP thread count, every thread taking one contiguous slice. */
typedef enum {
    NL_COPY_MEMCPY = 0, /* libc memcpy per slice: whatever the C library does best */
    NL_COPY_LOOP,       /* plain load/store loop, as a norm's output loop is written */
    NL_COPY_STREAM,     /* non-temporal stores + prefetch (x86-64); the loop elsewhere */
    NL_COPY_KINDS
} nl_copy_kind;

const char *nl_copy_name(nl_copy_kind kind); /* "memcpy", "loop", "stream" */
void nl_copy(nl_copy_kind kind, const float *src, float *dst, size_t n);
#if defined(__x86_64__)
/* The stream copy on CPUs with AVX-512F (copy_stream_avx512.c). */
void nl_copy_stream_avx512(const float *restrict src, float *restrict dst, size_t n);
#endif

/* ---------------------------------------------------------------- shapes */

typedef struct { size_t rows, d; } nl_shape;

/* "4096x4096" (or "4096X4096") into a shape; returns 0 with the reason in
 * nl_last_error() on anything else, including products that overflow
 * size_t or that need more memory (input, output) than the machine has. */
int nl_parse_shape(const char *text, nl_shape *out);
/* Bytes one timed pass moves: rows*d floats read plus as many written. */
double nl_shape_bytes(nl_shape s);

/* Where one pass over a shape's bytes (input and output) can live, from
 * the cache sizes of nl_cache_sizes: "L2" when each thread's share fits
 * its core's L2, "L3" when the whole fits the last-level cache, else
 * "memory".  A virtual machine may report any L3 size: the label says
 * what the report implies, which is why the bench prints it and where it
 * came from (nl_cache_source). nl_bytes_regime does the same for a pass
 * of `bytes` (a 16-bit row moves half the bytes of its f32 shape). */
const char *nl_shape_regime(nl_shape s, size_t threads);
const char *nl_bytes_regime(double bytes, size_t threads);
/* The per-core L2 and last-level cache in bytes (0: unknown): the core's
 * own sysfs entries (/sys/devices/system/cpu/cpu0/cache/index*), else
 * sysconf (what getconf prints). */
void nl_cache_sizes(double *l2, double *l3);
/* Where nl_cache_sizes found them: "sysfs", "sysconf", or "" (nowhere). */
const char *nl_cache_source(void);

/* "1,2,8" into at most `max` counts, each in 1..max_value; returns how
 * many, or 0 with the reason in nl_last_error(). */
size_t nl_parse_count_list(const char *text, size_t max_value, size_t *out,
                           size_t max);

/* ------------------------------------------------------------------ CSV */

/* One measurement of one implementation on one shape and thread count. */
typedef struct {
    const char *impl;
    const char *norm;     /* "LayerNorm" / "RMSNorm" */
    const char *device;   /* where it ran: "cpu", "opencl" */
    const char *dtype;    /* what x and y hold: "f32" (other chapters: "bf16", ...) */
    double bytes_per_elem; /* bytes one element moves through memory: 8 for
                              f32 in, f32 out; gbps counts rows*d of these */
    size_t rows, d, threads;
    int peer;             /* 1 for a library we compare against (oneDNN) */
    const char *status;   /* "ok", or "invalid" when validation failed */
    size_t samples, reps; /* reps: calls per sample (small shapes) */
    double median_s, p10_s, p90_s; /* seconds per call */
    double gbps;          /* (read + written) bytes / median_s / 1e9 */
    double copy_gbps;     /* the roof: fastest copy of the same bytes, same run */
    const char *roof;     /* which copy that was */
    double frac_copy, frac_p10, frac_p90; /* copy time / kernel time, per pair */
    double speedup;       /* naive median / this median; NaN when no naive ran */
    double max_err, tol;
    double copy_gbps_by_kind[NL_COPY_KINDS];
    double h2d_gbps, d2h_gbps; /* device rows: host<->device copies, timed apart */
    const char *regime;   /* nl_shape_regime: "L2", "L3", "memory" ("" unknown) */
    const char *isa;      /* the SIMD path the dispatchers took (nl_isa_name:
                             "avx2" under NORMLAB_ISA=avx2 or on an AVX2-only
                             CPU); "" for a device row, or a file older than
                             the column */
} nl_bench_row;

/* Opens `path` for a new CSV: refuses (returns NULL, the reason in
 * nl_last_error()) when the file exists unless `force`.  Writes each
 * `notes` line as a "# " comment, then the header; a note holding a
 * newline or carriage return is refused (it would end the comment and
 * start a data line). */
FILE *nl_csv_open(const char *path, int force, const char *const *notes,
                  size_t nnotes);
void nl_csv_header(FILE *f);
void nl_csv_row(FILE *f, const nl_bench_row *row);
/* The header line's text, without newline (tests compare against it). */
const char *nl_csv_columns(void);

/* Reading a CSV back (`bench --show`, the book): the header names the
 * columns, so files written before a column was added still read; a
 * column missing from an old file reads as empty (device "cpu", dtype
 * "f32", 8 bytes per element). */
typedef struct { int col[32]; int ncols; } nl_csv_layout;
/* The header line (modified in place) into a layout; 0 with the reason in
 * nl_last_error() when a column every file has is missing. */
int nl_csv_read_header(char *line, nl_csv_layout *layout);
/* One data line (modified in place: the row's strings point into it);
 * 0 when it has too few fields. */
int nl_csv_read_row(char *line, const nl_csv_layout *layout, nl_bench_row *row);
/* A whole CSV file: each "#" line, newline included, to `comment` (may be
 * NULL), each data line with its fields to `row` (its strings live until
 * the next line; returning 0 stops the reading, with the reason the
 * callback put in nl_last_error()). Returns 1, or 0 with the reason in
 * nl_last_error(): PATH cannot be read, its header lacks a column, it has
 * no header, or `row` stopped it. */
int nl_csv_read_file(const char *path, void (*comment)(const char *line, void *ctx),
                     int (*row)(const nl_bench_row *r, void *ctx), void *ctx);

/* ------------------------------------------------------------ measuring */

/* One problem: rows x d inputs, parameters and an output buffer. */
typedef struct {
    size_t rows, d;
    float eps;
    float *x, *y, *gamma, *beta;
} nl_bench_data;

/* Allocates and fills a problem (unit-variance inputs, gamma in [0.5, 1],
 * beta in [-0.5, 0.5]); the same seed gives the same data on any thread
 * count.  Returns 0, or NL_ENOMEM with nothing left allocated. */
int nl_bench_data_new(nl_bench_data *b, size_t rows, size_t d, unsigned long long seed);
void nl_bench_data_free(nl_bench_data *b);

/* Runs fn once over the whole problem and returns max |y - reference| over
 * the rows checked: every row of a small problem, an even sample of 256
 * rows (first and last included) of a large one.  NaN when an output is
 * NaN; *rc gets fn's return code. */
double nl_bench_validate(nl_norm norm, nl_forward_fn fn, const nl_bench_data *b, int *rc);

/* Times fn: warm-up, then `samples` samples, each paired with one sample
 * of every copy roof over the same bytes, taken right after (or, every
 * other sample, right before) it so that both see the same machine.  Fills
 * the timing fields of `row` (median_s .. copy_gbps_by_kind, samples,
 * reps, roof).  Returns fn's first non-zero return code, or 0. */
int nl_bench_time(nl_forward_fn fn, nl_norm norm, const nl_bench_data *b,
                  size_t samples, nl_bench_row *row);

/* The same for any pass that reads `bytes_each_way` bytes and writes as
 * many (a 16-bit kernel moves half the bytes of an f32 one): `call(ctx)`
 * is one pass, and the copy roofs copy that many bytes from src to dst
 * (both at least that large, rounded up to whole floats). */
typedef int (*nl_bench_call)(void *ctx);
int nl_bench_time_call(nl_bench_call call, void *ctx, const void *src, void *dst,
                       size_t bytes_each_way, size_t samples, nl_bench_row *row);

/* ---------------------------------------------------------- oneDNN peer */

/* NULL when the peer can run, else why not ("oneDNN not installed"). */
const char *nl_onednn_unavailable(void);
/* "oneDNN 2.6.3" or "" */
const char *nl_onednn_version(void);
/* One LayerNorm forward pass through oneDNN (f32, inference, scale and
 * shift), with whatever OpenMP thread count is set.  The primitive is
 * built once per shape and thread count and cached; nl_onednn_release
 * frees it.  Returns 0 or a negative NL_E* code with nl_last_error(). */
int nl_onednn_layernorm(const float *x, const float *gamma, const float *beta,
                        float eps, size_t rows, size_t d, float *y);
void nl_onednn_release(void);

#endif
