/* check_backward_threads.c — the threaded backward gives the same bits
 * for 1, 2, 3 and 7 threads: dx (rows are independent) and dgamma/dbeta
 * (sums over all rows, reduced from fixed chunks in a fixed order; see
 * code/backward/threads.c).  Row counts are chosen so that no tested
 * thread count divides the chunks evenly (2600 rows: 11 chunks of 256;
 * 513 rows: 3, fewer than 7 threads). */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "backward/backward.h"
#include "grad.h"

static const char *const threaded[] = {
    "layernorm_bwd_omp", "rmsnorm_bwd_omp",
#if defined(__x86_64__)
    "layernorm_bwd_stream_omp", "rmsnorm_bwd_stream_omp",
    "layernorm_bwd_skew_omp", "rmsnorm_bwd_skew_omp",
    "layernorm_bwd_avx2_stream_omp", "rmsnorm_bwd_avx2_stream_omp",
    "layernorm_bwd_avx2_skew_omp", "rmsnorm_bwd_avx2_skew_omp",
#elif defined(__aarch64__)
    "layernorm_bwd_neon_stream_omp", "rmsnorm_bwd_neon_stream_omp",
    "layernorm_bwd_neon_skew_omp", "rmsnorm_bwd_neon_skew_omp",
#endif
};
static const struct { size_t rows, d; } shapes[] = {
    {2600, 67}, {513, 67}, {100, 1000}, {97, 5}, {33, 17}, {1, 9}, {0, 4},
    {264, 8192}, /* 8.3 MiB of x and dx, 2 chunks: streamed, the skew rungs' skewed loop */
};
static const int thread_counts[] = {1, 2, 3, 7};

static size_t first_diff(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0)
            return i;
    return n;
}

START_TEST(same_bits_for_every_thread_count)
{
    const nl_bwd_impl *impl = nl_find_bwd_impl(threaded[_i]);
    ck_assert_msg(impl, "%s is not registered", threaded[_i]);
    if (!nl_name_selected(impl->name))
        NL_SKIP("not selected by NL_IMPLS");
    NL_SKIP_UNLESS_RUNS(impl->name, impl->requires, nl_bwd_impl_unavailable(impl));
    char msg[256];
    omp_set_dynamic(0);
    int ln = impl->norm == NL_LAYERNORM;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t rows = shapes[s].rows, d = shapes[s].d, n = rows * d;
        nl_bwd_problem p = nl_bwd_problem_new(impl->norm, rows, d, NL_TEST_EPS, 70 + s);
        float *want = nl_alloc((n + 2 * d) * sizeof(float));
        ck_assert(want);
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            int nt = thread_counts[t], got = nl_threads_granted(nt);
            if (got != nt) {
                snprintf(msg, sizeof msg, "OpenMP grants %d threads where %d were asked "
                         "(OMP_THREAD_LIMIT?): bit-identity across counts is unproven", got, nt);
                nl_free(want);
                nl_bwd_problem_free(&p);
                NL_SKIP(msg);
            }
            nl_bwd_run(impl, &p);
            if (t == 0) {
                memcpy(want, p.dx, n * sizeof(float));
                memcpy(want + n, p.dgamma, d * sizeof(float));
                memcpy(want + n + d, p.dbeta, d * sizeof(float));
                continue;
            }
            size_t bx = first_diff(p.dx, want, n), bg = first_diff(p.dgamma, want + n, d);
            size_t bb = ln ? first_diff(p.dbeta, want + n + d, d) : d;
            ck_assert_msg(bx == n, "%s, %zu x %zu, %d threads: dx[%zu] = %a, with 1 thread %a",
                          impl->name, rows, d, nt, bx, p.dx[bx], want[bx]);
            ck_assert_msg(bg == d && bb == d,
                          "%s, %zu x %zu, %d threads: %s[%zu] = %a, with 1 thread %a. A sum "
                          "over rows must not depend on which thread took which rows: sum "
                          "fixed chunks into their own partials and add those in chunk order",
                          impl->name, rows, d, nt, bg < d ? "dgamma" : "dbeta", bg < d ? bg : bb,
                          bg < d ? p.dgamma[bg] : p.dbeta[bb],
                          bg < d ? want[n + bg] : want[n + d + bb]);
        }
        nl_free(want);
        nl_bwd_problem_free(&p);
    }
}
END_TEST

