/* check_half_cast.c — the cast orders of real models (chapter 8).
 *
 * Three things: the rounding points of Llama and Gemma, element by element,
 * against an independent statement of each model's forward pass (exercise
 * 10); every bf16/fp16 implementation of the registry against the scalar
 * kernel of its cast order (bit-identical, or its stated ulps) on the
 * property grid; and every cast order within its bound of the double
 * reference, on unit-scale data and on data with outlier channels. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "precision/precision.h"
#include "simd/simd.h"

/* -------------------------------------------- llama vs gemma, by element */

/* A bf16 test needs bf16's rounding, which is exercise 09's code: where
 * that is still a stub (exercise 10 graded on its own, with every other
 * exercise its starter; or a handout with 09 not done yet) the bf16 half
 * of a test skips, saying so, and the fp16 half, whose rounding is the
 * library's (fp16.c), runs as always.  Loop tests: _i = 0 is bf16, 1 is
 * fp16. */
static int bf16_rounds_here(void)
{
    return nl_bf16_from_float(3.0f) == 0x4040 && nl_bf16_from_float(1.0f + 0x1p-8f) == 0x3f80 &&
           nl_bf16_from_float(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81;
}

#define DTYPE_OR_SKIP(dt, i)                                                            \
    nl_dtype dt = (i) ? NL_DT_F16 : NL_DT_BF16;                                        \
    do {                                                                                \
        if (dt == NL_DT_BF16 && !bf16_rounds_here())                                    \
            NL_SKIP("bf16's rounding (exercise 09) is not done in this build; the fp16 " \
                    "half of this test runs");                                          \
    } while (0)

/* The dtype's fraction bits (7 for bf16, 10 for fp16) and its bits of 1.0. */
static int frac_bits(nl_dtype dt) { return dt == NL_DT_BF16 ? 7 : 10; }
static uint16_t one_bits(nl_dtype dt) { return dt == NL_DT_BF16 ? 0x3f80 : 0x3c00; }

/* The example of the chapter, for a dtype of m fraction bits (bf16: 7):
 * x * r = 1 + 2^-(m+1), halfway between the dtype's 1 and 1 + 2^-m, and
 * Gemma's weight offset w = 2^-(m+2).  Gemma multiplies by 1 + w in fp32
 * and rounds once: 1 + 2^-(m+1) + 2^-(m+2) + 2^-(2m+3) rounds up to
 * 1 + 2^-m.  Llama's weight would be the dtype's 1 + w = 1 (w is below
 * half the spacing at 1), and x * r rounds first, a tie, to even: 1. */
START_TEST(gemma_keeps_a_small_weight)
{
    DTYPE_OR_SKIP(dt, _i);
    int m = frac_bits(dt);
    float xr = 1.0f + ldexpf(1.0f, -(m + 1));
    uint16_t w_gemma = nl_half_from_float(dt, ldexpf(1.0f, -(m + 2)));
    uint16_t g = nl_gemma_point(dt, xr, w_gemma), want = (uint16_t)(one_bits(dt) + 1);
    ck_assert_msg(g == want,
                  "%s gemma: x*r = 1 + 2^-%d, w = 2^-%d: (x*r) * (1 + w) in fp32 is %.7f, one "
                  "rounding gives %s %.7g (0x%04x); got %g (0x%04x). Is the 1 + w in fp32 and "
                  "the rounding only at the end?", nl_dtype_name(dt), m + 1, m + 2,
                  (double)xr * (1.0 + ldexp(1.0, -(m + 2))), nl_dtype_name(dt),
                  (double)nl_half_to_float(dt, want), want, (double)nl_half_to_float(dt, g), g);
}
END_TEST

/* Llama's counterpart: x*r = 1 + 2^-(m+1) again, weight 1 + 2^-m.  Llama
 * rounds x*r first (the tie goes to even, 1.0), so the product is the
 * weight itself, 1 + 2^-m.  Rounding once instead, (1 + 2^-(m+1))(1 + 2^-m)
 * lies above the midpoint of 1 + 2^-m and 1 + 2^-(m-1), and goes up. */
START_TEST(llama_rounds_a_tie_before_the_weight)
{
    DTYPE_OR_SKIP(dt, _i);
    int m = frac_bits(dt);
    uint16_t one_up = (uint16_t)(one_bits(dt) + 1);
    float xr = 1.0f + ldexpf(1.0f, -(m + 1));
    uint16_t w = nl_half_from_float(dt, 1.0f + ldexpf(1.0f, -m));
    ck_assert_msg(w == one_up, "%s(1 + 2^-%d) should be 0x%04x, got 0x%04x", nl_dtype_name(dt), m,
                  one_up, w);
    uint16_t l = nl_llama_point(dt, xr, w);
    ck_assert_msg(l == one_up,
                  "%s llama: x*r = 1 + 2^-%d rounds to %s first (a tie, to even: 1.0), then "
                  "times the weight 1 + 2^-%d: expected %.7g (0x%04x), got %g (0x%04x)%s",
                  nl_dtype_name(dt), m + 1, nl_dtype_name(dt), m,
                  (double)nl_half_to_float(dt, one_up), one_up, (double)nl_half_to_float(dt, l), l,
                  l == one_up + 1 ? ": x*r times the weight rounded once" : "");
}
END_TEST

/* Each model's forward pass written out once more, in the order its
 * modeling file writes it, for random inputs of both dtypes. */
static uint16_t llama_by_the_book(nl_dtype dt, float xr, uint16_t w)
{
    float h = nl_half_to_float(dt, nl_half_from_float(dt, xr)); /* .to(input_dtype) */
    return nl_half_from_float(dt, nl_half_to_float(dt, w) * h); /* weight * h, in dtype */
}

static uint16_t gemma_by_the_book(nl_dtype dt, float xr, uint16_t w)
{
    float out = xr * (1.0f + nl_half_to_float(dt, w)); /* output * (1.0 + weight.float()) */
    return nl_half_from_float(dt, out);                 /* .type_as(x) */
}

enum { RANDOM_N = 20000 };

START_TEST(llama_rounds_where_its_model_rounds)
{
    DTYPE_OR_SKIP(dt, _i);
    float *xr = malloc(RANDOM_N * sizeof *xr), *w = malloc(RANDOM_N * sizeof *w);
    nl_fill_gauss(xr, RANDOM_N, 0.0, 1.5, 41 + (uint64_t)_i);
    nl_fill_gauss(w, RANDOM_N, 0.0, 0.3, 43 + (uint64_t)_i);
    size_t llama_vs_single = 0;
    for (size_t i = 0; i < RANDOM_N; i++) {
        uint16_t wl = nl_half_from_float(dt, 1.0f + w[i]);   /* Llama stores the weight itself */
        uint16_t l = nl_llama_point(dt, xr[i], wl), lw = llama_by_the_book(dt, xr[i], wl);
        NL_ASSERT_EACH(l == lw,
                      "%s llama: x*r = %a, weight %a: expected %a (round x*r to %s, then "
                      "multiply in %s), got %a", nl_dtype_name(dt), (double)xr[i],
                      (double)nl_half_to_float(dt, wl), (double)nl_half_to_float(dt, lw),
                      nl_dtype_name(dt), nl_dtype_name(dt), (double)nl_half_to_float(dt, l));
        llama_vs_single += lw != nl_half_from_float(dt, xr[i] * nl_half_to_float(dt, wl));
    }
    /* the two roundings of Llama are visible on random data: a kernel that
     * rounded once would not be Llama */
    ck_assert_msg(llama_vs_single > RANDOM_N / 100, "only %zu of %d inputs tell one rounding from two",
                  llama_vs_single, (int)RANDOM_N);
    free(xr), free(w);
}
END_TEST

START_TEST(gemma_rounds_where_its_model_rounds)
{
    DTYPE_OR_SKIP(dt, _i);
    float *xr = malloc(RANDOM_N * sizeof *xr), *w = malloc(RANDOM_N * sizeof *w);
    nl_fill_gauss(xr, RANDOM_N, 0.0, 1.5, 41 + (uint64_t)_i);
    nl_fill_gauss(w, RANDOM_N, 0.0, 0.3, 43 + (uint64_t)_i);
    for (size_t i = 0; i < RANDOM_N; i++) {
        uint16_t wg = nl_half_from_float(dt, w[i]);          /* Gemma stores the offset */
        uint16_t g = nl_gemma_point(dt, xr[i], wg), gw = gemma_by_the_book(dt, xr[i], wg);
        NL_ASSERT_EACH(g == gw,
                      "%s gemma: x*r = %a, weight offset %a: expected %a (x*r*(1 + w) in fp32, "
                      "one rounding), got %a", nl_dtype_name(dt), (double)xr[i],
                      (double)nl_half_to_float(dt, wg), (double)nl_half_to_float(dt, gw),
                      (double)nl_half_to_float(dt, g));
    }
    free(xr), free(w);
}
END_TEST

/* Inputs where the order of Gemma's fp32 arithmetic shows.  x*r + x*r*w is
 * x*r*(1 + w) in exact arithmetic, but in fp32 it rounds the product
 * x*r*w, then the sum, where Gemma rounds 1 + w, then the product; after
 * the final rounding to 16 bits the two differ on about 2 in 10^6 random
 * bf16 inputs and 2 in 10^5 fp16 ones (x*r ~ N(0, 1.5^2), w ~ N(0, 0.3^2):
 * a search over 2 x 10^7 of each found 34 and 369, not counting w = -1,
 * where they differ only in the sign of zero), too rare for the random
 * test above.  These are the first four of each that search found. */
static const struct { float xr; uint16_t w; } gemma_order_inputs[2][4] = {
    {{0x1.72015cp+0f, 0x3eee}, {0x1.39086cp-1f, 0xbe6a}, {-0x1.d99996p-4f, 0xbf49}, {-0x1.51eb86p+0f, 0xbebb}},
    {{-0x1.7580bap-2f, 0x384a}, {0x1.34bb8ep+1f, 0x34e1}, {-0x1.c75e68p+0f, 0x366d}, {-0x1.9c88e6p-1f, 0x3589}},
};

START_TEST(gemma_multiplies_by_one_plus_w)
{
    DTYPE_OR_SKIP(dt, _i);
    for (int k = 0; k < 4; k++) {
        float xr = gemma_order_inputs[_i][k].xr, w = nl_half_to_float(dt, gemma_order_inputs[_i][k].w);
        uint16_t want = gemma_by_the_book(dt, xr, gemma_order_inputs[_i][k].w);
        uint16_t other = nl_half_from_float(dt, xr + xr * w);
        ck_assert_msg(want != other, "input %d no longer tells the two orders apart", k);
        uint16_t g = nl_gemma_point(dt, xr, gemma_order_inputs[_i][k].w);
        ck_assert_msg(g == want,
                      "%s gemma: x*r = %a, w = %a: expected %a = round(x*r * (1 + w)), got %a%s. "
                      "Gemma's order is (1 + w) in fp32 first, then one product, then one "
                      "rounding: x*r + x*r*w is the same in exact arithmetic but rounds the "
                      "product x*r*w first, and differs on inputs like this one",
                      nl_dtype_name(dt), (double)xr, (double)w, (double)nl_half_to_float(dt, want),
                      (double)nl_half_to_float(dt, g), g == other ? " = round(x*r + x*r*w)" : "");
    }
}
END_TEST

/* Llama's counterpart, so that each order is half of exercise 10: inputs
 * where one rounding (x*r times the weight, rounded once) and Llama's two
 * (x*r rounded to the dtype first) differ, from the same search. */
static const struct { float xr; uint16_t w; } llama_order_inputs[2][4] = {
    {{0x1.3713e4p+0f, 0x3f55}, {0x1.4ef064p+1f, 0x3f28}, {-0x1.2173a6p+0f, 0x3f9b}, {-0x1.11c7dcp+1f, 0x3fa5}},
    {{0x1.10f206p-1f, 0x3a09}, {0x1.449d1p-1f, 0x3a36}, {-0x1.2b26ecp+1f, 0x3df0}, {-0x1.06469ap+1f, 0x3d06}},
};

START_TEST(llama_rounds_x_r_before_the_weight)
{
    DTYPE_OR_SKIP(dt, _i);
    for (int k = 0; k < 4; k++) {
        float xr = llama_order_inputs[_i][k].xr;
        uint16_t w = llama_order_inputs[_i][k].w;
        uint16_t want = llama_by_the_book(dt, xr, w);
        uint16_t once = nl_half_from_float(dt, xr * nl_half_to_float(dt, w));
        ck_assert_msg(want != once, "input %d no longer tells the two orders apart", k);
        uint16_t l = nl_llama_point(dt, xr, w);
        ck_assert_msg(l == want,
                      "%s llama: x*r = %a, weight %a: expected %a (x*r rounded to %s first, "
                      "then the product, rounded again), got %a%s",
                      nl_dtype_name(dt), (double)xr, (double)nl_half_to_float(dt, w),
                      (double)nl_half_to_float(dt, want), nl_dtype_name(dt),
                      (double)nl_half_to_float(dt, l),
                      l == once ? ": that is x*r times the weight rounded once, where "
                                  "`hidden_states.to(input_dtype)` rounds x*r before the product" : "");
    }
}
END_TEST

/* ------------------------------------------------ the registry, by dtype */

typedef struct {
    size_t rows, d;
    nl_dtype dt, wdt;
    uint16_t *x, *y, *want;
    void *gamma, *beta;
} half_problem;

/* Unit-scale data (outliers == 0) or data with a few outlier channels
 * 100-1000x larger, as in real LLM activations; weights around 1 (Gemma:
 * offsets around 0). */
static half_problem make(const nl_half_impl *h, size_t rows, size_t d, int outliers, uint64_t seed)
{
    half_problem p = {rows, d, h->dtype, nl_cast_weight_dtype(h->cast, h->dtype), 0, 0, 0, 0, 0};
    size_t n = rows * d;
    float *f = malloc(n * sizeof *f), *g = malloc(d * sizeof *g), *b = malloc(d * sizeof *b);
    nl_fill_gauss(f, n, 0.0, 1.0, seed);
    if (outliers)
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 3; c < d; c += 97)
                f[r * d + c] *= (float)(100 + (c * 37 % 900));
    nl_fill_gauss(g, d, h->cast == NL_CAST_GEMMA ? 0.0 : 1.0, 0.1, seed + 1);
    nl_fill_gauss(b, d, 0.0, 0.1, seed + 2);
    p.x = malloc(n * 2), p.y = malloc(n * 2), p.want = malloc(n * 2);
    for (size_t i = 0; i < n; i++)
        p.x[i] = nl_half_from_float(p.dt, f[i]);
    if (p.wdt == NL_DT_F32) {
        p.gamma = g, p.beta = b;
    } else {
        uint16_t *gh = malloc(d * 2), *bh = malloc(d * 2);
        for (size_t i = 0; i < d; i++)
            gh[i] = nl_half_from_float(p.wdt, g[i]), bh[i] = nl_half_from_float(p.wdt, b[i]);
        free(g), free(b);
        p.gamma = gh, p.beta = bh;
    }
    free(f);
    return p;
}

