/* check_simd.c — the SIMD kernels of chapters 5 and 6, each on its own:
 * tails of every length, unaligned pointers, in place, offset and huge
 * data; and at each width the schedules are compiled for, the
 * streaming-store heads, the rungs' shared bits, and NORMLAB_ISA forcing
 * each path.
 *
 * The property suites (agreement, numerics, ...) test every registered
 * implementation too; this suite aims at what is particular to vector code:
 * the lanes that a tail leaves over and the addresses a vector touches.
 * NL_SHOW_ERR=1 prints the measured max errors (how the tol in
 * simd/registry.def was chosen). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "simd/simd.h"

/* Every SIMD implementation of this architecture: chapter 5's first rungs
 * and every rung of rmsnorm_rungs.h and layernorm_rungs.h at each width
 * compiled here; those this CPU (or NORMLAB_ISA) cannot run are skipped. */
#define RUNGS(isa)                                                                        \
    "layernorm_" #isa, "layernorm_" #isa "_nt", "layernorm_" #isa "_pf",                  \
        "layernorm_" #isa "_shift", "layernorm_" #isa "_block", "rmsnorm_" #isa,          \
        "rmsnorm_" #isa "_nt", "rmsnorm_" #isa "_pf", "rmsnorm_" #isa "_block"
static const char *const kernels[] = {
    "layernorm_vec", "rmsnorm_vec",
#if defined(__x86_64__)
    RUNGS(avx2), "layernorm_welford_avx2",
    RUNGS(avx512), "layernorm_welford_avx512",
#elif defined(__aarch64__)
    RUNGS(neon),
#endif
    "layernorm_best", "rmsnorm_best",
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

static const size_t tail_widths[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33,
                                     63, 64, 65, 4095, 4097};

/* The kernel for loop index i, or skip (not compiled here / not usable). */
#define KERNEL_OR_SKIP(var, i)                                            \
    const nl_impl *var = nl_find_impl(kernels[i]);                        \
    do {                                                                  \
        char msg_[256];                                                   \
        if (!var) {                                                       \
            snprintf(msg_, sizeof msg_, "%s (not built for this architecture)", kernels[i]); \
            NL_SKIP(msg_);                                                \
        }                                                                 \
        const char *why_ = nl_impl_unavailable(var);                      \
        if (why_) {                                                       \
            nl_skip_reason(msg_, sizeof msg_, var->name, why_);           \
            NL_SKIP(msg_);                                                \
        }                                                                 \
    } while (0)

static void show_err(const char *impl, const char *what, double err)
{
    if (getenv("NL_SHOW_ERR"))
        printf("  %-26s %-22s max |y - ref| = %.3g\n", impl, what, err);
}

/* Random gamma and beta, so a tail that loads them wrongly is seen. */
static void fill_params(nl_problem *p, uint64_t seed)
{
    nl_fill_gauss(p->gamma, p->d, 1.0, 0.5, seed);
    nl_fill_gauss(p->beta, p->d, 0.0, 0.5, seed + 1);
}

START_TEST(every_tail_width_agrees_with_reference)
{
    KERNEL_OR_SKIP(impl, _i);
    double worst = 0.0;
    for (size_t k = 0; k < sizeof tail_widths / sizeof tail_widths[0]; k++) {
        size_t d = tail_widths[k];
        nl_problem p = nl_problem_new(3, d);
        nl_fill_gauss(p.x, 3 * d, 0.0, 1.0, 100 + d);
        fill_params(&p, 200 + d);
        nl_problem_reference(&p, impl->norm, 1e-5f);
        nl_run_impl(impl, &p, 1e-5f);
        double err = nl_max_abs_err(&p);
        ck_assert_msg(err <= impl->tol,
                      "%s, 3 rows of d = %zu (d %% 8 = %zu, d %% 16 = %zu): max |y - ref| = %g, "
                      "stated tol %g. If only some widths fail, look at the tail: "
                      "does the mask cover exactly the last d %% lanes elements?",
                      impl->name, d, d % 8, d % 16, err, impl->tol);
        worst = err > worst ? err : worst;
        nl_problem_free(&p);
    }
    show_err(impl->name, "unit data, all d", worst);
}
END_TEST

/* Offsets by one float: every vector load and store is then unaligned. */
START_TEST(unaligned_pointers)
{
    KERNEL_OR_SKIP(impl, _i);
    const size_t rows = 2, d = 4097, n = rows * d;
    float *x = nl_alloc((n + 1) * sizeof(float)), *y = nl_alloc((n + 2) * sizeof(float));
    float *g = nl_alloc((d + 1) * sizeof(float)), *b = nl_alloc((d + 1) * sizeof(float));
    double *ref = malloc(n * sizeof(double));
    ck_assert(x && y && g && b && ref);
    nl_fill_gauss(x + 1, n, 0.0, 1.0, 7);
    nl_fill_gauss(g + 1, d, 1.0, 0.5, 8);
    nl_fill_gauss(b + 1, d, 0.0, 0.5, 9);
    y[0] = y[n + 1] = 12345.0f; /* sentinels: a store outside the rows shows */
    int rc = impl->fn(x + 1, g + 1, impl->norm == NL_LAYERNORM ? b + 1 : NULL, 1e-5f, rows, d, y + 1);
    ck_assert_int_eq(rc, 0);
    nl_reference(impl->norm, x + 1, g + 1, b + 1, 1e-5, rows, d, ref);
    double err = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)y[1 + i] - ref[i]);
        err = e > err || isnan(e) ? e : err;
    }
    ck_assert_msg(err <= impl->tol,
                  "%s with x, y, gamma, beta all one float past a 64-byte boundary: "
                  "max |y - ref| = %g, tol %g. Aligned loads (load_ps instead of loadu_ps)? "
                  "(If the tail test fails too, fix the tail first.)",
                  impl->name, err, impl->tol);
    ck_assert_msg(y[0] == 12345.0f && y[n + 1] == 12345.0f,
                  "%s wrote outside y[0..rows*d): the float before is %g, after is %g "
                  "(both should still be 12345). A tail store without a mask?",
                  impl->name, y[0], y[n + 1]);
    nl_free(x); nl_free(y); nl_free(g); nl_free(b); free(ref);
}
END_TEST

