/* fused_blocked.c — the unfused pair and the fused driver, over one plan
 * (an add and a forward norm kernel).
 *
 * Unfused, as a framework runs it: one pass adds x into the residual for
 * every row, a second pass normalises every row.  Out of cache, the second
 * pass reads the whole residual back from DRAM.
 *
 * Fused by cache block: add a block of rows (about 16 KiB of residual),
 * then run the same norm kernel on that block while it is still in L1.
 * DRAM then sees x and the residual read once, the residual and y written
 * once: 4 floats per element instead of 5 (6 where y's stores first read
 * the line).  Numerically nothing changes: the norm kernel is the pair's
 * own code on the same floats, so every rounding happens where it did. */
#include "block/block.h"
#include "simd/simd.h"

/* A block of rows whose residual fills about half of a 32 KiB L1d, so the
 * norm kernel's second look at it hits L1 (x and gamma take the rest). */
enum { BLOCK_BYTES = 16 * 1024 };

static size_t rows_per_block(size_t d)
{
    size_t n = BLOCK_BYTES / (d * sizeof(float));
    return n ? n : 1;
}

/* The forward norm call of this plan: Gemma's gets gamma' = 1 + w. */
typedef struct {
    nl_forward_fn fn;
    const float *gamma, *beta;
    float *owned;
} norm_call;

static int norm_call_init(norm_call *c, nl_forward_fn fn, nl_fused_norm norm,
                          const float *gamma, const float *beta, size_t d)
{
    *c = (norm_call){fn, gamma, norm == NL_FUSED_LAYERNORM ? beta : NULL, NULL};
    if (norm == NL_FUSED_RMSNORM_GEMMA) {
        if (!(c->owned = nl_gemma_gamma(gamma, d)))
            return NL_ENOMEM;
        c->gamma = c->owned;
    }
    return NL_OK;
}

// @snippet add-then-norm
int nl_add_then_norm(const nl_fused_plan *plan, nl_fused_norm norm, const float *x,
                     float *residual, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    if (rows == 0)
        return NL_OK;
    norm_call c;
    if (norm_call_init(&c, plan->norm, norm, gamma, beta, d) != NL_OK)
        return NL_ENOMEM;
    plan->add(residual, x, rows * d);
    int rc = c.fn(residual, c.gamma, c.beta, eps, rows, d, y);
    nl_free(c.owned);
    return rc;
}
// @end

// @snippet fused-blocked
int nl_fused_blocked(const nl_fused_plan *plan, nl_fused_norm norm, const float *x,
                     float *residual, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    if (rows == 0)
        return NL_OK;
    /* Streaming y past the caches is decided once for the whole call: the
     * question is whether all of it spills, not whether one block does. */
    nl_forward_fn fn = plan->norm_spill && nl_output_spills(rows, d) ? plan->norm_spill
                                                                      : plan->norm;
    norm_call c;
    if (norm_call_init(&c, fn, norm, gamma, beta, d) != NL_OK)
        return NL_ENOMEM;
    size_t block = rows_per_block(d);
    int rc = NL_OK;
    for (size_t r = 0; r < rows && rc == NL_OK; r += block) {
        size_t n = rows - r < block ? rows - r : block;
        /* x's block is read in full before y's block is written, so y may be x */
        plan->add(residual + r * d, x + r * d, n * d);
        rc = c.fn(residual + r * d, c.gamma, c.beta, eps, n, d, y + r * d);
    }
    nl_free(c.owned);
    return rc;
}
// @end