static void release(half_problem *p)
{
    free(p->x), free(p->y), free(p->want), free(p->gamma), free(p->beta);
}

/* The kernels NL_IMPLS selects (all without it): exercise 10 is graded
 * on the scalar and AVX2 kernels of Llama and Gemma, as many of each, so
 * that each order is half its points, and none that another exercise's
 * code (07's threads, 08's OpenCL reduction) could break. */
static const nl_half_impl *half_at(size_t i)
{
    size_t count;
    const nl_half_impl *all = nl_half_impls(&count);
    for (size_t j = 0; j < count; j++)
        if (nl_name_selected(all[j].name) && i-- == 0)
            return &all[j];
    return NULL;
}

/* Skips an implementation that cannot run here; an OpenCL one fails
 * instead where NORMLAB_REQUIRE_OPENCL=1 (CI), as every registry's does. */
#define HALF_OR_SKIP(var, i)                   \
    const nl_half_impl *var = half_at(i);      \
    NL_SKIP_UNLESS_RUNS(var->name, var->requires, nl_half_unavailable(var))

static size_t count_impls(void)
{
    size_t n, k = 0;
    const nl_half_impl *all = nl_half_impls(&n);
    for (size_t j = 0; j < n; j++)
        k += nl_name_selected(all[j].name);
    return k;
}

