/* harness.h — what every Check suite in tests/ shares.
 *
 * A suite file defines one function, `Suite *nl_suite(void)`; the harness
 * supplies main(), runs it, and prints a closing line
 *     suite NAME: P passed, F failed, S skipped
 * that scripts/ci/run-tests.sh adds up.  A test that cannot run here (no
 * OpenCL device, no AVX-512) calls NL_SKIP("why") instead of passing
 * silently: the skip is counted and its reason printed. */
#ifndef NL_HARNESS_H
#define NL_HARNESS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "normlab.h"

Suite *nl_suite(void);

/* Record a skip with its reason, then leave the test. */
void nl_record_skip(const char *test, const char *reason);
#define NL_SKIP(reason)                            \
    do {                                           \
        nl_record_skip(__func__, (reason));        \
        return;                                    \
    } while (0)

/* ck_assert_msg for loops over every element. Check records each passing
 * assertion (in fork mode, a write to a pipe), so a loop that asserts a
 * million times spends seconds there, and minutes under the sanitizers;
 * this one costs a comparison until it fails, then reports as Check does. */
#define NL_ASSERT_EACH(expr, ...)          \
    do {                                   \
        if (!(expr))                       \
            ck_abort_msg(__VA_ARGS__);     \
    } while (0)

/* A suite's main takes the run's seed before the first test is forked
 * (NL_SEED_FD: the grader's pipe; harness.c says why not NL_TEST_SEED). */
void nl_take_seed(void);

/* Deterministic test data (splitmix64 + Box-Muller): the same seed gives
 * the same floats on every machine. */
void nl_fill_gauss(float *x, size_t n, double mean, double std, uint64_t seed);
void nl_fill_const(float *x, size_t n, float value);

/* Buffers for a rows x d problem: x, y, gamma (=1), beta (=0), and the
 * double reference output. Freed with nl_problem_free. */
typedef struct {
    size_t rows, d;
    float *x, *y, *gamma, *beta;
    double *ref;
} nl_problem;
nl_problem nl_problem_new(size_t rows, size_t d);
void nl_problem_free(nl_problem *p);

/* max |y - ref| over the problem (NaN if any y is NaN where ref is not). */
double nl_max_abs_err(const nl_problem *p);

/* Runs impl on p, failing the test with the library's message if the call
 * itself fails. */
void nl_run_impl(const nl_impl *impl, nl_problem *p, float eps);

/* The registered implementation for loop test number i, skipping the test
 * when it cannot run on this machine. Use with tcase_add_loop_test(tc, fn,
 * 0, nl_impl_count()). */
size_t nl_impl_count(void);
/* Whether NL_IMPLS (name1,name2; unset: all) selects `name`; for suites
 * over another registry (chapter 9's fused kernels). */
int nl_name_selected(const char *name);
#define NL_IMPL_OR_SKIP(var, i)                                       \
    const nl_impl *var = nl_impl_at(i);                               \
    NL_SKIP_UNLESS_RUNS(var->name, var->requires, nl_impl_unavailable(var))
/* Skips (with the reason) when `why_expr` says an implementation named
 * `name` cannot run; with NORMLAB_REQUIRE_OPENCL=1 an OpenCL one fails. */
#define NL_SKIP_UNLESS_RUNS(name, requires, why_expr)                 \
    do {                                                              \
        const char *why_ = (why_expr);                                \
        if (why_) {                                                   \
            if (((requires) & NL_REQ_OPENCL) && nl_opencl_required()) \
                ck_abort_msg("%s: NORMLAB_REQUIRE_OPENCL=1 but %s",   \
                             (name), why_);                           \
            char msg_[256];                                           \
            nl_skip_reason(msg_, sizeof msg_, (name), why_);          \
            NL_SKIP(msg_);                                            \
        }                                                             \
    } while (0)
const nl_impl *nl_impl_at(size_t i);
/* NORMLAB_REQUIRE_OPENCL=1 (set in CI, where PoCL is installed): an
 * OpenCL implementation that cannot run is a failure, not a skip. */
int nl_opencl_required(void);
void nl_skip_reason(char *buf, size_t n, const char *impl, const char *why);

/* The suite's own scratch folder (a mkdtemp under $TMPDIR or /tmp, made
 * before the tests run and removed after): tests write there, never into
 * build/ or the source tree. nl_scratch_path writes DIR/NAME into buf. */
