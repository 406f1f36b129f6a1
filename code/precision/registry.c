/* registry.c — the table of bf16/fp16 implementations (chapter 8).
 * Their signature differs from nl_forward_fn (16-bit data, a dtype, a
 * weight whose type the cast order decides), so they have their own table;
 * the tests and the benchmark iterate it the way they iterate nl_impls(). */
#include "precision/precision.h"

#include <string.h>

#define NL_HALF_IMPL(name, fn, norm, cast, dtype, req, ulp, summary) \
    {#name, norm, cast, dtype, 8, nl_##fn, req, ulp, summary},
static const nl_half_impl registry[] = {
#include "precision/registry.def"
};
#undef NL_HALF_IMPL

const nl_half_impl *nl_half_impls(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const nl_half_impl *nl_find_half_impl(const char *name)
{
    for (size_t i = 0; name && i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

const nl_half_impl *nl_half_scalar_of(nl_cast cast, nl_dtype dt)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i].cast == cast && registry[i].dtype == dt)
            return &registry[i]; /* registry.def lists the scalar lines first */
    return NULL;
}

const char *nl_half_unavailable(const nl_half_impl *impl)
{
    nl_impl as_f32 = {.name = impl->name, .requires = impl->requires};
    return nl_impl_unavailable(&as_f32);
}