/* Within the stated contract of `h` at element i (registry.def). */
static int within_contract(const nl_half_impl *h, const half_problem *p, size_t i, uint16_t got,
                           uint16_t want)
{
    return nl_half_contract_error(h, got, want, h->norm == NL_LAYERNORM ? p->beta : NULL,
                                  i % p->d) <= h->ulp;
}

static const size_t widths[] = {1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 1000, 4097};

START_TEST(every_impl_equals_the_scalar_kernel_of_its_cast_order)
{
    HALF_OR_SKIP(h, _i);
    const nl_half_impl *ref = nl_half_scalar_of(h->cast, h->dtype);
    ck_assert_ptr_nonnull(ref);
    size_t differ = 0, total = 0;
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        for (int outliers = 0; outliers < 2; outliers++) {
            size_t d = widths[k], rows = d > 1000 ? 9 : 33;
            half_problem p = make(h, rows, d, outliers, 1000 + d);
            ck_assert_int_eq(ref->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
            int rc = h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y);
            ck_assert_msg(rc == 0, "%s failed: %s", h->name, nl_last_error());
            for (size_t i = 0; i < rows * d; i++)
                differ += p.y[i] != p.want[i];
            total += rows * d;
            for (size_t i = 0; i < rows * d; i++) {
                double want = nl_half_to_float(p.dt, p.want[i]);
                double ulps = nl_half_ulp_error(p.dt, p.y[i], want);
                NL_ASSERT_EACH(within_contract(h, &p, i, p.y[i], p.want[i]),
                              "%s, %zu rows of d = %zu%s, element [%zu][%zu]: got %a, the scalar "
                              "%s gives %a (%g ulps of %s; stated bound %u). A vector kernel must "
                              "round at the same points as its cast order: same fp32 statistics, "
                              "no FMA where the scalar code has a multiply and an add.",
                              h->name, rows, d, outliers ? " with outlier channels" : "", i / d,
                              i % d, (double)nl_half_to_float(p.dt, p.y[i]), ref->name, want,
                              ulps, nl_dtype_name(p.dt), h->ulp);
            }
            release(&p);
        }
    }
    if (getenv("NL_SHOW_ERR"))
        printf("  %-28s %zu of %zu outputs differ from %s\n", h->name, differ, total, ref->name);
    /* the contract of every non-scalar rung, fp32 statistics included */
    ck_assert_msg(differ * 100 <= total,
                  "%s: %zu of %zu outputs (%.2f %%) differ from %s; a fast rung must keep at "
                  "least 99 %% bit-identical. Are its statistics summed in too few fp32 "
                  "accumulators, or its mean not corrected?", h->name, differ, total,
                  100.0 * (double)differ / (double)total, ref->name);
}
END_TEST

