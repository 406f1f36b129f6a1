/* run_backward.c — the backward mode of `normlab run` (chapter 10):
 *
 *   normlab run IMPL --x X --gamma G --dy DY --out-dx DX --out-dgamma DG
 *                    [--out-dbeta DB] [--eps E]
 *
 * runs one registered backward implementation (rmsnorm_bwd_fused, ...) on
 * a reader's float32 arrays, so its gradients can be compared with
 * PyTorch's autograd.  The statistics a training forward saves (mean and
 * rstd per row) are computed from x and --eps, as nl_forward_stats does;
 * dgamma and dbeta are written as this batch's gradient alone (the kernels
 * accumulate, here into zeros). */
#include <stdio.h>
#include <string.h>

#include "run.h"

static int backward(run_ctx *ctx)
{
    const nl_bwd_impl *im = nl_find_bwd_impl(ctx->impl);
    if (!im)
        return run_fail("--dy asks for a backward pass, and '%s' is not a backward "
                        "implementation (normlab impls lists them, e.g. rmsnorm_bwd_fused)",
                        ctx->impl);
    nl_array *x = run_input(ctx, "x");
    if (x->ndim != 2 || x->shape[0] == 0 || x->shape[1] == 0)
        return run_fail("%s: x must be 2-D (rows, d) with rows, d >= 1 (reshape with "
                        "x.reshape(-1, d))", run_input_path(ctx, "x"));
    size_t rows = x->shape[0], d = x->shape[1];
    int ln = im->norm == NL_LAYERNORM;
    if (run_check_f32(ctx, "x", 2, rows, d) || run_check_f32(ctx, "dy", 2, rows, d) ||
        run_check_f32(ctx, "gamma", 1, rows, d))
        return 2;
    if (run_input(ctx, "beta") && !ln)
        return run_fail("--beta given, but %s is RMSNorm, which has no shift", im->name);
    if (run_input(ctx, "beta") && run_check_f32(ctx, "beta", 1, rows, d))
        return 2; /* the gradient does not depend on beta; a wrong file is still wrong */
    if (!run_given(ctx, "out-dx") || !run_given(ctx, "out-dgamma"))
        return run_fail("the backward pass writes --out-dx and --out-dgamma (and, for "
                        "LayerNorm, --out-dbeta if you want it): give both");
    if (run_given(ctx, "out-dbeta") && !ln)
        return run_fail("--out-dbeta given, but %s is RMSNorm, which has no beta", im->name);
    const char *why = nl_bwd_impl_unavailable(im);
    if (why)
        return run_fail("%s cannot run here: %s", im->name, why);

    size_t n = rows * d;
    float *buf = nl_alloc((n + 2 * d + 2 * rows) * sizeof(float));
    if (!buf)
        return run_fail("no memory for %zu x %zu gradients", rows, d);
    float *dx = buf, *dgamma = buf + n, *dbeta = dgamma + d, *mean = dbeta + d, *rstd = mean + rows;
    memset(dgamma, 0, 2 * d * sizeof(float));
    const float *xs = x->data, *dy = run_input(ctx, "dy")->data;
    const float *gamma = run_input(ctx, "gamma")->data;
    int rc = nl_forward_stats(im->norm, xs, ctx->eps, rows, d, mean, rstd);
    if (rc == NL_OK)
        rc = im->fn(xs, gamma, ln ? mean : NULL, rstd, dy, rows, d, dx, dgamma, ln ? dbeta : NULL);
    int status;
    if (rc != NL_OK) {
        fprintf(stderr, "normlab run: %s failed: %s\n", im->name, nl_last_error());
        status = 1;
    } else {
        status = run_write(ctx, "out-dx", NL_DT_F32, dx, rows, d);
        if (!status)
            status = run_write(ctx, "out-dgamma", NL_DT_F32, dgamma, 0, d);
        if (!status && ln)
            status = run_write(ctx, "out-dbeta", NL_DT_F32, dbeta, 0, d);
    }
    nl_free(buf);
    return status;
}

const run_mode run_backward = {
    .name = "backward",
    .trigger = "dy",
    .inputs = {"dy"},
    .outputs = {"out-dx", "out-dgamma", "out-dbeta"},
    .run = backward,
};
