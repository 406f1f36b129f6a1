/* check_ex_spills.c — nl_output_spills (exercise 16): a call streams its
 * output exactly when the bytes it touches, its input and its output
 * (4 bytes a float each), are more than the core's L2.  The tests ask
 * shapes on both sides of that line, and the first one names the rule an
 * answer follows when it is one of the usual wrong ones: the output alone
 * counted, elements counted instead of bytes, `>=` for `>`, the L1 or the
 * last-level cache taken for the L2, one answer for every shape.  The L2
 * is asked here as the rule is told to ask it (sysconf, 1 MiB where the
 * system does not say), in this process. */
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "simd/simd.h"

/* The size of a cache level in bytes, or `otherwise` where it is not known. */
static uint64_t cache_or(int name, uint64_t otherwise)
{
    long said = sysconf(name);
    return said > 0 ? (uint64_t)said : otherwise;
}

static uint64_t l2(void)
{
    return cache_or(_SC_LEVEL2_CACHE_SIZE, UINT64_C(1) << 20);
}

/* What the rule answers for rows x d: input and output, floats, strictly more than L2. */
static int expected(size_t rows, size_t d)
{
    uint64_t touched = (uint64_t)rows * d * 2 * sizeof(float);
    return touched > l2();
}

/* Asks the answer about rows x d and fails, with `why`, if it says otherwise. */
static void expect(size_t rows, size_t d, const char *why)
{
    int want = expected(rows, d), got = nl_output_spills(rows, d);
    ck_assert_msg(!got == !want, "nl_output_spills(%zu, %zu) = %d, expected %d: %zu x %zu floats "
                  "in and out touch %llu bytes, the L2 here holds %llu; %s", rows, d, got, want,
                  rows, d, (unsigned long long)((uint64_t)rows * d * 8),
                  (unsigned long long)l2(), why);
}

typedef enum {
    OUTPUT_ONLY, ELEMENTS, AT_OR_OVER, FIRST_LEVEL, LAST_LEVEL, ALWAYS_PLAIN, ALWAYS_STREAM,
    NMISTAKES
} mistake;

static const char *const mistake_says[NMISTAKES] = {
    [OUTPUT_ONLY] = "only the output's bytes were counted: the call also reads its input, "
                    "rows x d floats in and as many out",
    [ELEMENTS] = "floats were counted, not bytes: each is sizeof(float) = 4 bytes, and the "
                 "cache size is in bytes",
    [AT_OR_OVER] = "a call whose bytes equal the L2 exactly was streamed: stream only when "
                   "they are more than it (>, not >=)",
    [FIRST_LEVEL] = "the answer follows the L1 (_SC_LEVEL1_DCACHE_SIZE): the rule is the "
                    "core's L2, _SC_LEVEL2_CACHE_SIZE",
    [LAST_LEVEL] = "the answer follows the last-level cache (_SC_LEVEL3_CACHE_SIZE): the "
                   "rule is the core's own L2, _SC_LEVEL2_CACHE_SIZE",
    [ALWAYS_PLAIN] = "the answer is 0 for every shape: the rule must say 1 once the rows "
                     "outgrow the L2",
    [ALWAYS_STREAM] = "the answer is 1 for every shape: the rule must say 0 while the rows "
                      "fit in the L2",
};

/* What a mistaken rule answers for rows x d. */
static int mistaken(mistake k, size_t rows, size_t d)
{
    uint64_t n = (uint64_t)rows * d, c = l2();
    switch (k) {
    case OUTPUT_ONLY: return n * 4 > c;
    case ELEMENTS: return n * 2 > c;
    case AT_OR_OVER: return n * 8 >= c;
    case FIRST_LEVEL: return n * 8 > cache_or(_SC_LEVEL1_DCACHE_SIZE, c);
    case LAST_LEVEL: return n * 8 > cache_or(_SC_LEVEL3_CACHE_SIZE, c);
    case ALWAYS_PLAIN: return 0;
    default: return 1;
    }
}

enum { NSIZES = 9, NPROBES = 2 * NSIZES + 1 };

/* Shapes on either side of each line a usual mistake draws, each size as
 * one long row and as many rows of one float (a rule that reads rows or d
 * alone follows none of the lines). */