/* A problem larger than L2, where the AVX-512 kernels stream their output
 * past the caches (aligned full vectors only: with d % 16 == 8 every other
 * row starts off the 32-byte grid): the bits must not change. */
START_TEST(outputs_larger_than_cache_are_the_same_bits)
{
    HALF_OR_SKIP(h, _i);
    size_t rows = 40, d = 16392;
    half_problem p = make(h, rows, d, 1, 4242);
    const nl_half_impl *ref = nl_half_scalar_of(h->cast, h->dtype);
    ck_assert_int_eq(ref->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
    ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y), 0);
    for (size_t i = 0; i < rows * d; i++) {
        NL_ASSERT_EACH(within_contract(h, &p, i, p.y[i], p.want[i]), "%s on %zu x %zu (larger than L2): element [%zu][%zu] is "
                      "0x%04x, the scalar order gives 0x%04x: check the streaming-store path "
                      "(alignment, the rows that start off the 32-byte grid)",
                      h->name, rows, d, i / d, i % d, p.y[i], p.want[i]);
    }
    release(&p);
}
END_TEST

/* A weight so small that outputs are subnormal in the dtype: vector
 * narrowing that flushes them (as vcvtneps2bf16 does) must not be used
 * for them. */
START_TEST(subnormal_outputs_survive)
{
    HALF_OR_SKIP(h, _i);
    if (h->cast == NL_CAST_GEMMA)
        NL_SKIP("gemma scales by 1 + w: its outputs cannot be made subnormal by the weight");
    size_t rows = 3, d = 37;
    half_problem p = make(h, rows, d, 0, 99);
    float tiny = h->dtype == NL_DT_BF16 ? 3e-39f : 3e-6f; /* subnormal in the dtype */
    for (size_t i = 0; i < d; i++) {
        if (p.wdt == NL_DT_F32)
            ((float *)p.gamma)[i] = tiny;
        else
            ((uint16_t *)p.gamma)[i] = nl_half_from_float(p.wdt, tiny);
        if (h->norm == NL_LAYERNORM)
            ((uint16_t *)p.beta)[i] = 0;
    }
    const nl_half_impl *ref = nl_half_scalar_of(h->cast, h->dtype);
    ck_assert_int_eq(ref->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
    ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y), 0);
    size_t nonzero = 0;
    for (size_t i = 0; i < rows * d; i++) {
        nonzero += (p.want[i] & 0x7fff) != 0;
        double u = nl_half_ulp_error(p.dt, p.y[i], nl_half_to_float(p.dt, p.want[i]));
        NL_ASSERT_EACH(u <= h->ulp, "%s, subnormal outputs: element %zu is 0x%04x, the scalar "
                      "order gives 0x%04x. Does the vector narrowing flush subnormals to zero?",
                      h->name, i, p.y[i], p.want[i]);
    }
    ck_assert_msg(nonzero > rows * d / 2, "the test data should give subnormal, not zero, outputs");
    /* In place, a row computed again for its subnormal lanes must be
     * computed from x, not from the outputs that have replaced it. */
    ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.x), 0);
    ck_assert_msg(memcmp(p.x, p.y, rows * d * 2) == 0,
                  "%s in place (y == x) with subnormal outputs differs from out of place: is a "
                  "row redone from x after its outputs overwrote it?", h->name);
    release(&p);
}
END_TEST

