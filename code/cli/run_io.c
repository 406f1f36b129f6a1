/* run_io.c — what every mode of `normlab run` reads and writes through
 * (see run.h): its inputs by option name, the dtype they hold, the checks
 * on their shape, its outputs, and the one way to fail with a message.
 *
 * These live apart from run.c, the command that parses the options and
 * picks the mode, so that calls go one way: run.c calls the modes, and the
 * modes and run.c both call this file, never each other. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

int run_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("normlab run: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

nl_array *run_input(run_ctx *ctx, const char *name)
{
    for (int i = 0; i < ctx->n_in; i++)
        if (!strcmp(ctx->in_name[i], name))
            return &ctx->in[i];
    return NULL;
}

const char *run_input_path(run_ctx *ctx, const char *name)
{
    for (int i = 0; i < ctx->n_in; i++)
        if (!strcmp(ctx->in_name[i], name))
            return ctx->in_path[i];
    return "?";
}

int run_input_dtype(run_ctx *ctx, const char *name)
{
    nl_array *a = run_input(ctx, name);
    const char *path = run_input_path(ctx, name);
    int dt = a->elem == NL_ELEM_F32 ? NL_DT_F32 : a->elem == NL_ELEM_F16 ? NL_DT_F16 : NL_DT_BF16;
    if (a->elem == NL_ELEM_U16 && ctx->dtype != NL_DT_BF16) {
        const nl_half_impl *h = nl_find_half_impl(ctx->impl);
        if (!h || h->dtype != NL_DT_BF16) {
            run_fail("%s holds 16-bit raw values ('%s'): if they are bf16, say --dtype bf16",
                     path, a->descr);
            return -1;
        }
    }
    if (ctx->dtype >= 0 && ctx->dtype != dt && !(a->elem == NL_ELEM_U16)) {
        run_fail("%s holds %s ('%s') but --dtype says %s", path, nl_dtype_name((nl_dtype)dt),
                 a->descr, nl_dtype_name((nl_dtype)ctx->dtype));
        return -1;
    }
    return dt;
}

int run_write(run_ctx *ctx, const char *name, nl_dtype dt, const void *data,
              size_t rows, size_t d)
{
    const char *path = NULL;
    int slot = 0;
    for (int i = 0; i < ctx->n_out; i++)
        if (!strcmp(ctx->out_name[i], name))
            path = ctx->out_path[i], slot = i;
    if (!path)
        return 0; /* an output the user did not ask for */
    nl_array a = {
        .elem = dt == NL_DT_F32 ? NL_ELEM_F32 : dt == NL_DT_F16 ? NL_ELEM_F16 : NL_ELEM_U16,
        .ndim = rows ? 2 : 1,
        .shape = {rows ? rows : d, d},
        .data = (void *)data,
    };
    nl_array *x = run_input(ctx, "x");
    int as_void = x && strchr(x->descr, 'V') != NULL;
    nl_npy_discard(ctx->staged[slot]);
    ctx->staged[slot] = NULL;
    if (nl_npy_stage(path, &a, as_void, &ctx->staged[slot]) != NL_OK)
        return run_fail("--%s: %s", name, nl_last_error());
    return 0;
}

int run_given(const run_ctx *ctx, const char *output)
{
    for (int i = 0; i < ctx->n_out; i++)
        if (!strcmp(ctx->out_name[i], output))
            return 1;
    return 0;
}

/* `name` holds float32 of exactly this shape (ndim 1: d; ndim 2: rows x d). */
int run_check_f32(run_ctx *ctx, const char *name, size_t ndim, size_t rows, size_t d)
{
    nl_array *a = run_input(ctx, name);
    const char *path = run_input_path(ctx, name);
    int dt = run_input_dtype(ctx, name);
    if (dt < 0)
        return 2;
    if (dt != NL_DT_F32)
        return run_fail("%s: %s holds %s; this mode runs float32 kernels (cast it: "
                        "a.astype(np.float32))", path, name, nl_dtype_name((nl_dtype)dt));
    if (ndim == 1 && (a->ndim != 1 || a->shape[0] != d))
        return run_fail("%s: %s must be 1-D with d = %zu values (x's last dimension)", path,
                        name, d);
    if (ndim == 2 && (a->ndim != 2 || a->shape[0] != rows || a->shape[1] != d))
        return run_fail("%s: %s must have x's shape (%zu, %zu)", path, name, rows, d);
    return 0;
}
