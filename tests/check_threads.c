/* check_threads.c — the OpenMP kernels give the same bits whatever the
 * thread count, and the same bits as the single-threaded kernel they wrap.
 *
 * Shapes have row counts that no tested thread count divides (13, 101,
 * 5 rows for 7 threads: two threads get nothing), so uneven and empty
 * blocks are exercised. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const threaded[][2] = {
    {"layernorm_omp", "layernorm_best"},
    {"rmsnorm_omp", "rmsnorm_best"},
    {"layernorm_avx512_nt_omp", "layernorm_avx512_nt"},
    {"rmsnorm_avx512_nt_omp", "rmsnorm_avx512_nt"},
};
enum { NTHREADED = sizeof threaded / sizeof threaded[0] };

static const struct { size_t rows, d; } shapes[] = {
    {13, 257}, {101, 64}, {5, 4097}, {1, 33}, {2, 1}, {0, 8},
};
static const int thread_counts[] = {1, 2, 3, 7};

START_TEST(bit_identical_for_every_thread_count)
{
    const nl_impl *impl = nl_find_impl(threaded[_i][0]);
    const nl_impl *single = nl_find_impl(threaded[_i][1]);
    char msg[256];
    if (!impl) {
        snprintf(msg, sizeof msg, "%s (not built for this architecture)", threaded[_i][0]);
        NL_SKIP(msg);
    }
    const char *why = nl_impl_unavailable(impl);
    if (why) {
        nl_skip_reason(msg, sizeof msg, impl->name, why);
        NL_SKIP(msg);
    }
    ck_assert(single);
    omp_set_dynamic(0);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t rows = shapes[s].rows, d = shapes[s].d, n = rows * d;
        nl_problem p = nl_problem_new(rows, d);
        nl_fill_gauss(p.x, n, 0.3, 1.5, 40 + s);
        nl_fill_gauss(p.gamma, d, 1.0, 0.5, 50 + s);
        nl_fill_gauss(p.beta, d, 0.0, 0.5, 60 + s);
        float *want = nl_alloc((n ? n : 1) * sizeof(float));
        ck_assert(want);
        const float *beta = impl->norm == NL_LAYERNORM ? p.beta : NULL;
        single->fn(p.x, p.gamma, beta, 1e-5f, rows, d, want);
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            int nt = thread_counts[t];
            int got = nl_threads_granted(nt);
            if (got != nt) {
                snprintf(msg, sizeof msg, "%s: OpenMP grants %d threads where %d were asked "
                         "(OMP_THREAD_LIMIT?), so bit-identity across counts is unproven",
                         impl->name, got, nt);
                nl_free(want);
                nl_problem_free(&p);
                NL_SKIP(msg);
            }
            omp_set_num_threads(nt);
            memset(p.y, 0xff, (n ? n : 1) * sizeof(float)); /* NaN: unwritten shows */
            int rc = impl->fn(p.x, p.gamma, beta, 1e-5f, rows, d, p.y);
            ck_assert_int_eq(rc, 0);
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++)
                if (memcmp(&p.y[i], &want[i], sizeof(float)) != 0)
                    bad = i;
            ck_assert_msg(bad == n,
                          "%s with %d threads on %zu x %zu: y[%zu] (row %zu) = %a, the "
                          "single-threaded %s gives %a. Rows must be computed by the same "
                          "code whoever owns them, and every row by exactly one thread.",
                          impl->name, nt, rows, d, bad, d ? bad / d : 0, bad < n ? p.y[bad] : 0.0f,
                          single->name, bad < n ? want[bad] : 0.0f);
        }
        nl_free(want);
        nl_problem_free(&p);
    }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, bit_identical_for_every_thread_count, 0, NTHREADED);
    suite_add_tcase(s, tc);
    return s;
}