/* The reduction's order is the contract: partials added in chunk order,
 * column by column, onto what dst held. */
START_TEST(partials_add_in_chunk_order)
{
    /* 1 + 2^-24 + 2^-24 in that order rounds to 1 twice; any other order
     * (the two small ones first) gives 1 + 2^-23. */
    float parts[3] = {1.0f, 0x1p-24f, 0x1p-24f}, dst = 0.0f;
    nl_bwd_add_partials(&dst, parts, 3, 1);
    ck_assert_msg(dst == 1.0f, "adding partials {1, 2^-24, 2^-24} gave %a, expected 0x1p+0: "
                  "they must be added first to last", dst);
}
END_TEST

/* The chunk partials are kept between calls: a call that allocated them
 * afresh each time paid a page fault for each of their pages (glibc maps a
 * block of 32 MiB or more anew on every malloc: a fifth of the LayerNorm
 * skew rung's time at 16384 x 8192).  malloc is told to map every block
 * of 64 KiB or more, so that the 320 KiB of partials here would fault as
 * they do out of cache; Check runs each test in its own process. */
static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

START_TEST(partials_are_kept_between_calls)
{
#if !defined(__GLIBC__)
    NL_SKIP("needs glibc's mallopt to make malloc map its blocks");
#else
    const nl_bwd_impl *impl = nl_find_bwd_impl(threaded[_i]);
    ck_assert_msg(impl, "%s is not registered", threaded[_i]);
    if (!nl_name_selected(impl->name))
        NL_SKIP("not selected by NL_IMPLS");
    NL_SKIP_UNLESS_RUNS(impl->name, impl->requires, nl_bwd_impl_unavailable(impl));
    if (mallopt(M_MMAP_THRESHOLD, 64 * 1024) != 1)
        NL_SKIP("this malloc refuses mallopt (a sanitizer's?): the page faults would not "
                "show a fresh allocation");
    omp_set_dynamic(0);
    omp_set_num_threads(1);
    const size_t rows = 264, d = 8192, chunks = (rows + NL_BWD_CHUNK_ROWS - 1) / NL_BWD_CHUNK_ROWS;
    nl_bwd_problem p = nl_bwd_problem_new(impl->norm, rows, d, NL_TEST_EPS, 91);
    nl_bwd_run(impl, &p); /* the first call allocates them */
    nl_bwd_run(impl, &p); /* the second is the first to find them: under an emulator
                             (qemu, make cross-test) its new branch is translated, which
                             faults pages of the emulator's own */
    long before = minor_faults();
    nl_bwd_run(impl, &p);
    long faults = minor_faults() - before;
    long pages = (long)(chunks * d * sizeof(float) * (impl->norm == NL_LAYERNORM ? 2 : 1) / 4096);
    nl_bwd_problem_free(&p);
    ck_assert_msg(faults < pages / 4,
                  "%s, %zu x %zu: the third call took %ld page faults (its partials are %ld "
                  "pages): keep the partials' memory from call to call instead of allocating "
                  "it afresh", impl->name, rows, d, faults, pages);
#endif
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("backward_threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, same_bits_for_every_thread_count, 0,
                        (int)(sizeof threaded / sizeof threaded[0]));
    tcase_add_test(tc, partials_add_in_chunk_order);
    tcase_add_loop_test(tc, partials_are_kept_between_calls, 0,
                        (int)(sizeof threaded / sizeof threaded[0]));
    suite_add_tcase(s, tc);
    return s;
}
