/* fused_registry.c — the list of fused add + norm implementations
 * (chapter 9): its own table, because the signature is not nl_forward_fn.
 * Adding one is one file and one NL_FUSED line in code/block/registry.def
 * (the OpenCL host code adds its lines from code/opencl/fused.def).
 * The registry calls the kernels; what the kernels themselves need (the
 * base norm, the argument checks) is in fused_args.c, below both. */
#include "normlab.h"

#include <string.h>

#include "block/block.h"

#define NL_FUSED(name, norm, chapter, pair, req, props, tol, fused, summary) \
    int nl_##name(NL_FUSED_ARGS);
#include "block/registry.def"
#include "opencl/fused.def"
#undef NL_FUSED

#define NL_FUSED(name, norm, chapter, pair, req, props, tol, fused, summary) \
    {#name, norm, chapter, nl_##name, #pair, req, props, tol, fused, summary},
static const nl_fused_impl registry[] = {
#include "block/registry.def"
#include "opencl/fused.def"
};
#undef NL_FUSED

const nl_fused_impl *nl_fused_impls(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const nl_fused_impl *nl_find_fused(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

const char *nl_fused_unavailable(const nl_fused_impl *impl)
{
    /* The same machine questions as a forward implementation's. */
    nl_impl probe = {.name = impl->name, .requires = impl->requires};
    return nl_impl_unavailable(&probe);
}

const char *nl_fused_norm_name(nl_fused_norm norm)
{
    switch (norm) {
    case NL_FUSED_RMSNORM: return "RMSNorm";
    case NL_FUSED_RMSNORM_GEMMA: return "RMSNorm (1+w)";
    default: return "LayerNorm";
    }
}

int nl_fused_unfused(const nl_fused_impl *impl, const float *x, float *residual,
                     const float *gamma, const float *beta, float eps, size_t rows,
                     size_t d, float *y)
{
    const nl_impl *pair = nl_find_impl(impl->pair);
    if (!pair) {
        nl_set_error("%s: its pair %s is not a registered forward implementation",
                     impl->name, impl->pair);
        return NL_EARG;
    }
    nl_fused_plan plan = {nl_residual_add, pair->fn, NULL};
    return nl_add_then_norm(&plan, impl->norm, x, residual, gamma, beta, eps, rows, d, y);
}
