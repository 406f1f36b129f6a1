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

START_TEST(blocks_are_balanced)
{
    for (size_t a = 0; a < sizeof row_counts / sizeof row_counts[0]; a++)
        for (size_t b = 0; b < sizeof thread_counts / sizeof thread_counts[0]; b++) {
            size_t rows = row_counts[a], nt = thread_counts[b];
            size_t smallest = (size_t)-1, largest = 0;
            for (size_t t = 0; t < nt; t++) {
                size_t begin, end;
                nl_row_block(rows, nt, t, &begin, &end);
                size_t len = end >= begin ? end - begin : 0;
                smallest = len < smallest ? len : smallest;
                largest = len > largest ? len : largest;
            }
            ck_assert_msg(largest - smallest <= 1,
                          "%zu rows over %zu threads: blocks range from %zu to %zu rows. "
                          "Give the rows %% nthreads leftover rows to different threads, one "
                          "each, so no thread waits for another by more than one row.",
                          rows, nt, smallest, largest);
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