/* A NaN in a row makes every output of that row NaN (its statistics are
 * NaN), and a NaN must stay NaN through every narrowing, the vector ones
 * included: the integer trick's carry would turn some NaNs into Inf (or
 * -0) unless they are caught first. A NaN from bf16 or fp16 data has a
 * zero low half and cannot carry; an fp32 weight's NaN can, so where the
 * weight is fp32 (T5's), one weight is the NaN of all-ones payload and
 * its column must come out NaN in every row. The other rows and columns
 * keep their bits. */
START_TEST(nan_stays_nan_in_its_row)
{
    HALF_OR_SKIP(h, _i);
    static const size_t ds[] = {37, 1000};
    for (size_t k = 0; k < 2; k++) {
        size_t rows = 3, d = ds[k];
        half_problem p = make(h, rows, d, 0, 131 + d);
        ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
        p.x[d + d / 2] = h->dtype == NL_DT_BF16 ? 0x7fc1 : 0x7e01; /* row 1, a quiet NaN */
        size_t col = p.wdt == NL_DT_F32 ? d / 3 : d; /* d: no NaN column */
        if (col < d) {
            uint32_t all_ones = 0x7fffffffu;
            memcpy((float *)p.gamma + col, &all_ones, sizeof all_ones);
        }
        ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y), 0);
        uint16_t inf = h->dtype == NL_DT_BF16 ? 0x7f80 : 0x7c00;
        for (size_t i = 0; i < rows * d; i++) {
            if (i % d == col)
                NL_ASSERT_EACH((p.y[i] & 0x7fff) > inf, "%s, d = %zu: output [%zu][%zu], of the "
                               "column whose fp32 weight is the NaN 0x7fffffff, is 0x%04x, not "
                               "a NaN. Is the NaN rounded by the integer trick (the carry of its "
                               "payload makes it Inf or -0) instead of quieted?", h->name, d,
                               i / d, i % d, p.y[i]);
            else if (i / d == 1)
                NL_ASSERT_EACH((p.y[i] & 0x7fff) > inf, "%s, d = %zu: output [1][%zu] of the row "
                               "holding a NaN is 0x%04x, not a NaN. Is a NaN lane rounded by the "
                               "integer trick (its carry can make it Inf) instead of quieted?",
                               h->name, d, i % d, p.y[i]);
            else
                NL_ASSERT_EACH(p.y[i] == p.want[i], "%s, d = %zu: output [%zu][%zu] is 0x%04x "
                               "with a NaN in row 1, 0x%04x without: a NaN must spoil only its "
                               "row", h->name, d, i / d, i % d, p.y[i], p.want[i]);
        }
        release(&p);
    }
}
END_TEST

START_TEST(in_place_and_rows_zero)
{
    HALF_OR_SKIP(h, _i);
    size_t rows = 5, d = 67;
    half_problem p = make(h, rows, d, 0, 77);
    ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
    ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.x), 0);
    ck_assert_msg(memcmp(p.x, p.want, rows * d * 2) == 0,
                  "%s in place (y == x) differs from out of place: does it write a row before "
                  "it has read all of it?", h->name);
    ck_assert_int_eq(h->fn(p.dt, NULL, p.gamma, p.beta, 1e-6f, 0, d, NULL), 0);
    release(&p);
}
END_TEST

