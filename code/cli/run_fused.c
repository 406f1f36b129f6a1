/* run_fused.c — the fused add + norm mode of `normlab run` (chapter 9):
 *
 *   normlab run IMPL --x X --residual R --gamma G [--beta B] [--eps E]
 *                    --out Y --residual-out R2
 *
 * runs one fused registry entry (fused_add_rmsnorm_avx2, ...): R2 = R + X
 * and Y = Norm(R2), on a reader's float32 arrays, so the result can be
 * compared with an engine's fused kernel or with the unfused pair. */
#include <stdio.h>
#include <string.h>

#include "run.h"

static int fused(run_ctx *ctx)
{
    const nl_fused_impl *im = nl_find_fused(ctx->impl);
    if (!im)
        return run_fail("--residual asks for a fused add + norm, and '%s' is not one "
                        "(normlab impls lists them, e.g. fused_add_rmsnorm)", ctx->impl);
    nl_array *x = run_input(ctx, "x");
    if (x->ndim != 2 || x->shape[0] == 0 || x->shape[1] == 0)
        return run_fail("%s: x must be 2-D (rows, d) with rows, d >= 1", run_input_path(ctx, "x"));
    size_t rows = x->shape[0], d = x->shape[1];
    int ln = im->norm == NL_FUSED_LAYERNORM;
    if (run_check_f32(ctx, "x", 2, rows, d) || run_check_f32(ctx, "residual", 2, rows, d) ||
        run_check_f32(ctx, "gamma", 1, rows, d))
        return 2;
    if (ln != (run_input(ctx, "beta") != NULL))
        return run_fail(ln ? "%s is LayerNorm: give --beta" : "--beta given, but %s has no shift",
                        im->name);
    if (ln && run_check_f32(ctx, "beta", 1, rows, d))
        return 2;
    if (!run_given(ctx, "out") || !run_given(ctx, "residual-out"))
        return run_fail("the fused pass writes --out (the norm) and --residual-out (the "
                        "updated residual stream): give both");
    const char *why = nl_fused_unavailable(im);
    if (why)
        return run_fail("%s cannot run here: %s", im->name, why);

    size_t n = rows * d;
    float *buf = nl_alloc(2 * n * sizeof(float));
    if (!buf)
        return run_fail("no memory for %zu x %zu outputs", rows, d);
    float *residual = buf, *y = buf + n;
    memcpy(residual, run_input(ctx, "residual")->data, n * sizeof(float));
    const float *beta = ln ? run_input(ctx, "beta")->data : NULL;
    int rc = im->fn(x->data, residual, run_input(ctx, "gamma")->data, beta, ctx->eps, rows, d, y);
    int status;
    if (rc != NL_OK) {
        fprintf(stderr, "normlab run: %s failed: %s\n", im->name, nl_last_error());
        status = 1;
    } else {
        status = run_write(ctx, "out", NL_DT_F32, y, rows, d);
        if (!status)
            status = run_write(ctx, "residual-out", NL_DT_F32, residual, rows, d);
    }
    nl_free(buf);
    return status;
}

const run_mode run_fused = {
    .name = "fused add + norm",
    .trigger = "residual",
    .inputs = {"residual"},
    .outputs = {"out", "residual-out"},
    .run = fused,
};
