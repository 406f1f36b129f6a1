/* availability.c — can this implementation run on this machine?
 * One binary carries every path its architecture can compile; which of them
 * runs is decided here, at run time, from what the CPU reports. */
#include "normlab.h"

#include <stdlib.h>
#include <string.h>

static const char *cpu_lacks(unsigned req)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if ((req & NL_REQ_AVX2) &&
        !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return "this CPU lacks AVX2+FMA";
    if ((req & NL_REQ_AVX512) && !__builtin_cpu_supports("avx512f"))
        return "this CPU lacks AVX-512F";
    if (req & NL_REQ_NEON)
        return "NEON exists only on aarch64";
#elif defined(__aarch64__)
    if (req & (NL_REQ_AVX2 | NL_REQ_AVX512))
        return "AVX exists only on x86-64";
#else
    if (req & (NL_REQ_AVX2 | NL_REQ_AVX512 | NL_REQ_NEON))
        return "no SIMD path was compiled for this architecture";
#endif
    return NULL;
}

const char *nl_impl_unavailable(const nl_impl *impl)
{
    const char *why = cpu_lacks(impl->requires);
    if (why)
        return why;
    if (impl->requires & NL_REQ_OPENCL)
        return nl_opencl_unavailable();
    return NULL;
}