/* Stated bounds against the double reference, in ulps of the dtype. Two
 * roundings (Llama, T5 with a 16-bit weight) can cost up to ~1.5 ulps;
 * one rounding of an fp32 value 0.5 ulp plus the fp32 error. */
static double bound_ulps(nl_cast c)
{
    return c == NL_CAST_LLAMA || c == NL_CAST_T5 ? 2.0 : 1.0;
}

START_TEST(every_cast_order_is_near_the_double_reference)
{
    HALF_OR_SKIP(h, _i);
    for (int outliers = 0; outliers < 2; outliers++) {
        size_t rows = 64, d = 1024;
        half_problem p = make(h, rows, d, outliers, 500);
        ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y), 0);
        double *ref = malloc(rows * d * sizeof *ref), worst = 0.0;
        nl_half_reference(h->cast, p.dt, p.x, p.gamma, p.beta, 1e-6, rows, d, ref);
        for (size_t i = 0; i < rows * d; i++) {
            double u = nl_half_ulp_error(p.dt, p.y[i], ref[i]);
            /* LayerNorm's fp32 t*g + b can cancel: its rounding error is
             * relative to the terms (|y| + 2|b| bounds them), not to y */
            if (h->norm == NL_LAYERNORM && u > bound_ulps(h->cast)) {
                double b = nl_half_to_float(p.wdt, ((const uint16_t *)p.beta)[i % d]);
                double err = fabs(nl_half_to_float(p.dt, p.y[i]) - ref[i]);
                if (err <= 0x1p-20 * (fabs(ref[i]) + 2 * fabs(b)))
                    continue;
            }
            worst = u > worst ? u : worst;
            NL_ASSERT_EACH(u <= bound_ulps(h->cast),
                          "%s%s [%zu][%zu]: got %a, exact %a: %g ulps of %s, bound %g",
                          h->name, outliers ? " (outlier channels)" : "", i / d, i % d,
                          (double)nl_half_to_float(p.dt, p.y[i]), ref[i], u,
                          nl_dtype_name(p.dt), bound_ulps(h->cast));
        }
        if (getenv("NL_SHOW_ERR"))
            printf("  %-24s %-9s max %.3f ulps\n", h->name, outliers ? "outliers" : "unit", worst);
        free(ref);
        release(&p);
    }
}
END_TEST

/* The pipe rung sums RMSNorm's squares in the f32stats rung's order and
 * rounds at the same points, so the two agree bit for bit; the block rung
 * takes the pipe rung's sums and steps four rows a loop, so it has the
 * pipe rung's bits (for RMSNorm the f32stats rung's); the split rung is
 * the pipe rung's arithmetic in two passes, so it has the pipe rung's bits
 * too (half_rungs.h, at every width it is compiled at; with AVX-512's
 * 32-lane bf16 loops too). Here on rows whose pointers are one element
 * off the vector grid, widths that are not a multiple of 16 or 32, row
 * counts below, at and past a block of four (a last block of 1-3 rows),
 * and with one tiny x in a full 32 in the middle of a row (its x*r is
 * subnormal, which vcvtne2ps2bf16 would flush: the 32 must take the
 * exact path). Test i: width i / 16, pair i % 16. */