START_TEST(in_place)
{
    KERNEL_OR_SKIP(impl, _i);
    nl_problem p = nl_problem_new(5, 1000);
    nl_fill_gauss(p.x, 5000, 0.0, 1.0, 11);
    fill_params(&p, 12);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    int rc = impl->fn(p.x, p.gamma, impl->norm == NL_LAYERNORM ? p.beta : NULL, 1e-5f, 5, 1000, p.x);
    ck_assert_int_eq(rc, 0);
    memcpy(p.y, p.x, 5000 * sizeof(float));
    double err = nl_max_abs_err(&p);
    ck_assert_msg(err <= impl->tol,
                  "%s with y == x: max |y - ref| = %g, tol %g. Is a row overwritten "
                  "before all of its statistics are read?", impl->name, err, impl->tol);
    nl_problem_free(&p);
}
END_TEST

/* Mean 1e4, std 1: a float mean alone is off by up to 5e-4 here.  The
 * corrected two-pass kernels correct it, the Welford kernels shift the row
 * by its first element; both must stay within tol. */
START_TEST(offset_data)
{
    KERNEL_OR_SKIP(impl, _i);
    double bound = impl->tol;
    nl_problem p = nl_problem_new(4, 4097);
    nl_fill_gauss(p.x, 4 * 4097, 1e4, 1.0, 13);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    nl_run_impl(impl, &p, 1e-5f);
    double err = nl_max_abs_err(&p);
    show_err(impl->name, "mean 1e4, std 1", err);
    ck_assert_msg(err <= bound,
                  "%s on data with mean 1e4 and std 1: max |y - ref| = %g, expected <= %g. "
                  "A mean held only in float is off by up to half its rounding step (~5e-4): "
                  "correct it with the sum of (x - mean).", impl->name, err, bound);
    nl_problem_free(&p);
}
END_TEST

