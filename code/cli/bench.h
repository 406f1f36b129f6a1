/* bench.h — the parts of `normlab bench`, one file each:
 *   bench.c          the command: options, defaults, --show or a run
 *   bench_entries.c  what can be timed: one table of row kinds
 *   bench_half.c, bench_fused.c, bench_backward.c, bench_gpt2.c  the kinds
 *                    of later chapters
 *   bench_select.c   which names and dtypes the options ask for
 *   bench_run.c      the run: check, time, print, write the CSV
 *   bench_show.c     --show: an earlier run's CSV as a table
 *   bench_goals.c    --goals: earlier runs against the course's goals
 *   bench_table.c    the one row printer both use
 *   bench_provenance.c  where the numbers came from, for the CSV
 *   bench_threads.c  cores and thread counts
 * Measurement itself (data, validation, timing, copy roofs, CSV format)
 * is library code in code/bench/ and code/opencl/measure.c. */
#ifndef NL_CLI_BENCH_H
#define NL_CLI_BENCH_H

#include <stddef.h>

#include "bench/bench.h"
#include "normlab.h"

#define BENCH_MAX_LIST 32

typedef struct {
    nl_shape shapes[BENCH_MAX_LIST];
    size_t nshapes;
    size_t threads[BENCH_MAX_LIST];
    size_t nthreads;
    size_t samples;
    int quick, force, no_peer, opencl;
    const char *csv;
    const char *impls;  /* comma list, or NULL for all */
    const char *device; /* OpenCL device spec, or NULL */
    const char *notes[BENCH_MAX_LIST];
    size_t nnotes;
    const char *show;   /* --show: NULL, "" (the default CSV) or a file */
    const char *goal_files[BENCH_MAX_LIST]; /* --goals: runs' CSVs to hold to the goals */
    size_t ngoal_files;
    int fused;          /* --fused: chapter 9's fused add + norm rows */
    int gpt2;           /* --gpt2: chapter 12's norms of the original and converted GPT-2 */
    int flashnorm;      /* --flashnorm: chapter 12's FlashNorm against norm then matmul */
    int dtypes;         /* --dtype: bits 1 << nl_dtype; 0 means f32 alone */
    int argc;           /* the command line, for the CSV's provenance */
    char **argv;
} bench_options;

/* One thing to time: an implementation on one device, in one dtype. */
typedef struct bench_entry bench_entry;
struct bench_entry {
    const char *name;
    nl_norm norm;
    const char *device;     /* "cpu", "opencl" */
    const char *dtype;      /* "f32" */
    double bytes_per_elem;  /* bytes one element moves: 8 for f32 in, f32 out */
    double tol;
    int threaded, peer;
    const char *unavailable; /* why it cannot run here, or NULL */
    nl_forward_fn fn;       /* f32 forward kernels: what the default hooks call */
    const void *impl;       /* other kinds: their own registry entry, for the hooks */
    /* max |y - reference| on b (NaN for NaN); *rc = the kernel's return
     * code.  NULL: nl_bench_validate(norm, fn, ...). */
    double (*check)(const bench_entry *e, const nl_bench_data *b, int *rc);
    /* Fills the timing fields of row; NL_OK or an NL_E* code.
     * NULL: nl_bench_time(fn, ...) against the host's copy roofs. */
    int (*time)(const bench_entry *e, const nl_bench_data *b, size_t samples, nl_bench_row *row);
};

/* bench_entries.c: every entry these options ask for, at most max. */
size_t bench_collect(const bench_options *o, bench_entry *out, size_t max);
/* bench_half.c: chapter 8's bf16/fp16 kernels, one kind of row. */
size_t bench_half_entries(const bench_options *o, bench_entry *out, size_t max);
int bench_half_knows(const char *name);
/* bench_fused.c: chapter 9's fused add + norm kernels, one kind of row. */
size_t bench_fused_entries(const bench_options *o, bench_entry *out, size_t max);
int bench_fused_knows(const char *name);
/* bench_backward.c: chapter 10's backward kernels, when --impl names them. */
size_t bench_backward_entries(const bench_options *o, bench_entry *out, size_t max);
int bench_backward_knows(const char *name);
/* bench_gpt2.c: chapter 12's GPT-2 norm and FlashNorm rows. */
size_t bench_gpt2_entries(const bench_options *o, bench_entry *out, size_t max);
int bench_gpt2_knows(const char *name);
/* Every name in --impl exists somewhere (a typo would time nothing);
 * 0 with a message naming it otherwise. */
int bench_check_names(const char *list);

/* bench_select.c: what the options select, asked by every kind of row.
 * Is `name` in the comma list (or is there no list)? */
int bench_listed(const char *list, const char *name);
/* Whether --dtype asked for rows of data type dt (f32 when it was not given). */
int bench_wants_dtype(const bench_options *o, int dt);

/* bench_run.c */
int bench_run(const bench_options *o);

/* bench_threads.c: the cores online; the OpenMP thread count to use. */
int bench_cores(void);
void bench_set_threads(size_t t);

/* bench_show.c */
int bench_show(const bench_options *o);
/* bench_goals.c: --goals, the runs of o->goal_files against bench_goals.def */
int bench_goals(const bench_options *o);

/* bench_table.c: a block's header (with the cache regime its bytes are
 * in, nl_shape_regime, when known), then its rows.  The header states the
 * bytes of the rows' dtype (bf16/f16 rows move 2 bytes a value, not 4), so
 * a new header starts wherever bench_block_changes says the dtype's size
 * does.  wide adds the spread and the error; narrow (--show) fits a book
 * page. */
void bench_print_block(nl_shape s, size_t threads, const char *regime, const char *dtype,
                       int wide);
int bench_block_changes(const char *dtype, const char *last_dtype);
void bench_print_row(const nl_bench_row *r, const char *why, int wide);

/* bench_provenance.c: the CSV's "# " lines; returns how many. */
size_t bench_provenance(const bench_options *o, int opencl_rows, char lines[][512], size_t max);

#endif
