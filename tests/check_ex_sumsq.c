/* check_ex_sumsq.c — nl_sumsq (exercise 06): right for every length (to
 * 4e-6, a bound any tail or reduction bug exceeds by far), so the tail is
 * handled; right for every alignment, so loads are unaligned;
 * never reads past the end; accurate enough that one running float sum
 * would not pass, so the accumulators really are several; and, graded,
 * vectorised where it counts: the packed arithmetic grows with n and the
 * scalar arithmetic does not, counted in what the code executes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "simd/simd.h"

static double sumsq_double(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i] * x[i];
    return s;
}

static const size_t lengths[] = {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33,
                                 63, 64, 65, 100, 1000, 4095, 4096, 4097};

START_TEST(every_length_and_offset)
{
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t n = lengths[k];
        float *buf = nl_alloc((n + 16) * sizeof(float));
        ck_assert(buf);
        for (size_t off = 0; off < 8; off++) {
            float *x = buf + off;
            nl_fill_gauss(x, n, 0.5, 1.0, 70 + n);
            x[n] = NAN; /* a read past the end poisons the sum */
            double want = sumsq_double(x, n);
            float got = nl_sumsq(x, n);
            double rel = want > 0 ? fabs((double)got - want) / want : fabs((double)got);
            ck_assert_msg(!isnan(got),
                          "nl_sumsq(x, %zu) returned NaN: it read x[%zu] (a NaN placed just "
                          "past the end). Stop the vector loop while 8 elements remain, and "
                          "finish the last n %% 8 one by one.", n, n);
            ck_assert_msg(rel <= 4e-6,
                          "nl_sumsq(x, %zu) with x %zu floats past a 64-byte boundary: got %.9g, "
                          "expected %.9g (relative error %.2g). %s", n, off, (double)got, want, rel,
                          n % 8 ? "n is not a multiple of 8: is the tail added?"
                                : "Is every accumulator added in the horizontal reduction?");
        }
        nl_free(buf);
    }
}
END_TEST

/* One float running sum of these 65536 squares drifts to a relative error
 * of 2.6e-6; 32 partial sums stay near 5e-8. */
START_TEST(several_accumulators_are_accurate)
{
    const size_t n = 65536;
    float *x = nl_alloc(n * sizeof(float));
    ck_assert(x);
    nl_fill_gauss(x, n, 0.0, 1.0, 99);
    double want = sumsq_double(x, n);
    float got = nl_sumsq(x, n);
    double rel = fabs((double)got - want) / want;
    if (getenv("NL_SHOW_ERR")) {
        float one = 0.0f; /* what a single running float sum gets */
        for (size_t i = 0; i < n; i++)
            one += x[i] * x[i];
        printf("  n = %zu: nl_sumsq relative error %.2g, one float accumulator %.2g\n", n, rel,
               fabs((double)one - want) / want);
    }
    ck_assert_msg(rel <= 1e-6,
                  "nl_sumsq over %zu values: relative error %.2g, expected <= 1e-6 (a single "
                  "float accumulator gets 2.6e-6 here). Keep several vector accumulators so "
                  "each partial sum stays small.", n, rel);
    nl_free(x);
}
END_TEST

/* The grader's judge counts, by address, the arithmetic the worker runs in
 * the student's code (scripts/grading/judge/count.h); make test has no
 * worker and no judge, and this symbol is then absent. */
typedef struct {
    unsigned long long packed, scalar, steps;
} nl_insn_mix;
int nl_judge_count_next(nl_insn_mix *mix, char *why, size_t n) __attribute__((weak));

/* What does the work is what runs more when n grows: 2048 floats more
 * must add packed (vector) arithmetic, and must not add scalar arithmetic
 * (the tail of n % 8 floats is the same for both lengths).  Float lanes
 * or double lanes, v8f or intrinsics, x86 or Arm all pass; a scalar loop
 * fails however many vector instructions sit outside it or beside it. */
START_TEST(packed_arithmetic_does_the_work)
{
    if (!nl_judge_count_next)
        NL_SKIP("the grader counts the arithmetic your loop executes (make grade EX=06); "
                "make test has no worker to count");
    enum { N1 = 2048, N2 = 4096 };
    float *x = nl_alloc(N2 * sizeof(float));
    ck_assert(x);
    nl_fill_gauss(x, N2, 0.0, 1.0, 55);
    nl_insn_mix a, b;
    char why[512];
    (void)nl_sumsq(x, 8); /* a first call starts the worker: its start-up is not counted */
    ck_assert_msg(nl_judge_count_next(&a, why, sizeof why) == 0, "%s", why);
    (void)nl_sumsq(x, N1);
    ck_assert_msg(nl_judge_count_next(&b, why, sizeof why) == 0, "%s", why);
    (void)nl_sumsq(x, N2);
    nl_free(x);
    long long packed = (long long)b.packed - (long long)a.packed;
    long long scalar = (long long)b.scalar - (long long)a.scalar;
    ck_assert_msg(packed > 0,
                  "no packed (vector) arithmetic runs in your loop: nl_sumsq of %d floats executes "
                  "%llu packed and %llu scalar arithmetic instructions, of %d floats %llu and %llu. "
                  "Square and add whole vectors (v8f: 8 floats an operation) in the loop over x.",
                  N1, a.packed, a.scalar, N2, b.packed, b.scalar);
    ck_assert_msg(scalar * 4 < N2 - N1,
                  "scalar arithmetic does your loop's work: %d floats more cost %lld more scalar "
                  "and %lld more packed arithmetic instructions. Only the tail (the last n %% 8 "
                  "floats) may be scalar; square and add whole vectors in the loop itself.",
                  N2 - N1, scalar, packed);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("ex_sumsq");
    TCase *tc = tcase_create("sumsq");
    tcase_add_test(tc, every_length_and_offset);
    /* before the accuracy test: a scalar loop fails both, and the first
     * failure is the first line of feedback */
    tcase_add_test(tc, packed_arithmetic_does_the_work);
    tcase_add_test(tc, several_accumulators_are_accurate);
    suite_add_tcase(s, tc);
    return s;
}
