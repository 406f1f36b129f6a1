/* rung_shape.c — which shape of fast rung the dispatchers run on this CPU:
 * four rows a loop with the next four summed inside it (the block rungs of
 * chapters 6 and 8), or one row at a time with the next row prefetched
 * (the shift, _pf and f32stats rungs).  The two shapes give the same bits
 * for every norm the dispatchers serve, so the choice is only about time.
 *
 * It is measured, not reasoned: the block rungs were built and timed on an
 * Intel Xeon (the reference CSVs of book/data), where they are the faster; on an
 * AMD EPYC of family 19h (Zen 4, book/data/zen4-rungs-reference.csv) the
 * same binaries ran every block rung slower than the row rung it replaced,
 * by a fifth to a half.  Family 19h with AVX-512 is Zen 4 (that machine
 * reported model 11h, coreboot's GENOA_B0_CPUID in
 * src/soc/amd/genoa_poc/include/soc/cpu.h; a part of the family without
 * AVX-512 never reaches these rungs).  Only that family is sent to
 * the row rungs: no other AMD family has been timed here (Zen 5 is family
 * 1Ah), and what was not measured keeps the shape that was.  NORMLAB_RUNGS=block|row overrides the choice, so
 * that a test can run both and a reader can time both on their machine. */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "simd/simd.h"

/* The CPU's own answer, ignoring NORMLAB_RUNGS. */
static nl_rungs cpu_rungs(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return NL_RUNGS_BLOCK;
    char vendor[13];
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    vendor[12] = '\0';
    if (strcmp(vendor, "AuthenticAMD") != 0 || !__get_cpuid(1, &a, &b, &c, &d))
        return NL_RUNGS_BLOCK;
    /* family = base family + extended family when the base is 0xf */
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    return family == 0x19 ? NL_RUNGS_ROW : NL_RUNGS_BLOCK;
#else
    return NL_RUNGS_BLOCK; /* only the x86-64 dispatchers have both shapes */
#endif
}

/* NORMLAB_RUNGS is read at every call, as NORMLAB_ISA is; a value that is
 * neither name leaves the CPU's choice (both shapes give the same bits, so
 * a typo costs time, never a different answer). */
nl_rungs nl_rungs_active(void)
{
    const char *v = getenv("NORMLAB_RUNGS");
    if (v && strcmp(v, "block") == 0)
        return NL_RUNGS_BLOCK;
    if (v && strcmp(v, "row") == 0)
        return NL_RUNGS_ROW;
    return cpu_rungs();
}

const char *nl_rungs_name(nl_rungs r)
{
    return r == NL_RUNGS_ROW ? "row" : "block";
}