START_TEST(fast_rungs_keep_their_model_bits)
{
    static const char *const pairs[][3] = {
        {"rmsnorm_llama_bf16", "pipe", "f32stats"}, {"rmsnorm_gemma_bf16", "pipe", "f32stats"},
        {"rmsnorm_llama_f16", "pipe", "f32stats"},  {"rmsnorm_gemma_f16", "pipe", "f32stats"},
        {"rmsnorm_llama_bf16", "block", "f32stats"}, {"rmsnorm_gemma_bf16", "block", "f32stats"},
        {"rmsnorm_llama_f16", "block", "f32stats"},  {"rmsnorm_gemma_f16", "block", "f32stats"},
        {"layernorm_torch_bf16", "block", "pipe"},   {"layernorm_torch_f16", "block", "pipe"},
        {"rmsnorm_llama_bf16", "split", "f32stats"}, {"rmsnorm_gemma_bf16", "split", "f32stats"},
        {"rmsnorm_llama_f16", "split", "f32stats"},  {"rmsnorm_gemma_f16", "split", "f32stats"},
        {"layernorm_torch_bf16", "split", "pipe"},   {"layernorm_torch_f16", "split", "pipe"},
    };
    const nl_isa *isas;
    nl_isa_widths(&isas);
    const char *const *pair = pairs[_i % 16], *isa = nl_isa_name(isas[_i / 16]);
    char hn[96], fn[96];
    snprintf(hn, sizeof hn, "%s_%s_%s", pair[0], isa, pair[1]);
    snprintf(fn, sizeof fn, "%s_%s_%s", pair[0], isa, pair[2]);
    const nl_half_impl *h = nl_find_half_impl(hn), *f = nl_find_half_impl(fn);
    ck_assert_msg(h && f, "%s or %s is not registered: every width has every rung", hn, fn);
    if (!nl_name_selected(hn) || !nl_name_selected(fn))
        NL_SKIP("not selected by NL_IMPLS");
    if (nl_half_unavailable(h))
        NL_SKIP(nl_half_unavailable(h));
    static const size_t ds[] = {31, 33, 97, 1000, 1056, 4097};
    static const size_t rs[] = {1, 3, 4, 7, 9, 61};
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++)
        for (size_t q = 0; q < sizeof rs / sizeof rs[0]; q++) {
            size_t d = ds[k], rows = rs[q];
            half_problem p = make(h, rows, d, 1, 77 + d + rows);
            uint16_t *xs = malloc((rows * d + 1) * 2), *ys = malloc((rows * d + 1) * 2);
            memcpy(xs + 1, p.x, rows * d * 2); /* one element off the grid */
            if (d > 64 && h->dtype == NL_DT_BF16)
                xs[1 + (rows > 2 ? 2 : rows - 1) * d + 40] = nl_half_from_float(h->dtype, 1e-39f);
            ck_assert_int_eq(f->fn(p.dt, xs + 1, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
            ck_assert_int_eq(h->fn(p.dt, xs + 1, p.gamma, p.beta, 1e-6f, rows, d, ys + 1), 0);
            for (size_t i = 0; i < rows * d; i++)
                NL_ASSERT_EACH(ys[1 + i] == p.want[i],
                               "%s, %zu rows of d = %zu at an odd address: element [%zu][%zu] "
                               "is 0x%04x, %s gives 0x%04x. Same sums in the same order and "
                               "the same rounding points must give the same bits: check the "
                               "even/odd order of the weights, the zero test of the slow path "
                               "and, four rows a loop, which row's sums and weights a row gets.",
                               h->name, rows, d, i / d, i % d, ys[1 + i], f->name, p.want[i]);
            free(xs), free(ys);
            release(&p);
        }
}
END_TEST

/* The fast rungs on threads (castorder_threads.c: *_f32stats_omp,
 * *_pipe_omp and *_block_omp) split the rows into blocks, each computed by
 * the rung itself: on 2 and 3 threads, with row counts that do not divide,
 * the bits are the rung's on one thread. A block handed the wrong rows, or
 * a rung that kept state between rows across a block edge (the pipe rung
 * carries each row's sums into the next, the block rung four rows' into
 * the next four), would differ. */
START_TEST(threaded_rungs_keep_the_rung_bits)
{
    static const char *const casts[] = {"rmsnorm_llama", "rmsnorm_gemma", "layernorm_torch"};
    static const char *const dts[] = {"bf16", "f16"},
                             *const kinds[] = {"f32stats", "pipe", "block"};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++) {
            char one[96], many[96];
            snprintf(one, sizeof one, "%s_%s_avx512_%s", casts[_i], dts[t], kinds[k]);
            snprintf(many, sizeof many, "%s_%s_%s_omp", casts[_i], dts[t], kinds[k]);
            const nl_half_impl *h = nl_find_half_impl(one), *m = nl_find_half_impl(many);
            if (!h || !m)
                NL_SKIP("no AVX-512 rungs on this architecture");
            if (!nl_name_selected(h->name) || !nl_name_selected(m->name))
                NL_SKIP("rungs NL_IMPLS leaves out");
            if (nl_half_unavailable(m))
                NL_SKIP(nl_half_unavailable(m));
            size_t rows = 23, d = 1000;
            half_problem p = make(h, rows, d, 1, 91 + (uint64_t)(t * 3 + k));
            ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
            for (int threads = 2; threads <= 3; threads++) {
                int before = omp_get_max_threads();
                omp_set_num_threads(threads);
                memset(p.y, 0xff, rows * d * 2);
                int rc = m->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y);
                omp_set_num_threads(before);
                ck_assert_int_eq(rc, 0);
                size_t i = 0;
                while (i < rows * d && p.y[i] == p.want[i])
                    i++;
                ck_assert_msg(i == rows * d,
                              "%s on %d threads, %zu rows of d = %zu: element [%zu][%zu] is "
                              "0x%04x, %s on one thread gives 0x%04x. Each thread's block of "
                              "rows must be the rung's own call on those rows.",
                              many, threads, rows, d, i / d, i % d, p.y[i], one, p.want[i]);
            }
            release(&p);
        }
}
END_TEST

/* The dispatchers' rung differs by CPU (rung_shape.c: the block rung, or
 * where it was measured slower the rung it rounds like); a reader's
 * outputs must not: each _best gives the same bits with NORMLAB_RUNGS=block
 * and =row, in L2 and out of it, at every width (NORMLAB_ISA caps the
 * dispatcher to it). Test i: width i / 3, cast order i % 3. */