/* One huge first element (1e4 in a row of N(0, 1)): the Welford kernels
 * shift by x[0], so this is their worst case.  The outlier's own output is
 * ~64, so errors are measured relative to max(1, |ref|): a float result of
 * 64 cannot be closer than ~4e-6 in absolute terms. */
START_TEST(outlier_first_element)
{
    KERNEL_OR_SKIP(impl, _i);
    const size_t rows = 3, d = 4097;
    nl_problem p = nl_problem_new(rows, d);
    nl_fill_gauss(p.x, rows * d, 0.0, 1.0, 22);
    for (size_t r = 0; r < rows; r++)
        p.x[r * d] = r == 1 ? -1e4f : 1e4f;
    fill_params(&p, 23);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    nl_run_impl(impl, &p, 1e-5f);
    double err = 0.0;
    for (size_t i = 0; i < rows * d; i++) {
        double e = fabs((double)p.y[i] - p.ref[i]) / fmax(1.0, fabs(p.ref[i]));
        err = e > err || isnan(e) ? e : err;
    }
    show_err(impl->name, "x[0] = 1e4 (relative)", err);
    ck_assert_msg(err <= impl->tol,
                  "%s on rows whose first element is +-1e4 and the rest N(0, 1): "
                  "max |y - ref| / max(1, |ref|) = %g, tol %g. A shift or rough mean taken "
                  "from one element must not cost the other elements their precision.",
                  impl->name, err, impl->tol);
    nl_problem_free(&p);
}
END_TEST

/* |x| ~ 1e20: x*x = 1e40 overflows float; every kernel here claims
 * NL_PROP_HUGE_OK and must still produce unit-scale output. */
START_TEST(huge_values)
{
    KERNEL_OR_SKIP(impl, _i);
    ck_assert_msg(impl->props & NL_PROP_HUGE_OK, "%s does not claim NL_PROP_HUGE_OK", impl->name);
    nl_problem p = nl_problem_new(2, 1000);
    nl_fill_gauss(p.x, 2000, 0.0, 1e20, 14);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    nl_run_impl(impl, &p, 1e-5f);
    double err = nl_max_abs_err(&p);
    show_err(impl->name, "|x| ~ 1e20", err);
    ck_assert_msg(err <= impl->tol,
                  "%s on data with std 1e20: max |y - ref| = %g (NaN: the float sum of "
                  "squares overflowed and nothing caught it), tol %g",
                  impl->name, err, impl->tol);
    nl_problem_free(&p);
}
END_TEST

/* A constant row has variance 0: output beta exactly, never NaN. */
START_TEST(constant_rows)
{
    KERNEL_OR_SKIP(impl, _i);
    nl_problem p = nl_problem_new(2, 37);
    nl_fill_const(p.x, 74, 3.0f);
    fill_params(&p, 15);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    nl_run_impl(impl, &p, 1e-5f);
    double err = nl_max_abs_err(&p);
    ck_assert_msg(err <= impl->tol * 10,
                  "%s on rows of 3.0f: max |y - ref| = %g; expected (nearly) beta for "
                  "LayerNorm. A negative variance from rounding under the sqrt?",
                  impl->name, err);
    nl_problem_free(&p);
}
END_TEST

/* The widths this binary carries (nl_isa_widths), by their names in
 * kernel names and in NORMLAB_ISA; test i runs at width i. */
static const char *width_name(size_t i)
{
    const nl_isa *w;
    ck_assert(i < nl_isa_widths(&w));
    return nl_isa_name(w[i]);
}

