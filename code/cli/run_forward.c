/* run_forward.c — the default mode of `normlab run`: one forward pass.
 * f32 data goes to an f32 implementation; bf16/fp16 data to a kernel of
 * the bf16/fp16 registry, chosen by name or by --cast. */
#include <stdio.h>
#include <string.h>

#include "run.h"

static const char *shape_text(const nl_array *a, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "(");
    for (size_t i = 0; i < a->ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%zu%s", a->shape[i],
                                 a->ndim == 1 ? "," : i + 1 < a->ndim ? ", " : "");
    if (used < n)
        snprintf(buf + used, n - used, ")");
    return buf;
}

/* A 1-D array of d values of dtype `want` (the weight or bias). */
static int check_param(run_ctx *ctx, const char *name, size_t d, nl_dtype want)
{
    nl_array *a = run_input(ctx, name);
    const char *path = run_input_path(ctx, name);
    char shape[96];
    if (a->ndim != 1 || a->shape[0] != d)
        return run_fail("%s: %s must be 1-D with d = %zu values (x's last dimension); it has "
                        "shape %s", path, name, d, shape_text(a, shape, sizeof shape));
    int have = a->elem == NL_ELEM_F32 ? NL_DT_F32 : a->elem == NL_ELEM_F16 ? NL_DT_F16 : NL_DT_BF16;
    if (have != (int)want)
        return run_fail("%s: %s holds %s ('%s'); this cast order needs it in %s", path, name,
                        nl_dtype_name((nl_dtype)have), a->descr, nl_dtype_name(want));
    return 0;
}

/* The bf16/fp16 kernel for IMPL on data of dtype dt, or NULL after a message. */
static const nl_half_impl *half_kernel(run_ctx *ctx, nl_dtype dt)
{
    const nl_half_impl *h = nl_find_half_impl(ctx->impl);
    if (h) {
        if (h->dtype != dt) {
            run_fail("%s runs %s data; %s holds %s", h->name, nl_dtype_name(h->dtype),
                     run_input_path(ctx, "x"), nl_dtype_name(dt));
            return NULL;
        }
        if (ctx->cast >= 0 && (nl_cast)ctx->cast != h->cast) {
            run_fail("%s has cast order %s, not %s (--cast picks the kernel of an f32 IMPL name)",
                     h->name, nl_cast_name(h->cast), nl_cast_name((nl_cast)ctx->cast));
            return NULL;
        }
        return h;
    }
    const nl_impl *f = nl_find_impl(ctx->impl);
    nl_cast cast = ctx->cast >= 0 ? (nl_cast)ctx->cast
                 : f->norm == NL_LAYERNORM ? NL_CAST_TORCH : NL_CAST_LLAMA;
    if (nl_cast_norm(cast) != f->norm) {
        run_fail("cast order %s is %s, but %s is %s", nl_cast_name(cast),
                 nl_norm_name(nl_cast_norm(cast)), f->name, nl_norm_name(f->norm));
        return NULL;
    }
    h = nl_half_scalar_of(cast, dt);
    fprintf(stderr, "normlab run: %s data: running %s (cast order %s)\n", nl_dtype_name(dt),
            h->name, nl_cast_name(cast));
    return h;
}

static int forward(run_ctx *ctx)
{
    const nl_impl *f = nl_find_impl(ctx->impl);
    if (!f && !nl_find_half_impl(ctx->impl))
        return run_fail("no implementation '%s' (normlab impls lists them)", ctx->impl);
    nl_array *x = run_input(ctx, "x");
    char shape[96];
    if (x->ndim != 2 || x->shape[0] == 0 || x->shape[1] == 0)
        return run_fail("%s: x must be 2-D (rows, d) with rows, d >= 1; it has shape %s "
                        "(reshape with x.reshape(-1, d))", run_input_path(ctx, "x"),
                        shape_text(x, shape, sizeof shape));
    size_t rows = x->shape[0], d = x->shape[1];
    int dt = run_input_dtype(ctx, "x");
    if (dt < 0)
        return 2;
    if (dt == NL_DT_F32 && !f)
        return run_fail("%s runs 16-bit data; %s holds float32", ctx->impl, run_input_path(ctx, "x"));
    if (dt == NL_DT_F32 && ctx->cast >= 0)
        return run_fail("--cast applies to bf16/fp16 data; %s holds float32", run_input_path(ctx, "x"));

    const nl_half_impl *h = dt == NL_DT_F32 ? NULL : half_kernel(ctx, (nl_dtype)dt);
    if (dt != NL_DT_F32 && !h)
        return 2;
    nl_norm norm = h ? h->norm : f->norm;
    nl_dtype wdt = h ? nl_cast_weight_dtype(h->cast, (nl_dtype)dt) : NL_DT_F32;
    if (check_param(ctx, "gamma", d, wdt))
        return 2;
    nl_array *beta = run_input(ctx, "beta");
    if (beta && norm == NL_RMSNORM)
        return run_fail("--beta given, but %s is RMSNorm, which has no shift", h ? h->name : f->name);
    if (beta && check_param(ctx, "beta", d, wdt))
        return 2;
    const char *why = h ? nl_half_unavailable(h) : nl_impl_unavailable(f);
    if (why)
        return run_fail("%s cannot run here: %s", h ? h->name : f->name, why);

    size_t esize = nl_dtype_size((nl_dtype)dt);
    void *y = nl_alloc(rows * d * esize);
    void *zeros = norm == NL_LAYERNORM && !beta ? nl_alloc(d * esize) : NULL;
    if (!y || (norm == NL_LAYERNORM && !beta && !zeros)) {
        nl_free(y);
        return run_fail("no memory for %zu x %zu outputs", rows, d);
    }
    if (zeros)
        memset(zeros, 0, d * esize); /* +0 in f32, bf16 and fp16 alike */
    const void *b = beta ? beta->data : zeros;
    const void *g = run_input(ctx, "gamma")->data;
    int rc = h ? h->fn((nl_dtype)dt, x->data, g, b, ctx->eps, rows, d, y)
               : f->fn(x->data, g, norm == NL_LAYERNORM ? b : NULL, ctx->eps, rows, d, y);
    int status = 0;
    if (rc != NL_OK) {
        fprintf(stderr, "normlab run: %s failed: %s\n", h ? h->name : f->name, nl_last_error());
        status = 1;
    } else {
        status = run_write(ctx, "out", (nl_dtype)dt, y, rows, d);
    }
    nl_free(y);
    nl_free(zeros);
    return status;
}

const run_mode run_forward = {
    .name = "forward",
    .trigger = NULL,
    .outputs = {"out"},
    .run = forward,
};
