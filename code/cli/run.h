/* run.h — the modes of `normlab run`.
 *
 * `normlab run IMPL --x X --gamma G ... --out Y` reads arrays, runs one
 * implementation, writes arrays. A mode is what it runs: the forward pass
 * (run_forward.c), and, in later chapters, fused residual-add + norm or
 * the backward pass. A mode names the extra files it reads and writes; the
 * option parser, reading the files and the checks that nothing is
 * overwritten (run.c), and the inputs' dtype and writing outputs
 * (run_io.c) are shared. To add one: a file code/cli/run_NAME.c defining a
 * run_mode, and one line in run_modes.def. */
#ifndef NL_RUN_H
#define NL_RUN_H

#include "normlab.h"

enum { RUN_MAX_FILES = 8 };

typedef struct run_ctx run_ctx;

typedef struct {
    const char *name;        /* "forward", "fused", "backward" */
    const char *trigger;     /* the input option that selects this mode ("residual");
                                NULL for the default mode */
    const char *inputs[RUN_MAX_FILES];  /* input options besides x, gamma, beta */
    const char *outputs[RUN_MAX_FILES]; /* output options ("out", "residual-out") */
    int (*run)(run_ctx *ctx);           /* 0, or an exit code after a message */
} run_mode;

/* What a mode sees. */
struct run_ctx {
    const run_mode *mode;
    const char *impl;        /* IMPL as given */
    float eps;
    int cast;                /* -1 unless --cast */
    int dtype;               /* -1 unless --dtype */
    int force;
    const char *in_name[RUN_MAX_FILES + 3];
    const char *in_path[RUN_MAX_FILES + 3];
    nl_array in[RUN_MAX_FILES + 3];
    int n_in;
    const char *out_name[RUN_MAX_FILES];
    const char *out_path[RUN_MAX_FILES];
    char *staged[RUN_MAX_FILES]; /* written, not yet in place: run.c moves all or none */
    int n_out;
};

/* run_io.c: what a mode reads and writes through.
 * The input array read for option `name` ("x", "gamma", "residual"), or
 * NULL when the option was not given. */
nl_array *run_input(run_ctx *ctx, const char *name);
const char *run_input_path(run_ctx *ctx, const char *name);
/* The dtype an input holds: f32, f16, or bf16 (BF16 in safetensors, or
 * 16-bit raw with --dtype bf16). -1, after a message naming the file and
 * saying what to do, when it cannot be told. */
int run_input_dtype(run_ctx *ctx, const char *name);
/* Writes output `name` (an option of the mode) as .npy: elements of `dt`,
 * shape rows x d (1-D when rows is 0). bf16 is written the way x came
 * ('|V2' when x was, else '<u2'). The file is staged beside its path and
 * put in place by run.c only once the mode has returned 0 and every output
 * is staged: all outputs or none. 0, or exit code 2 after a message. */
int run_write(run_ctx *ctx, const char *name, nl_dtype dt, const void *data,
              size_t rows, size_t d);
/* Prints "normlab run: MESSAGE" to stderr and returns 2. */
int run_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Whether the output option `output` ("out-dx") was given. */
int run_given(const run_ctx *ctx, const char *output);
/* Input `name` holds float32 of exactly this shape (ndim 1: d values;
 * ndim 2: rows x d); else a message naming file and problem, and 2. */
int run_check_f32(run_ctx *ctx, const char *name, size_t ndim, size_t rows, size_t d);

/* The modes, each in its own file; run.c picks one. */
#define RUN_MODE(var) extern const run_mode var;
#include "run_modes.def"
#undef RUN_MODE

#endif