/* var = the rung `norm` (layernorm_, rmsnorm_) + width i + `rung` (_nt,
 * ..., "" for the first rung), or skip when this CPU or NORMLAB_ISA cannot
 * run it. */
#define RUNG_OR_SKIP(var, norm, i, rung)                                                  \
    const nl_impl *var;                                                                   \
    do {                                                                                  \
        char name_[64];                                                                   \
        snprintf(name_, sizeof name_, "%s%s%s", (norm), width_name(i), (rung));         \
        var = nl_find_impl(name_);                                                        \
        ck_assert_msg(var, "%s is not registered: every width has every rung", name_);    \
        if (!nl_name_selected(name_))                                                     \
            NL_SKIP("not selected by NL_IMPLS");                                          \
        NL_SKIP_UNLESS_RUNS(var->name, var->requires, nl_impl_unavailable(var));          \
    } while (0)

/* The shift rung sums x - K with K the mean of the row's first vector of
 * values; a row whose head is far from the rest (16 values of 1000, then
 * N(0, 1): K = 1000 at every width, mean ~2, std ~44, so mean - K is ~23
 * standard deviations) cancels most of the shifted variance, and the
 * kernel must notice and redo the row two-pass.  Without the redo
 * (SHIFT_FAR huge) the error here is 3.7e-3 at 16 lanes, 370 times the
 * tol; with it 6.5e-6. */
START_TEST(shifted_stats_redo_a_far_shift)
{
    RUNG_OR_SKIP(impl, "layernorm_", _i, "_shift");
    nl_problem p = nl_problem_new(3, 8192);
    nl_fill_gauss(p.x, p.rows * p.d, 0.0, 1.0, 61);
    for (size_t r = 0; r < p.rows; r++)
        nl_fill_const(p.x + r * p.d, 16, 1000.0f);
    fill_params(&p, 62);
    nl_problem_reference(&p, impl->norm, 1e-5f);
    nl_run_impl(impl, &p, 1e-5f);
    double err = nl_max_abs_err(&p);
    show_err(impl->name, "head far from the mean", err);
    ck_assert_msg(err <= impl->tol, "%s on rows whose first 16 values are 1000 and the rest "
                  "N(0, 1): max |y - ref| = %g > %g. The shifted variance cancelled; a shift "
                  "far from the mean must send the row to the two-pass statistics",
                  impl->name, err, impl->tol);
    nl_problem_free(&p);
}
END_TEST

/* Where y and want first differ in their bits; n when nowhere.  One memcmp
 * first: a Check assertion per element (a million on a spilling problem)
 * runs past the time limit under the sanitizers. */
static size_t first_bit_difference(const float *y, const float *want, size_t n)
{
    if (memcmp(y, want, n * sizeof(float)) == 0)
        return n;
    size_t i = 0;
    while (memcmp(&y[i], &want[i], sizeof(float)) == 0)
        i++;
    return i;
}

/* Runs `kernel` and `model` on p (into p->y and a copy) and asserts the
 * same bits everywhere; `why` says why they must agree. */
static void assert_same_bits(const nl_impl *kernel, const nl_impl *model, nl_problem *p,
                             const char *why)
{
    size_t n = p->rows * p->d;
    float *want = nl_alloc(n * sizeof(float));
    ck_assert(want);
    model->fn(p->x, p->gamma, p->beta, 1e-5f, p->rows, p->d, want);
    kernel->fn(p->x, p->gamma, p->beta, 1e-5f, p->rows, p->d, p->y);
    size_t i = first_bit_difference(p->y, want, n);
    float got = i < n ? p->y[i] : 0.0f, exp = i < n ? want[i] : 0.0f;
    nl_free(want);
    ck_assert_msg(i == n, "%s: y[row %zu, col %zu] = %a, %s gives %a: %s", kernel->name,
                  i / p->d, i % p->d, (double)got, model->name, (double)exp, why);
}

