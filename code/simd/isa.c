/* isa.c — which instruction-set path this machine runs: the one place that
 * asks the CPU.  One binary carries every path its architecture can
 * compile; which of them runs is decided here, at run time, from what the
 * CPU reports and from NORMLAB_ISA, which caps the path
 * (scalar|avx2|avx512|neon) so that a narrower one can be tested or timed
 * on a wider machine.  The dispatcher (dispatch.c) and the registry's
 * availability check (core/availability.c) both ask here. */
#include <stdlib.h>
#include <string.h>

#include "simd/simd.h"

/* The widest path this CPU can run, ignoring NORMLAB_ISA. */
static nl_isa cpu_widest(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    /* the AVX-512 files are compiled with F, DQ, BW and VL: require all */
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return NL_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return NL_ISA_AVX2;
    return NL_ISA_SCALAR;
#elif defined(__aarch64__)
    return NL_ISA_NEON; /* Advanced SIMD is mandatory on AArch64 */
#else
    return NL_ISA_SCALAR;
#endif
}

/* Width rank of a path on this architecture; -1: not on this one. */
static int isa_rank(nl_isa isa)
{
    switch (isa) {
    case NL_ISA_SCALAR: return 0;
#if defined(__x86_64__)
    case NL_ISA_AVX2: return 1;
    case NL_ISA_AVX512: return 2;
#elif defined(__aarch64__)
    case NL_ISA_NEON: return 1;
#endif
    default: return -1;
    }
}

typedef enum { CAP_NONE, CAP_SET, CAP_UNKNOWN } cap_kind;

/* NORMLAB_ISA read at every call (a getenv per kernel call, not per row),
 * so a test can set it and see the effect at once. */
static cap_kind isa_cap(nl_isa *cap)
{
    static const struct { const char *name; nl_isa isa; } names[] = {
        {"scalar", NL_ISA_SCALAR}, {"avx2", NL_ISA_AVX2},
        {"avx512", NL_ISA_AVX512}, {"neon", NL_ISA_NEON},
    };
    const char *v = getenv("NORMLAB_ISA");
    if (!v || !*v)
        return CAP_NONE;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v, names[i].name) == 0) {
            *cap = names[i].isa;
            return CAP_SET;
        }
    *cap = NL_ISA_SCALAR; /* a typo must not silently run the widest path */
    return CAP_UNKNOWN;
}

nl_isa nl_isa_cpu(void)
{
    return cpu_widest();
}

nl_isa nl_isa_active(void)
{
    nl_isa best = cpu_widest(), cap;
    if (isa_cap(&cap) == CAP_NONE)
        return best;
    int rc = isa_rank(cap);
    if (rc < 0) /* another architecture's name: only the portable path is valid */
        return NL_ISA_SCALAR;
    return rc < isa_rank(best) ? cap : best;
}

size_t nl_isa_widths(const nl_isa **widths)
{
#if defined(__x86_64__)
    static const nl_isa w[] = {NL_ISA_AVX2, NL_ISA_AVX512};
#elif defined(__aarch64__)
    static const nl_isa w[] = {NL_ISA_NEON};
#else
    static const nl_isa w[] = {NL_ISA_SCALAR}; /* none: the count is 0 */
#endif
    *widths = w;
#if defined(__x86_64__) || defined(__aarch64__)
    return sizeof w / sizeof w[0];
#else
    return 0;
#endif
}

const char *nl_isa_name(nl_isa isa)
{
    switch (isa) {
    case NL_ISA_AVX2: return "avx2";
    case NL_ISA_AVX512: return "avx512";
    case NL_ISA_NEON: return "neon";
    default: return "scalar";
    }
}

static const char *cpu_lacks(unsigned req)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if ((req & NL_REQ_AVX2) &&
        !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return "this CPU lacks AVX2+FMA";
    if ((req & NL_REQ_AVX512) && cpu_widest() != NL_ISA_AVX512)
        return "this CPU lacks AVX-512 (F, DQ, BW and VL)";
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

/* Paths the CPU has but NORMLAB_ISA rules out. */
static const char *isa_excludes(unsigned req)
{
    nl_isa cap;
    cap_kind kind = isa_cap(&cap);
    if (kind == CAP_NONE || !(req & (NL_REQ_AVX2 | NL_REQ_AVX512 | NL_REQ_NEON)))
        return NULL;
    if (kind == CAP_UNKNOWN)
        return "NORMLAB_ISA is not one of scalar, avx2, avx512, neon: only portable code runs";
    int need = (req & NL_REQ_AVX512) ? isa_rank(NL_ISA_AVX512)
             : (req & NL_REQ_AVX2)   ? isa_rank(NL_ISA_AVX2)
                                     : isa_rank(NL_ISA_NEON);
    int rc = isa_rank(cap);
    if (rc < 0 || need > rc)
        return "NORMLAB_ISA rules out this instruction set";
    return NULL;
}

const char *nl_isa_unavailable(unsigned requires)
{
    const char *why = cpu_lacks(requires);
    return why ? why : isa_excludes(requires);
}
