/* registry.c — the list of every forward implementation.
 *
 * Each implementation file defines `int nl_<name>(...)` with the nl_forward_fn
 * signature; one NL_IMPL line in its chapter folder's registry.def adds it here.
 * The .def files live in the chapter folders (scalar, simd, opencl) so each
 * area's list reads as one rung of the ladder. */
#include "normlab.h"

#include <string.h>

#define NL_IMPL(name, norm, chapter, req, props, tol, summary)               \
    int nl_##name(const float *, const float *, const float *, float, size_t, \
                  size_t, float *);
#include "scalar/registry.def"
#include "simd/registry.def"
#include "opencl/registry.def"
#include "block/forward.def"
#undef NL_IMPL

#define NL_IMPL(name, norm, chapter, req, props, tol, summary) \
    {#name, norm, chapter, nl_##name, req, props, tol, summary},
static const nl_impl registry[] = {
#include "scalar/registry.def"
#include "simd/registry.def"
#include "opencl/registry.def"
#include "block/forward.def"
};
#undef NL_IMPL

const nl_impl *nl_impls(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const nl_impl *nl_find_impl(const char *name)
{
    size_t n;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

const char *nl_norm_name(nl_norm norm)
{
    return norm == NL_LAYERNORM ? "LayerNorm" : "RMSNorm";
}