/* The block rungs take four rows at a time once the call spills out of L2
 * (131 x 8192: 8 MiB of x and y), summing the next block while they write
 * this one: each row gets its one-row rung's arithmetic, so its bits, on
 * every row, including a row redone two-pass (a far head, LayerNorm), a
 * row in double (|x| ~ 1e20), the first block (summed alone), the last
 * full block (no next one) and the last three rows, which are not a
 * block.  At every width: there the one-row rung of RMSNorm is the first
 * rung, which AVX2 has written out by hand (rmsnorm_avx2.c), so this is
 * also the test that the hand-written kernel and the schedule agree. */
START_TEST(block_rungs_keep_their_rows_bits)
{
    static const char *const pairs[][3] = {{"layernorm_", "_block", "_shift"},
                                           {"rmsnorm_", "_block", ""}};
    for (size_t k = 0; k < 2; k++) {
        RUNG_OR_SKIP(blk, pairs[k][0], _i, pairs[k][1]);
        RUNG_OR_SKIP(row, pairs[k][0], _i, pairs[k][2]);
        nl_problem p = nl_problem_new(131, 8192);
        nl_fill_gauss(p.x, p.rows * p.d, 0.5, 2.0, 63);
        nl_fill_const(p.x + 5 * p.d, 16, 1000.0f);
        nl_fill_gauss(p.x + 9 * p.d, p.d, 0.0, 1e20, 64);
        fill_params(&p, 65);
        ck_assert(nl_output_spills(p.rows, p.d));
        assert_same_bits(blk, row, &p, "a block of rows must do each row's arithmetic exactly "
                         "as one row alone");
        nl_problem_free(&p);
    }
}
END_TEST

/* rung_shape.c sends _best to the block rungs or, on the CPUs where
 * they were measured slower, to the row rungs they are built from; a
 * reader must get the same bits on either machine, in cache and out of it
 * (the problem of block_rungs_keep_their_rows_bits), at every width
 * (NORMLAB_ISA picks it), and NORMLAB_RUNGS must choose what it names. */
START_TEST(rung_shapes_give_the_same_bits)
{
    static const char *const names[] = {"layernorm_best", "rmsnorm_best"};
    RUNG_OR_SKIP(blk, "layernorm_", _i, "_block");
    (void)blk;
    setenv("NORMLAB_ISA", width_name((size_t)_i), 1);
    const size_t shapes[][2] = {{131, 8192}, {7, 1024}};
    for (size_t b = 0; b < 2; b++) {
        const nl_impl *best = nl_find_impl(names[b]);
        ck_assert(best);
        for (size_t k = 0; k < 2; k++) {
            nl_problem p = nl_problem_new(shapes[k][0], shapes[k][1]);
            size_t n = p.rows * p.d;
            nl_fill_gauss(p.x, n, 0.5, 2.0, 71 + k);
            nl_fill_const(p.x + 5 * p.d, 16, 1000.0f);
            fill_params(&p, 73);
            float *by_block = nl_alloc(n * sizeof(float));
            ck_assert(by_block);
            setenv("NORMLAB_RUNGS", "block", 1);
            ck_assert(nl_rungs_active() == NL_RUNGS_BLOCK);
            best->fn(p.x, p.gamma, p.beta, 1e-5f, p.rows, p.d, by_block);
            setenv("NORMLAB_RUNGS", "row", 1);
            ck_assert(nl_rungs_active() == NL_RUNGS_ROW);
            best->fn(p.x, p.gamma, p.beta, 1e-5f, p.rows, p.d, p.y);
            unsetenv("NORMLAB_RUNGS");
            size_t i = first_bit_difference(p.y, by_block, n);
            ck_assert_msg(i == n, "%s at NORMLAB_ISA=%s on %zux%zu: y[row %zu, col %zu] = %a "
                          "with the row rungs, %a with the block rungs: the two shapes must "
                          "round alike", best->name, width_name((size_t)_i), p.rows, p.d, i / p.d, i % p.d,
                          (double)(i < n ? p.y[i] : 0.0f), (double)(i < n ? by_block[i] : 0.0f));
            nl_free(by_block);
            nl_problem_free(&p);
        }
    }
    unsetenv("NORMLAB_ISA");
}
END_TEST

