/* registry.c — the list of every backward implementation.
 * Backward kernels have their own signature (nl_backward_fn), so they have
 * their own table; one NL_BWD_IMPL line in registry.def adds one. */
#include <string.h>

#include "backward/backward.h"

#define NL_BWD_IMPL(name, norm, chapter, req, props, tol, summary) \
    {#name, norm, chapter, nl_##name, req, props, tol, summary},
static const nl_bwd_impl registry[] = {
#include "backward/registry.def"
};
#undef NL_BWD_IMPL

const nl_bwd_impl *nl_bwd_impls(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const nl_bwd_impl *nl_find_bwd_impl(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

const char *nl_bwd_impl_unavailable(const nl_bwd_impl *impl)
{
    /* What a machine must have is the same question for both tables. */
    const nl_impl as_forward = {.name = impl->name, .requires = impl->requires};
    return nl_impl_unavailable(&as_forward);
}
