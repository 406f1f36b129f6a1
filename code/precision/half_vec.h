/* half_vec.h — the 16-bit side of the vector layer (code/simd/vec.h): what
 * the bf16/fp16 schedules (half_rungs.h, castorder_first.h) need besides
 * float vectors.  An instance includes simd/vec_<isa>.h, then
 * precision/half_vec_<isa>.h, which defines:
 *
 *   vh                       VW 16-bit values (bf16 or fp16 bits)
 *   vh_load, vh_load_n       VW values; the first n (0 < n <= VW), the
 *                            others 0, nothing read past them
 *   vh_store, vh_store_n     VW values; the first n, nothing written past
 *   vh_stream                VW values past the caches, on the 2 VW-byte grid
 *   vh_widen(dt, h)          to fp32, exactly: bf16 by a 16-bit shift,
 *                            fp16 by the ISA's conversion (F16C, FCVTL)
 *   vh_narrow(dt, v)         to the dtype, round to nearest even: bf16 by
 *                            the integer trick in 32-bit lanes (NaN kept
 *                            quiet), fp16 by the ISA's conversion
 *   vh_narrow_out(dt, hw, v) the same for a whole vector of outputs, by a
 *                            one-instruction bf16 narrowing where `hw` and
 *                            the ISA has one (AVX-512 BF16), else vh_narrow
 *   vh_hw_here()             whether this CPU has that instruction
 *   vh_round(dt, hw, v)      v rounded to the dtype and back to fp32 (the
 *                            Llama order's inner rounding): vh_widen of
 *                            vh_narrow_out, or the same bits without the
 *                            trip through 16-bit lanes where that is
 *                            cheaper (bf16: round in the 32-bit lane and
 *                            clear its low half)
 *   vh_widen2(dt, p, &a, &b) 2 VW values from p as two fp32 vectors, in
 *                            the layer's pair order
 *   vh_slot2(dt, i)          where value i of a pair (0 <= i < 2 VW) lies
 *                            in that order: weights widened once a call are
 *                            laid out so, and two plain loads match
 *   vh_round2(dt, hw, nan, &a, &b) vh_round of a pair
 *   vh_put2(dt, hw, nan, nt, p, a, b) a pair of outputs (pair order)
 *                            narrowed as vh_narrow_out and stored as 2 VW
 *                            values, streamed where nt and p lies on the
 *                            grid; nan 0: the caller knows no lane of a or
 *                            b is a NaN, so a layer may skip looking
 *   vd, vd_zero, vd_sum      double lanes (VW / 2 of them), their sum
 *   vd_add_halves(acc, v)    acc + (the low VW / 2 lanes of v + the high
 *                            ones), in double
 *   vd_lo, vd_hi             the low and high VW / 2 lanes of v in double
 *   vd_set1, vd_add, vd_sub, vd_fma (a * b + c, one rounding)
 *
 * A pair is the unit of the rungs' loops.  Its order is memory order
 * unless the layer can save instructions by another: AVX2 widens 16 bf16
 * values from one load by interleaving them with zeros within each
 * 128-bit half, which leaves values 0-3 and 8-11 in the first vector and
 * 4-7 and 12-15 in the second, the order its 32-to-16 pack undoes; memory
 * order would cost a lane-crossing widening per 8 values and a
 * lane-crossing permute per 8 outputs.  The order is the same for every
 * rung of a width, so their sums add the same terms in the same lanes.
 *
 * The rounding of bf16 in integer lanes is nl_bf16_from_float's
 * (bf16.c), lane by lane; fp16 conversions round to nearest even as
 * nl_fp16_from_float does (check_half_convert). */
#ifndef NL_HALF_VEC_H
#define NL_HALF_VEC_H

#include <stdint.h>

#include "precision/precision.h"
#include "simd/vec.h"

/* bf16 rounding's constants, for the layers' integer trick: add just
 * under half of what is dropped plus the kept part's low bit, then drop;
 * a NaN (magnitude above Inf's bits) keeps its top bits with the quiet bit
 * set. */
enum { NL_BF16_HALF = 0x7fff, NL_BF16_QUIET = 0x40 };

/* What a width without bf16 instructions (AVX2, NEON) says of them: an
 * output narrows as any vector does, the Llama order's round trip stays
 * in the 32-bit lanes for bf16 (bf16_kept_lanes: each lane rounded, its
 * low half cleared, instead of packed and widened again), and it has no
 * rows of its own.  Expanded by such a layer after its vh_widen,
 * vh_narrow and bf16_kept_lanes. */
#define NL_HALF_WITHOUT_BF16_INSTRUCTIONS                                               \
    NL_VINLINE vh vh_narrow_out(nl_dtype dt, int hw, vf v)                              \
    {                                                                                   \
        (void)hw;                                                                       \
        return vh_narrow(dt, v);                                                        \
    }                                                                                   \
    NL_VINLINE vf vh_round(nl_dtype dt, int hw, vf v)                                   \
    {                                                                                   \
        (void)hw;                                                                       \
        return dt == NL_DT_F16 ? vh_widen(dt, vh_narrow(dt, v)) : bf16_kept_lanes(v);  \
    }                                                                                   \
    NL_VINLINE int vh_hw_here(void) { return 0; }

/* The pair operations of a layer whose pairs are in memory order, from
 * its single-vector ones. Expanded by such a layer after them. */
#define NL_HALF_PAIRS_IN_MEMORY_ORDER                                                   \
    NL_VINLINE void vh_widen2(nl_dtype dt, const uint16_t *p, vf *a, vf *b)             \
    {                                                                                   \
        *a = vh_widen(dt, vh_load(p));                                                  \
        *b = vh_widen(dt, vh_load(p + VW));                                             \
    }                                                                                   \
    NL_VINLINE size_t vh_slot2(nl_dtype dt, size_t i)                                   \
    {                                                                                   \
        (void)dt;                                                                       \
        return i;                                                                       \
    }                                                                                   \
    NL_VINLINE void vh_round2(nl_dtype dt, int hw, int nan, vf *a, vf *b)               \
    {                                                                                   \
        (void)nan;                                                                      \
        *a = vh_round(dt, hw, *a);                                                      \
        *b = vh_round(dt, hw, *b);                                                      \
    }                                                                                   \
    NL_VINLINE void vh_put1(int nt, uint16_t *p, vh v)                                  \
    {                                                                                   \
        if (nt && ((uintptr_t)p & (2 * VW - 1)) == 0)                                   \
            vh_stream(p, v);                                                            \
        else                                                                            \
            vh_store(p, v);                                                             \
    }                                                                                   \
    NL_VINLINE void vh_put2(nl_dtype dt, int hw, int nan, int nt, uint16_t *p, vf a, vf b) \
    {                                                                                   \
        (void)nan;                                                                      \
        vh_put1(nt, p, vh_narrow_out(dt, hw, a));                                       \
        vh_put1(nt, p + VW, vh_narrow_out(dt, hw, b));                                  \
    }

#endif