/* Streaming stores need aligned addresses (64 bytes: a whole line): shift
 * y through all 16 float offsets and compare with the ordinary-store
 * kernel bit for bit, at every width. */
START_TEST(streaming_heads_every_offset)
{
    const char *pairs[][3] = {{"layernorm_", "_nt", ""}, {"rmsnorm_", "_nt", ""},
                              {"layernorm_", "_pf", ""}, {"rmsnorm_", "_pf", ""}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        RUNG_OR_SKIP(nt, pairs[k][0], _i, pairs[k][1]);
        RUNG_OR_SKIP(plain, pairs[k][0], _i, pairs[k][2]);
        const size_t dims[] = {5, 16, 40, 100, 1000};
        for (size_t w = 0; w < sizeof dims / sizeof dims[0]; w++) {
            size_t d = dims[w], rows = 3, n = rows * d;
            float *x = nl_alloc(n * sizeof(float)), *g = nl_alloc(d * sizeof(float));
            float *b = nl_alloc(d * sizeof(float));
            float *y1 = nl_alloc((n + 16) * sizeof(float)), *y2 = nl_alloc((n + 16) * sizeof(float));
            ck_assert(x && g && b && y1 && y2);
            nl_fill_gauss(x, n, 0.5, 2.0, 16 + d);
            nl_fill_gauss(g, d, 1.0, 0.5, 17);
            nl_fill_gauss(b, d, 0.0, 0.5, 18);
            for (size_t off = 0; off < 16; off++) {
                memset(y1, 0, (n + 16) * sizeof(float));
                memset(y2, 0, (n + 16) * sizeof(float));
                plain->fn(x, g, b, 1e-5f, rows, d, y1 + off);
                nt->fn(x, g, b, 1e-5f, rows, d, y2 + off);
                ck_assert_msg(memcmp(y1, y2, (n + 16) * sizeof(float)) == 0,
                              "%s differs from %s for d = %zu with y offset by %zu floats "
                              "from a 64-byte boundary: the head/body/tail split of the "
                              "streamed row is off", nt->name, plain->name, d, off);
            }
            nl_free(x); nl_free(g); nl_free(b); nl_free(y1); nl_free(y2);
        }
    }
}
END_TEST

/* NORMLAB_ISA caps the path: *_best must then run exactly the capped
 * kernel (bit-identical output), and wider kernels report unavailable. */
