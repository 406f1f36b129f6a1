/* check_block_rows.c — the short-row kernels (chapter 9, QK-norm) give a
 * row the same bits however it is reached: in a batch of four, in the
 * tail after the last batch, alone in a call, streamed past the cache or
 * stored normally, and on any number of threads.  (Its accuracy against
 * the double reference is checked with every other kernel in
 * check_agreement, check_edge and check_numerics.) */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* rmsnorm_omp, chapter 5's threaded kernel, is what QK-norm gets on
 * every architecture; it streams past the cache too. */
static const char *const kernels[] = {"rmsnorm_rows_avx512", "rmsnorm_rows_omp", "rmsnorm_omp"};

START_TEST(row_bits_do_not_depend_on_the_call)
{
    const nl_impl *impl = nl_find_impl(kernels[_i]);
    if (!impl)
        NL_SKIP("rmsnorm_rows_* are built for x86-64 only");
    NL_SKIP_UNLESS_RUNS(impl->name, impl->requires, nl_impl_unavailable(impl));
    /* 4099 rows of 128: past L2 (streams), 1024 batches and a tail of 3;
     * then 7 rows of 37 (no streaming: rows not 64-byte aligned). */
    const struct { size_t rows, d; } shapes[] = {{4099, 128}, {7, 37}, {9, 64}};
    omp_set_dynamic(0);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t rows = shapes[s].rows, d = shapes[s].d, n = rows * d;
        nl_problem p = nl_problem_new(rows, d);
        nl_fill_gauss(p.x, n, 0.2, 1.3, 70 + s);
        nl_fill_gauss(p.gamma, d, 1.0, 0.3, 80 + s);
        float *one = nl_alloc(n * sizeof(float));
        ck_assert(one);
        for (size_t r = 0; r < rows; r++) /* each row alone: no batch, no stream */
            impl->fn(p.x + r * d, p.gamma, NULL, 1e-6f, 1, d, one + r * d);
        for (int t = 1; t <= 3; t++) {
            omp_set_num_threads(t);
            memset(p.y, 0xff, n * sizeof(float));
            ck_assert_int_eq(impl->fn(p.x, p.gamma, NULL, 1e-6f, rows, d, p.y), 0);
            for (size_t i = 0; i < n; i++)
                NL_ASSERT_EACH(memcmp(&p.y[i], &one[i], sizeof(float)) == 0,
                              "%s on %zu x %zu, %d threads: row %zu gives %a, the same row "
                              "alone gives %a. Batching four rows' square roots into one "
                              "vector must round each lane as the scalar path does.",
                              impl->name, rows, d, t, i / d, p.y[i], one[i]);
        }
        nl_free(one);
        nl_problem_free(&p);
    }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("block_rows");
    TCase *tc = tcase_create("block_rows");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, row_bits_do_not_depend_on_the_call, 0,
                        sizeof kernels / sizeof kernels[0]);
    suite_add_tcase(s, tc);
    return s;
}