START_TEST(rung_shapes_give_the_same_bits)
{
    static const char *const casts[] = {"rmsnorm_llama", "rmsnorm_gemma", "layernorm_torch"};
    static const char *const dts[] = {"bf16", "f16"};
    static const size_t shapes[][2] = {{23, 1000}, {260, 8192}};
    const nl_isa *isas;
    nl_isa_widths(&isas);
    const char *isa = nl_isa_name(isas[_i / 3]), *cast = casts[_i % 3];
    char rung[96];
    snprintf(rung, sizeof rung, "%s_bf16_%s_block", cast, isa);
    const nl_half_impl *width = nl_find_half_impl(rung);
    ck_assert_msg(width, "%s is not registered", rung);
    if (!nl_name_selected(rung))
        NL_SKIP("not selected by NL_IMPLS");
    if (nl_half_unavailable(width))
        NL_SKIP(nl_half_unavailable(width));
    setenv("NORMLAB_ISA", isa, 1);
    int ran = 0;
    for (int t = 0; t < 2; t++) {
        char name[96];
        snprintf(name, sizeof name, "%s_%s_best", cast, dts[t]);
        const nl_half_impl *h = nl_find_half_impl(name);
        if (!h)
            continue; /* Gemma's order has a bf16 _best only */
        if (!nl_name_selected(name))
            NL_SKIP("a dispatcher NL_IMPLS leaves out");
        ran++;
        for (size_t k = 0; k < 2; k++) {
            size_t rows = shapes[k][0], d = shapes[k][1], n = rows * d;
            half_problem p = make(h, rows, d, 1, 301 + (uint64_t)(t * 2 + k));
            setenv("NORMLAB_RUNGS", "block", 1);
            ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.want), 0);
            setenv("NORMLAB_RUNGS", "row", 1);
            ck_assert_int_eq(h->fn(p.dt, p.x, p.gamma, p.beta, 1e-6f, rows, d, p.y), 0);
            unsetenv("NORMLAB_RUNGS");
            size_t i = 0;
            while (i < n && p.y[i] == p.want[i])
                i++;
            ck_assert_msg(i == n, "%s at NORMLAB_ISA=%s, %zu rows of d = %zu: element [%zu][%zu] "
                          "is 0x%04x with the row rungs, 0x%04x with the block rungs: the two "
                          "shapes must round alike", name, isa, rows, d, i / d, i % d, p.y[i],
                          p.want[i]);
            release(&p);
        }
    }
    unsetenv("NORMLAB_ISA");
    ck_assert_msg(ran, "no %s_*_best is registered", cast);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    uint16_t x[4] = {0}, y[4];
    uint16_t g[4] = {0x3f80, 0x3f80, 0x3f80, 0x3f80};
    ck_assert_int_eq(nl_rmsnorm_llama_scalar(NL_DT_BF16, x, g, NULL, 1e-6f, 1, 0, y), NL_EARG);
    ck_assert_int_eq(nl_rmsnorm_llama_scalar(NL_DT_F32, x, g, NULL, 1e-6f, 1, 4, y), NL_EARG);
    ck_assert_int_eq(nl_layernorm_torch_scalar(NL_DT_BF16, x, g, NULL, 1e-6f, 1, 4, y), NL_EARG);
    ck_assert_msg(strstr(nl_last_error(), "beta"), "LayerNorm without beta: message \"%s\" "
                  "should name beta", nl_last_error());
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("half_cast");
    TCase *points = tcase_create("cast_points");
    /* Llama's and Gemma's tests in pairs, the same number of each. */
    tcase_add_loop_test(points, gemma_multiplies_by_one_plus_w, 0, 2);
    tcase_add_loop_test(points, llama_rounds_x_r_before_the_weight, 0, 2);
    tcase_add_loop_test(points, gemma_keeps_a_small_weight, 0, 2);
    tcase_add_loop_test(points, llama_rounds_a_tie_before_the_weight, 0, 2);
    tcase_add_loop_test(points, gemma_rounds_where_its_model_rounds, 0, 2);
    tcase_add_loop_test(points, llama_rounds_where_its_model_rounds, 0, 2);
    suite_add_tcase(s, points);
    TCase *reg = tcase_create("registry");
    tcase_set_timeout(reg, 120);
    tcase_add_loop_test(reg, every_impl_equals_the_scalar_kernel_of_its_cast_order, 0, (int)count_impls());
    tcase_add_loop_test(reg, in_place_and_rows_zero, 0, (int)count_impls());
    tcase_add_loop_test(reg, nan_stays_nan_in_its_row, 0, (int)count_impls());
    tcase_add_loop_test(reg, subnormal_outputs_survive, 0, (int)count_impls());
    tcase_add_loop_test(reg, outputs_larger_than_cache_are_the_same_bits, 0, (int)count_impls());
    tcase_add_loop_test(reg, every_cast_order_is_near_the_double_reference, 0, (int)count_impls());
    const nl_isa *isas;
    const int nw = (int)nl_isa_widths(&isas); /* the widths the rungs are compiled at */
    tcase_add_loop_test(reg, fast_rungs_keep_their_model_bits, 0, 16 * nw);
    tcase_add_loop_test(reg, threaded_rungs_keep_the_rung_bits, 0, 3);
    tcase_add_loop_test(reg, rung_shapes_give_the_same_bits, 0, 3 * nw);
    tcase_add_test(reg, bad_arguments_are_refused);
    suite_add_tcase(s, reg);
    return s;
}