static void probes(size_t rows[NPROBES], size_t d[NPROBES])
{
    uint64_t c = l2(), c1 = cache_or(_SC_LEVEL1_DCACHE_SIZE, c);
    const uint64_t n[NSIZES] = {0, 1, c1 / 8 + 1, c / 8, c / 8 + 1, c / 4 + 1, 3 * c / 8 + 1,
                                c / 2 + 1, 4 * c};
    for (int i = 0; i < NSIZES; i++) {
        rows[2 * i] = (size_t)n[i], d[2 * i] = 1;
        rows[2 * i + 1] = 1, d[2 * i + 1] = (size_t)n[i];
    }
    rows[NPROBES - 1] = 16384, d[NPROBES - 1] = 8192; /* the chapter's largest shape */
}

START_TEST(spills_names_the_usual_mistakes)
{
    size_t rows[NPROBES], d[NPROBES];
    int got[NPROBES], right = 1;
    probes(rows, d);
    for (int i = 0; i < NPROBES; i++) {
        got[i] = !!nl_output_spills(rows[i], d[i]);
        right = right && got[i] == expected(rows[i], d[i]);
    }
    if (right)
        return;
    for (int k = 0; k < NMISTAKES; k++) {
        int same = 1, differs = 0;
        for (int i = 0; i < NPROBES; i++) {
            same = same && got[i] == mistaken((mistake)k, rows[i], d[i]);
            differs = differs || mistaken((mistake)k, rows[i], d[i]) != expected(rows[i], d[i]);
        }
        if (same && differs)
            ck_abort_msg("nl_output_spills follows a known wrong rule: %s", mistake_says[k]);
    }
    for (int i = 0; i < NPROBES; i++)
        expect(rows[i], d[i], "stream when the bytes touched, input and output, are more "
               "than the core's L2");
}
END_TEST

/* The line itself: exactly L2's bytes store plainly, 8 more stream. */
START_TEST(spills_strictly_past_l2)
{
    size_t n = (size_t)(l2() / 8);
    expect(n, 1, "stream only when the bytes are MORE than the L2 (>, not >=)");
    expect(n + 1, 1, "8 bytes past the L2 already spill: stream");
}
END_TEST

/* Input and output both count: n floats touch 8n bytes, not 4n. */
START_TEST(spills_counts_input_and_output)
{
    size_t q = (size_t)(l2() / 4);
    expect(q, 1, "q floats in and q out are 8q bytes: count the input too, and count bytes "
           "(4 a float), not elements");
    expect(q / 2, 1, "half as many floats: input and output together fit the L2 exactly");
}
END_TEST

/* Only the product rows x d matters: the same bytes split into rows of
 * any width get the same answer (a rule that reads rows or d alone fails). */
START_TEST(spills_depends_on_rows_times_d)
{
    size_t k = (size_t)(l2() / 8 / 64), fit = 64 * k, over = 64 * (k + 1);
    const size_t fit_widths[] = {1, 64, k, fit}, over_widths[] = {1, 64, k + 1, over};
    for (size_t i = 0; i < sizeof fit_widths / sizeof *fit_widths; i++) {
        expect(fit / fit_widths[i], fit_widths[i], "the bytes are rows x d x 2 x 4, however "
               "the product is split: a rule that reads the rows or the width alone fails");
        expect(over / over_widths[i], over_widths[i], "the bytes are rows x d x 2 x 4, "
               "however the product is split: a rule that reads the rows or the width alone "
               "fails");
    }
}
END_TEST

/* Far from the line: an empty call and one row fit, a copy as large as
 * the chapter's largest shape does not, nor four L2s (which a
 * last-level cache may still hold: the rule is about the L2). */
START_TEST(spills_far_from_the_line)
{
    expect(0, 4096, "no rows touch no bytes: store plainly");
    expect(1, 1024, "one row of 1024 floats is 8 KiB: it fits");
    expect((size_t)(l2() / 2), 1, "four L2s of bytes spill, even where the last-level cache "
           "holds them: the rule is the core's own L2");
    expect(16384, 8192, "16384 x 8192 floats in and out are 1 GiB: far past any L2");
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("ex_spills");
    TCase *tc = tcase_create("spills");
    tcase_add_test(tc, spills_names_the_usual_mistakes);
    tcase_add_test(tc, spills_strictly_past_l2);
    tcase_add_test(tc, spills_counts_input_and_output);
    tcase_add_test(tc, spills_depends_on_rows_times_d);
    tcase_add_test(tc, spills_far_from_the_line);
    suite_add_tcase(s, tc);
    return s;
}