const char *nl_scratch_dir(void);
const char *nl_scratch_path(char *buf, size_t size, const char *name);
/* DIR/NAME in one of 8 rotating buffers (the last 8 names stay valid). */
const char *nl_scratch_name(const char *name);
/* Empties the folder: a test that must not see another test's files. */
void nl_scratch_clear(void);

/* ------------------------------------------------ checks.c: shared checks */

/* The eps every property suite uses unless a test says otherwise: the
 * LayerNorm default of PyTorch, GPT-2 and most configs. */
#define NL_TEST_EPS 1e-5f

/* Fills p->ref with nl_reference for `norm` on p's x, gamma and beta. */
void nl_problem_reference(nl_problem *p, nl_norm norm, float eps);

/* Non-trivial gamma (around 1) and beta (around 0), so that a kernel that
 * forgets one of them, or indexes it by row, is caught. */
void nl_fill_params(nl_problem *p, uint64_t seed);

/* The worst |y - ref| and where it is; a NaN y where ref is a number is
 * the worst of all (err = NaN). */
typedef struct { double err; size_t row, col; double got, want; } nl_err_at;
nl_err_at nl_worst_err(const nl_problem *p);

/* How many threads a parallel region really gets after
 * omp_set_num_threads(n): if OpenMP gives fewer, a test of bit-identity
 * across thread counts proves less than it claims. */
int nl_threads_granted(int n);

/* Mean, variance and mean square of n floats, summed in double. */
typedef struct { double mean, var, ms; } nl_row_stats;
nl_row_stats nl_stats_of(const float *v, size_t n);

/* ------------------------------------------- running the normlab program */

/* The program under test: $(BUILD)/normlab, beside the tests folder; NULL
 * when it is not there. */
const char *nl_normlab_path(void);
/* Any program of the build folder ($(BUILD)/NAME), written into buf;
 * NULL when it is not there. */
const char *nl_build_program(const char *name, char *buf, size_t size);

#define NL_RUN_CAP 65536
typedef struct {
    int exited;      /* 1 when the program exited (not killed by a signal) */
    int code;        /* its exit code, or the signal that killed it */
    int timed_out;   /* killed after nl_run_time_limit() seconds */
    char out[NL_RUN_CAP]; /* stdout, NUL-terminated, truncated at NL_RUN_CAP - 1 */
    char err[NL_RUN_CAP];
} nl_run_result;

/* Seconds before a run counts as hung (longer under valgrind or qemu). */
double nl_run_time_limit(void);
/* Runs `normlab ARGS...` (NULL-terminated), with `env` ("NAME=VALUE"
 * strings, NULL-terminated; NULL for none) added to its environment,
 * capturing both streams. Returns 0, or -1 when it could not be started. */
int nl_try_run_normlab(nl_run_result *r, const char *const *args, const char *const *env);
/* Runs any program, argv[0] looked up in PATH, with the same guards
 * (time limit, and with cap_memory an 8 GiB address-space cap). */
int nl_try_run_argv(nl_run_result *r, const char *const *argv, const char *const *env,
                    int cap_memory);
/* The same, failing the test when the program cannot be started. */
void nl_run_normlab(nl_run_result *r, const char *const *args, const char *const *env);

/* ------------------------------------------------ run_mpi.c: normlab-mpi */

/* NULL when mpirun and build/normlab-mpi are both there, else why not.
 * NORMLAB_REQUIRE_MPI=1 (CI, where Open MPI is installed) makes that a
 * failure instead of a skip. */
const char *nl_mpi_unavailable(void);
#define NL_MPI_OR_SKIP()                                                    \
    do {                                                                    \
        const char *why_ = nl_mpi_unavailable();                            \
        if (why_ && getenv("NORMLAB_REQUIRE_MPI") &&                        \
            !strcmp(getenv("NORMLAB_REQUIRE_MPI"), "1"))                    \
            ck_abort_msg("NORMLAB_REQUIRE_MPI=1 but %s", why_);             \
        if (why_)                                                           \
            NL_SKIP(why_);                                                  \
    } while (0)
/* `mpirun -np RANKS --oversubscribe build/normlab-mpi ARGS...` (args
 * NULL-terminated), failing the test if it cannot start or hangs. */
void nl_run_mpi(nl_run_result *r, int ranks, const char *const *args);
/* The numbers normlab-mpi printed: the max error against the reference
 * (NaN stays NaN) and the output's fingerprint; fails the test when the
 * line is missing. */
double nl_mpi_max_error(const nl_run_result *r);
unsigned long long nl_mpi_fingerprint(const nl_run_result *r);

#endif