START_TEST(normlab_isa_forces_each_path)
{
    static const struct { const char *env; nl_isa isa; const char *ln, *rms; } paths[] = {
        {"scalar", NL_ISA_SCALAR, "layernorm_vec", "rmsnorm_vec"},
        {"avx2", NL_ISA_AVX2, "layernorm_avx2_shift", "rmsnorm_avx2"},
        {"avx512", NL_ISA_AVX512, "layernorm_avx512_shift", "rmsnorm_avx512"},
        {"neon", NL_ISA_NEON, "layernorm_neon_shift", "rmsnorm_neon"},
    };
    const size_t rows = 3, d = 1031, n = rows * d;
    float *x = nl_alloc(n * sizeof(float)), *g = nl_alloc(d * sizeof(float));
    float *b = nl_alloc(d * sizeof(float));
    float *y1 = nl_alloc(n * sizeof(float)), *y2 = nl_alloc(n * sizeof(float));
    ck_assert(x && g && b && y1 && y2);
    nl_fill_gauss(x, n, 0.0, 1.0, 19);
    nl_fill_gauss(g, d, 1.0, 0.5, 20);
    nl_fill_gauss(b, d, 0.0, 0.5, 21);
    int ran = 0;
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        const nl_impl *ln = nl_find_impl(paths[k].ln), *rms = nl_find_impl(paths[k].rms);
        unsetenv("NORMLAB_ISA");
        if (!ln || nl_impl_unavailable(ln))
            continue; /* not this CPU's or architecture's path */
        setenv("NORMLAB_ISA", paths[k].env, 1);
        ck_assert_msg(nl_isa_active() == paths[k].isa,
                      "NORMLAB_ISA=%s: nl_isa_active() chose %s", paths[k].env,
                      nl_isa_name(nl_isa_active()));
        ck_assert_msg(!nl_impl_unavailable(ln), "NORMLAB_ISA=%s rules out %s itself: %s",
                      paths[k].env, ln->name, nl_impl_unavailable(ln));
        nl_layernorm_best(x, g, b, 1e-5f, rows, d, y1);
        ln->fn(x, g, b, 1e-5f, rows, d, y2);
        ck_assert_msg(memcmp(y1, y2, n * sizeof(float)) == 0,
                      "NORMLAB_ISA=%s: layernorm_best did not run %s", paths[k].env, ln->name);
        nl_rmsnorm_best(x, g, NULL, 1e-5f, rows, d, y1);
        rms->fn(x, g, NULL, 1e-5f, rows, d, y2);
        ck_assert_msg(memcmp(y1, y2, n * sizeof(float)) == 0,
                      "NORMLAB_ISA=%s: rmsnorm_best did not run %s", paths[k].env, rms->name);
        /* every wider path must now report itself unavailable */
        for (size_t j = k + 1; j < sizeof paths / sizeof paths[0]; j++) {
            const nl_impl *wide = nl_find_impl(paths[j].ln);
            ck_assert_msg(!wide || nl_impl_unavailable(wide),
                          "NORMLAB_ISA=%s but %s still reports itself usable",
                          paths[k].env, paths[j].ln);
        }
        ran++;
    }
    setenv("NORMLAB_ISA", "avx-512", 1); /* a typo: must fall back, not run wide */
    ck_assert_msg(nl_isa_active() == NL_ISA_SCALAR,
                  "NORMLAB_ISA=avx-512 (unknown) chose %s; expected scalar",
                  nl_isa_name(nl_isa_active()));
    unsetenv("NORMLAB_ISA");
    ck_assert_msg(ran >= 1, "no path ran: even scalar was unavailable");
    nl_free(x); nl_free(g); nl_free(b); nl_free(y1); nl_free(y2);
}
END_TEST

Suite *nl_suite(void)
{
    const nl_isa *widths;
    const int nw = (int)nl_isa_widths(&widths); /* test i: width i */
    Suite *s = suite_create("simd");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, every_tail_width_agrees_with_reference, 0, NKERNELS);
    tcase_add_loop_test(tc, unaligned_pointers, 0, NKERNELS);
    tcase_add_loop_test(tc, in_place, 0, NKERNELS);
    tcase_add_loop_test(tc, offset_data, 0, NKERNELS);
    tcase_add_loop_test(tc, outlier_first_element, 0, NKERNELS);
    tcase_add_loop_test(tc, huge_values, 0, NKERNELS);
    tcase_add_loop_test(tc, constant_rows, 0, NKERNELS);
    suite_add_tcase(s, tc);
    TCase *td = tcase_create("dispatch");
    tcase_set_timeout(td, 60); /* 131 x 8192 at each width; seconds under qemu */
    tcase_add_loop_test(td, streaming_heads_every_offset, 0, nw);
    tcase_add_loop_test(td, shifted_stats_redo_a_far_shift, 0, nw);
    tcase_add_loop_test(td, block_rungs_keep_their_rows_bits, 0, nw);
    tcase_add_loop_test(td, rung_shapes_give_the_same_bits, 0, nw);
    tcase_add_test(td, normlab_isa_forces_each_path);
    suite_add_tcase(s, td);
    return s;
}
