/* rung_shape.c — which shape of fast rung the dispatchers run on this CPU:
 * four rows a loop with the next four summed inside it (the block rungs of
 * chapters 6 and 8), or one row at a time (the shift, _pf or _nt,
 * f32stats and split rungs; dispatch.c says which asks for the next row
 * where); for the backward, chapter
 * 10's skew rung or the stream rung it was built from.  The two shapes
 * give the same bits for every norm the dispatchers serve, so the choice
 * is only about time.
 *
 * It is measured, not reasoned: the block rungs were built and timed on an
 * Intel Xeon (the reference CSVs of book/data), where they are the faster;
 * on an AMD EPYC of family 19h (Zen 4, book/data/zen4-rungs-reference.csv)
 * the same binaries ran every block rung slower than the row rung it
 * replaced, by a fifth to a half.  Family 19h with AVX-512 is Zen 4 (that
 * machine reported model 11h, coreboot's GENOA_B0_CPUID in
 * src/soc/amd/genoa_poc/include/soc/cpu.h); without it, Zen 3.  The same
 * Zen 4 capped to AVX2 (NORMLAB_ISA=avx2) ran the AVX2 block and skew
 * rungs slower than their row rungs too, the bf16 block rung by far on
 * rows of 4096 values (8 KiB apart) and not on rows of 4160, which points
 * at four rows a power of two apart colliding in the caches' sets; so the
 * whole family takes the row shape, at both widths.  No other AMD family has been timed here (Zen 5 is family 1Ah),
 * and what was not measured keeps the shape that was.
 * NORMLAB_RUNGS=block|row overrides the choice, so that a test can run
 * both and a reader can time both on their machine. */
#include <stdlib.h>
#include <string.h>

#include "simd/simd.h"

/* The CPU's own answer, ignoring NORMLAB_RUNGS: from the CPU model that
 * the compiler's runtime reads once, as isa.c's feature tests do, not a
 * cpuid per call (under a hypervisor each cpuid is a trap to the host). */
static nl_rungs cpu_rungs(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_is("amdfam19h") ? NL_RUNGS_ROW : NL_RUNGS_BLOCK;
#else
    return NL_RUNGS_BLOCK; /* measured on x86-64 only: the shape measured first */
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
