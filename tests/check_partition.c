/* check_partition.c — nl_row_block (exercise 07): every row owned by
 * exactly one thread, blocks contiguous and in thread order, sizes within
 * one of each other. */
#include "harness.h"
#include "simd/simd.h"

static const size_t row_counts[] = {0, 1, 2, 5, 7, 8, 13, 100, 1001, 4096};
static const size_t thread_counts[] = {1, 2, 3, 4, 7, 8, 16, 64};

START_TEST(blocks_tile_the_rows)
{
    for (size_t a = 0; a < sizeof row_counts / sizeof row_counts[0]; a++)
        for (size_t b = 0; b < sizeof thread_counts / sizeof thread_counts[0]; b++) {
            size_t rows = row_counts[a], nt = thread_counts[b], expect = 0;
            for (size_t t = 0; t < nt; t++) {
                size_t begin = 12345, end = 12345;
                nl_row_block(rows, nt, t, &begin, &end);
                ck_assert_msg(begin == expect,
                              "%zu rows over %zu threads: thread %zu begins at row %zu, expected "
                              "%zu (where thread %zu ended). Blocks must follow each other "
                              "with no gap and no overlap.",
                              rows, nt, t, begin, expect, t ? t - 1 : 0);
                ck_assert_msg(end >= begin && end <= rows,
                              "%zu rows over %zu threads: thread %zu got [%zu, %zu), which is "
                              "not a range inside [0, %zu)", rows, nt, t, begin, end, rows);
                expect = end;
            }
            ck_assert_msg(expect == rows,
                          "%zu rows over %zu threads: the last thread ends at row %zu, so "
                          "rows %zu..%zu are never computed. Did the remainder rows %% nthreads "
                          "get lost in the integer division?",
                          rows, nt, expect, expect, rows ? rows - 1 : 0);
        }
}
END_TEST

/* Names the usual unbalanced partitions: ceil-sized blocks (the last
 * threads get few rows or none) and the leftover rows all given to the
 * last thread. */
static const char *imbalance_hint(size_t rows, size_t nt, const size_t *len)
{
    size_t ceil_size = (rows + nt - 1) / nt, base = rows / nt;
    int is_ceil = 1, is_last = 1;
    for (size_t t = 0; t < nt; t++) {
        size_t start = t * ceil_size < rows ? t * ceil_size : rows;
        size_t want_ceil = rows - start < ceil_size ? rows - start : ceil_size;
        is_ceil &= len[t] == want_ceil;
        is_last &= len[t] == (t + 1 < nt ? base : rows - (nt - 1) * base);
    }
    if (is_ceil)
        return "These are blocks of ceil(rows / nthreads): the early threads take one row too many "
               "each, and the last ones are left short or empty.";
    if (is_last)
        return "The last thread takes all rows % nthreads leftover rows on top of its block.";
    return "";
}

START_TEST(blocks_are_balanced)
{
    for (size_t a = 0; a < sizeof row_counts / sizeof row_counts[0]; a++)
        for (size_t b = 0; b < sizeof thread_counts / sizeof thread_counts[0]; b++) {
            size_t rows = row_counts[a], nt = thread_counts[b];
            size_t smallest = (size_t)-1, largest = 0, total = 0, len[64];
            for (size_t t = 0; t < nt; t++) {
                size_t begin, end;
                nl_row_block(rows, nt, t, &begin, &end);
                len[t] = end >= begin ? end - begin : 0;
                total += len[t];
                smallest = len[t] < smallest ? len[t] : smallest;
                largest = len[t] > largest ? len[t] : largest;
            }
            /* Empty blocks are balanced too: balance counts only once
             * every row has a thread. */
            ck_assert_msg(total == rows,
                          "%zu rows over %zu threads: the blocks hold %zu rows in all, not %zu, "
                          "so their balance means nothing yet. Every row needs a thread first.",
                          rows, nt, total, rows);
            ck_assert_msg(largest - smallest <= 1,
                          "%zu rows over %zu threads: blocks range from %zu to %zu rows. %s "
                          "Give the rows %% nthreads leftover rows to different threads, one "
                          "each, so no thread waits for another by more than one row.",
                          rows, nt, smallest, largest, imbalance_hint(rows, nt, len));
        }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("partition");
    tcase_add_test(tc, blocks_tile_the_rows);
    tcase_add_test(tc, blocks_are_balanced);
    suite_add_tcase(s, tc);
    return s;
}
