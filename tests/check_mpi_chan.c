/* check_mpi_chan.c — LayerNorm over a row split across MPI ranks: the
 * (n, mean, M2) summaries merged by the Chan MPI_Op (code/mpi/chan_op.c,
 * exercise 14) against the (sum, sum of squares) MPI_SUM.
 *
 * Each test runs build/normlab-mpi under `mpirun -np P --oversubscribe`
 * for P between 1 and 4 and reads the max error it printed against the serial
 * double reference. With one rank MPI never calls the operation, so the
 * tests that can catch a wrong merge are those with P >= 2. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "normlab.h"

/* The tolerance normlab-mpi states (code/mpi/cli/main.c): the output is
 * computed in double from exact statistics and rounded once to float. */
#define TOL 1e-6

static void expect_accurate(int ranks, const char *what, const char *const *args)
{
    nl_run_result r;
    nl_run_mpi(&r, ranks, args);
    double err = nl_mpi_max_error(&r);
    ck_assert_msg(err <= TOL && r.exited && r.code == 0,
                  "LayerNorm, %s, %d rank(s), --method chan: max error %g, expected <= %g "
                  "(exit %d). Hint: the merged summary of a row must be exactly the one of the "
                  "whole row; does chan_reduce merge every lower[i] into upper[i] with "
                  "nl_chan_merge, for all *len elements?\n%s%s",
                  what, ranks, err, TOL, r.code, r.out, r.err);
}

/* Rows near 4e4 with unit spread: E[x^2] and E[x]^2 agree in every digit
 * a float holds, so only a merge of centred summaries is right. */
START_TEST(chan_offset)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "16",
                          "--d", "1000", "--mean", "4e4", NULL};
    expect_accurate(_i, "offset data (mean 4e4, std 1, d = 1000)", args);
}
END_TEST

/* 4099 columns (nl_shard_of): 2050 + 2049, 1367 + 1366 + 1366, 1025 x 3 + 1024. */
START_TEST(chan_uneven)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "64",
                          "--d", "4099", NULL};
    expect_accurate(_i, "uneven shards (d = 4099)", args);
}
END_TEST

/* Fewer columns than ranks: some ranks hold nothing and send n = 0,
 * which the merge must treat as the identity. */
START_TEST(chan_tiny_shards)
{
    NL_MPI_OR_SKIP();
    const char *d = _i == 3 ? "5" : "2";
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "32",
                          "--d", d, "--mean", "100", NULL};
    char what[64];
    snprintf(what, sizeof what, "d = %s over %d ranks, mean 100", d, _i);
    expect_accurate(_i, what, args);
}
END_TEST

/* The lesson kept on purpose: the same rows with (sum, sum of squares)
 * in float and MPI_SUM come out visibly wrong, and the program says so
 * with exit 1. */
START_TEST(sums_fail_on_offset)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "sums", "--rows", "16",
                          "--d", "1000", "--mean", "4e4", NULL};
    nl_run_result r;
    nl_run_mpi(&r, _i, args);
    double err = nl_mpi_max_error(&r);
    ck_assert_msg(!(err <= 1e-2) && r.exited && r.code == 1,
                  "--method sums on rows near 4e4 over %d rank(s): max error %g (exit %d), "
                  "expected > 1e-2 and exit 1: E[x^2] - E[x]^2 in float must cancel here; if "
                  "this passes, the sums are no longer what chapter 11 shows failing\n%s%s",
                  _i, err, r.code, r.out, r.err);
}
END_TEST

/* The same P gives the same bits, run after run: what Open MPI does on
 * one machine with one configuration (it picks the same algorithm each
 * time), not a promise of the standard, which lets the bracketing change;
 * a commutative operation would pass this too. The promise is
 * chan_rank_order's. */
START_TEST(chan_same_bits_same_ranks)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan", "--rows", "16",
                          "--d", "1001", "--mean", "4e4", NULL};
    nl_run_result a, b;
    nl_run_mpi(&a, _i, args);
    unsigned long long fa = nl_mpi_fingerprint(&a);
    nl_run_mpi(&b, _i, args);
    unsigned long long fb = nl_mpi_fingerprint(&b);
    ck_assert_msg(fa == fb, "two runs with %d ranks gave different outputs (fingerprints %016llx "
                  "and %016llx): the reduction order changed between runs", _i, fa, fb);
}
END_TEST

/* --method chan-ordered folds the summaries on rank 0 with MPI_Reduce_local
 * and the Chan operation, left to right in rank order, and compares every
 * row's merged (n, mean, M2) bit for bit with the serial fold
 * nl_chan_merge(lower, upper): a fixed answer, whatever the MPI. An
 * operation that merges in the wrong order, nl_chan_merge(upper, lower),
 * is as accurate (the accuracy tests pass it) but rounds the mean
 * differently. Not on rows near 4e4, where the shard means are large and
 * the correction tiny, so both orders round to the same double; on
 * centred rows (mean 0) the two terms are of one size and 38 to 52 of the
 * 64 rows differ (2 to 4 ranks). */
START_TEST(chan_rank_order)
{
    NL_MPI_OR_SKIP();
    const char *args[] = {"--norm", "ln", "--shard", "hidden", "--method", "chan-ordered",
                          "--rows", "64", "--d", "4099", NULL};
    nl_run_result r;
    nl_run_mpi(&r, _i, args);
    const char *line = strstr(r.out, "rank order: ");
    size_t same = 0, rows = 0;
    int parsed = line && sscanf(line, "rank order: merged (n, mean, M2) equal the serial fold in "
                                      "rank order in %zu of %zu rows", &same, &rows) == 2;
    ck_assert_msg(parsed && rows == 64 && same == rows && r.exited && r.code == 0,
                  "--method chan-ordered, %d ranks, d = 4099, mean 0: %zu of 64 rows merged "
                  "in rank order (exit %d), expected all 64. Hint: MPI calls chan_reduce(in, "
                  "inout) with in holding the LOWER ranks' summaries and wants inout = in (op) "
                  "inout: upper[i] = nl_chan_merge(lower[i], upper[i]). Written "
                  "nl_chan_merge(upper[i], lower[i]), the operands are swapped: as accurate, "
                  "so the error tests pass, but the mean rounds differently and the order MPI "
                  "defines is not the one computed\n%s%s",
                  _i, same, r.code, r.out, r.err);
}
END_TEST


/* ------------------------------------------------------------------
 * The judged tests: the operation in ranks of their own.
 *
 * The tests above run build/normlab-mpi, which computes its error
 * against the reference in the same processes as the operation: fine
 * for the course's own code, forgeable for a submission. These run the
 * worker of scripts/grading/judge/mpi_worker.c (the operation linked
 * with MPI and nothing else that knows an answer) under mpirun: this
 * suite draws the summaries from the run's seed (nl_fill_gauss), sends
 * them to rank 0's stdin, and compares what the ranks answer with its own
 * serial fold (nl_chan_merge) and with a two-pass over whole rows. The
 * ranks never see the seed, the reference or this process's descriptors.
 * The grader links the worker with the student's chan_op.c and names it
 * in NL_MPI_WORKER; `make test` uses build/normlab-mpi-worker (the real
 * chan_op.c). */

#define JUDGE_ROWS 64
#define JUDGE_CAP (1 << 20)

static const char *judge_worker(void)
{
    static char prog[PATH_MAX];
    const char *w = getenv("NL_MPI_WORKER");
    if (w && *w)
        return access(w, X_OK) == 0 ? w : NULL;
    return nl_build_program("normlab-mpi-worker", prog, sizeof prog);
}

static const char *judge_unavailable(void)
{
    const char *why = NULL;
    const char *named = getenv("NL_MPI_WORKER");
    /* Outside the grader (no worker named), the judged tests need what the
     * other MPI tests need: a cross build under qemu has neither program. */
    const char *wrapper = getenv("NL_TEST_WRAPPER");
    if (wrapper && *wrapper)
        why = "the suites run under a wrapper (qemu for a cross build): mpirun cannot "
              "start the worker through it";
    else if (!(named && *named) && (why = nl_mpi_unavailable()) != NULL)
        ;
    else if (system("command -v mpirun >/dev/null 2>&1") != 0)
        why = "Open MPI's mpirun is not installed (package openmpi-bin)";
    else if (!judge_worker())
        why = "no MPI worker: make builds build/normlab-mpi-worker only where Open MPI's C "
              "development files and libseccomp are installed (the grader builds its own)";
    if (why && getenv("NORMLAB_REQUIRE_MPI") && !strcmp(getenv("NORMLAB_REQUIRE_MPI"), "1"))
        ck_abort_msg("NORMLAB_REQUIRE_MPI=1 but %s", why);
    return why;
}
/* A macro, not a function: NL_SKIP returns from the test itself. */
#define judge_or_skip()                                \
    do {                                               \
        const char *why_ = judge_unavailable();        \
        if (why_)                                      \
            NL_SKIP(why_);                             \
    } while (0)

typedef struct {
    char out[JUDGE_CAP], err[8192];
    size_t lo, le;
    int status, timed_out;
} judge_run;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* mpirun -np P WORKER with `req` on its stdin. Its environment is built
 * here from nothing but what MPI needs: not NL_TEST_SEED, not the
 * verdict's descriptor number, and no descriptor but its three pipes. */
static void judge_spawn(judge_run *r, int ranks, const char *req)
{
    memset(r, 0, sizeof *r);
    int pi[2], po[2], pe[2];
    ck_assert(pipe(pi) == 0 && pipe(po) == 0 && pipe(pe) == 0);
    char np[16], path[PATH_MAX];
    snprintf(np, sizeof np, "%d", ranks);
    snprintf(path, sizeof path, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    const char *worker = judge_worker();
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        dup2(pi[0], 0), dup2(po[1], 1), dup2(pe[1], 2);
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        char *const argv[] = {"mpirun", "-np", np, "--oversubscribe", (char *)worker, NULL};
        char ep[PATH_MAX + 8];
        snprintf(ep, sizeof ep, "PATH=%s", path);
        /* Root (CI) needs the two permissions; the single-copy transport
         * would need process_vm_readv, which the ranks' filter refuses;
         * LeakSanitizer must not run in a filtered rank; ob1 and no
         * second's wait after a rank fails, for the time a run takes, as
         * in tests/harness/run_mpi.c (a hostile rank that ignores SIGTERM
         * is killed at once). */
        char *const envp[] = {ep, "HOME=/tmp", "TMPDIR=/tmp", "OMPI_ALLOW_RUN_AS_ROOT=1",
                              "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_pml=ob1",
                              "OMPI_MCA_odls_base_sigkill_timeout=0",
                              "OMPI_MCA_btl_vader_single_copy_mechanism=none",
                              "OMPI_MCA_mca_base_component_disable_dlclose=1",
                              "ASAN_OPTIONS=detect_leaks=0", NULL};
        execvpe("mpirun", argv, envp);
        _exit(127);
    }
    close(pi[0]), close(po[1]), close(pe[1]);
    fcntl(pi[1], F_SETFL, O_NONBLOCK);
    signal(SIGPIPE, SIG_IGN);
    size_t sent = 0, want = strlen(req);
    int in = pi[1], o = po[0], e = pe[0];
    double deadline = now_s() + 2 * nl_run_time_limit();
    while (o >= 0 || e >= 0) {
        struct pollfd fds[3] = {{o, POLLIN, 0}, {e, POLLIN, 0}, {in, POLLOUT, 0}};
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0) {
            r->timed_out = 1;
            kill(-pid, SIGKILL), kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 3, left) < 0 && errno != EINTR)
            break;
        if (in >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(in, req + sent, want - sent);
            if (n > 0)
                sent += (size_t)n;
            if (n < 0 && errno != EAGAIN)
                sent = want;
            if (sent == want)
                close(in), in = -1;
        }
        for (int k = 0; k < 2; k++) {
            int *fd = k ? &e : &o;
            if (*fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char *buf = k ? r->err : r->out;
            size_t *len = k ? &r->le : &r->lo, cap = k ? sizeof r->err : sizeof r->out;
            char tmp[4096];
            ssize_t n = read(*fd, tmp, sizeof tmp);
            if (n <= 0) {
                close(*fd), *fd = -1;
                continue;
            }
            size_t take = (size_t)n < cap - 1 - *len ? (size_t)n : cap - 1 - *len;
            memcpy(buf + *len, tmp, take);
            *len += take;
        }
    }
    if (in >= 0)
        close(in);
    if (o >= 0)
        close(o);
    if (e >= 0)
        close(e);
    waitpid(pid, &r->status, 0);
    kill(-pid, SIGKILL);
}

/* One row's shards: d columns split over P ranks as nl_shard_of does
 * (the first d % P get one more), each shard's (n, mean, M2) by two passes
 * in double, and the whole row's by the same two passes. */
static nl_moments two_pass(const float *x, size_t n)
{
    nl_moments m = {(double)n, 0.0, 0.0};
    if (n == 0)
        return m;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    m.mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        m.m2 += ((double)x[i] - m.mean) * ((double)x[i] - m.mean);
    return m;
}

typedef struct {
    int ranks;
    size_t d;
    nl_moments parts[4 * JUDGE_ROWS], whole[JUDGE_ROWS], fold[JUDGE_ROWS];
} judge_case;

static void judge_draw(judge_case *c, int ranks, size_t d, double mean, uint64_t seed)
{
    c->ranks = ranks, c->d = d;
    float *x = nl_alloc(d * sizeof *x);
    ck_assert_msg(x, "out of memory");
    for (size_t row = 0; row < JUDGE_ROWS; row++) {
        nl_fill_gauss(x, d, mean, 1.0, seed + row);
        c->whole[row] = two_pass(x, d);
        size_t start = 0;
        for (int k = 0; k < ranks; k++) {
            size_t count = d / (size_t)ranks + ((size_t)k < d % (size_t)ranks);
            c->parts[(size_t)k * JUDGE_ROWS + row] = two_pass(x + start, count);
            start += count;
        }
        nl_moments acc = c->parts[row];
        for (int k = 1; k < ranks; k++)
            acc = nl_chan_merge(acc, c->parts[(size_t)k * JUDGE_ROWS + row]);
        c->fold[row] = acc;
    }
    nl_free(x);
}

static int same_bits(nl_moments a, nl_moments b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* How far the ranks' all-reduce may be from the whole row's two passes:
 * a few roundings of double per merge, relative to the row's scale. */
static int close_to(nl_moments got, nl_moments want)
{
    double sd = want.n > 0 ? sqrt(want.m2 / want.n) : 0;
    return got.n == want.n && fabs(got.mean - want.mean) <= 1e-12 * (fabs(want.mean) + sd + 1e-300) &&
           fabs(got.m2 - want.m2) <= 1e-9 * want.m2 + 1e-300;
}

/* Runs the worker on c, fails the test with `what` and the first row that
 * is wrong; `order` also demands the rank-order fold bit for bit. */
static void judge_check(const judge_case *c, const char *what, int order)
{
    static char req[JUDGE_CAP];
    size_t len = (size_t)snprintf(req, sizeof req, "nlmpi %d %d\n", c->ranks, JUDGE_ROWS);
    for (int k = 0; k < c->ranks; k++)
        for (size_t row = 0; row < JUDGE_ROWS; row++) {
            const nl_moments *m = &c->parts[(size_t)k * JUDGE_ROWS + row];
            len += (size_t)snprintf(req + len, sizeof req - len, "%a %a %a\n", m->n, m->mean, m->m2);
        }
    static judge_run r;
    judge_spawn(&r, c->ranks, req);
    /* The worker's own lines (a refused call) first: mpirun's banner about
     * a rank that exited without MPI_Finalize says less. */
    const char *tail = strstr(r.err, "mpi worker: ");
    tail = tail ? tail : r.err;
    ck_assert_msg(!r.timed_out, "%s, %d ranks: the ranks did not answer within %.0f s and were stopped "
                  "(does chan_reduce loop forever, or a rank never join the collective?)\n%.600s",
                  what, c->ranks, 2 * nl_run_time_limit(), tail);
    const char *at = strstr(r.out, "nlmpi-answer ");
    int p = 0, l = 0;
    int ok = at && sscanf(at, "nlmpi-answer %d %d", &p, &l) == 2 && p == c->ranks && l == JUDGE_ROWS;
    nl_moments got[5 * JUDGE_ROWS];
    size_t want_n = (size_t)(c->ranks + 1) * JUDGE_ROWS;
    char *q = ok ? strchr(at, '\n') : NULL;
    for (size_t i = 0; ok && i < want_n; i++) {
        char *end;
        double v[3];
        for (int j = 0; ok && j < 3; j++) {
            v[j] = strtod(q, &end);
            ok = end != q;
            q = end;
        }
        got[i] = (nl_moments){v[0], v[1], v[2]};
    }
    ok = ok && strstr(q, "nlmpi-end");
    ck_assert_msg(ok, "%s, %d ranks: the ranks running your chan_op.c gave no complete answer "
                  "(mpirun %s %d): did a rank crash, exit early or make a call the sandbox "
                  "forbids? Its messages:\n%.600s",
                  what, c->ranks, WIFEXITED(r.status) ? "exit" : "signal",
                  WIFEXITED(r.status) ? WEXITSTATUS(r.status) : WTERMSIG(r.status), tail);
    if (order)
        for (size_t row = 0; row < JUDGE_ROWS; row++) {
            nl_moments g = got[(size_t)c->ranks * JUDGE_ROWS + row], w = c->fold[row];
            ck_assert_msg(same_bits(g, w),
                          "%s, %d ranks, row %zu: MPI_Reduce_local with your operation, folding "
                          "the ranks' summaries in rank order, gave (n, mean, M2) = (%.17g, %.17g, "
                          "%.17g); the serial fold nl_chan_merge(lower, upper) gives (%.17g, %.17g, "
                          "%.17g). Hint: MPI wants inout[i] = in[i] (op) inout[i], with in the "
                          "LOWER ranks: upper[i] = nl_chan_merge(lower[i], upper[i]); swapped "
                          "operands are as accurate but round the mean differently",
                          what, c->ranks, row, g.n, g.mean, g.m2, w.n, w.mean, w.m2);
        }
    for (int k = 0; k < c->ranks; k++)
        for (size_t row = 0; row < JUDGE_ROWS; row++) {
            nl_moments g = got[(size_t)k * JUDGE_ROWS + row], w = c->whole[row];
            ck_assert_msg(close_to(g, w),
                          "%s, %d ranks: after MPI_Allreduce with your operation rank %d holds "
                          "(n, mean, M2) = (%.17g, %.17g, %.17g) for row %zu; the whole row's is "
                          "(%.17g, %.17g, %.17g). Hint: merge every lower[i] into upper[i] with "
                          "nl_chan_merge, for all *len elements",
                          what, c->ranks, k, g.n, g.mean, g.m2, row, w.n, w.mean, w.m2);
        }
}

/* Centred rows: the two operand orders round the mean differently. */
START_TEST(judged_rank_order)
{
    judge_or_skip();
    static judge_case c;
    judge_draw(&c, _i, 4099, 0.0, 0x1400);
    judge_check(&c, "centred rows (d = 4099)", 1);
}
END_TEST

/* Rows near 4e4 with unit spread: only a merge of centred summaries. */
START_TEST(judged_offset)
{
    judge_or_skip();
    static judge_case c;
    judge_draw(&c, _i, 1000, 4e4, 0x1401);
    judge_check(&c, "rows near 4e4 (d = 1000)", 0);
}
END_TEST

/* Fewer columns than ranks: empty shards (n = 0) are the identity. */
START_TEST(judged_empty_shards)
{
    judge_or_skip();
    static judge_case c;
    judge_draw(&c, _i, _i == 4 ? 3 : 2, 100.0, 0x1402);
    judge_check(&c, "fewer columns than ranks (empty shards)", 0);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("mpi_chan");
    /* First, and the only ones that can grade a submission: the rank-order
     * test is the one a swapped merge fails, so its message is the first
     * line of feedback. */
    TCase *judged = tcase_create("judged");
    tcase_set_timeout(judged, 120);
    tcase_add_loop_test(judged, judged_rank_order, 2, 5);
    tcase_add_loop_test(judged, judged_offset, 1, 5);
    tcase_add_loop_test(judged, judged_empty_shards, 3, 5);
    suite_add_tcase(s, judged);
    TCase *tc = tcase_create("chan");
    /* Each test starts mpirun with up to 4 ranks on a small machine. */
    tcase_set_timeout(tc, 120);
    /* First: for the swapped merge, the only test that fails, so its
     * message is the first line of feedback either way. */
    tcase_add_loop_test(tc, chan_rank_order, 2, 5);
    tcase_add_loop_test(tc, chan_offset, 1, 5);
    tcase_add_loop_test(tc, chan_uneven, 2, 5);
    tcase_add_loop_test(tc, chan_tiny_shards, 3, 5);
    tcase_add_loop_test(tc, sums_fail_on_offset, 2, 5);
    tcase_add_loop_test(tc, chan_same_bits_same_ranks, 3, 4);
    suite_add_tcase(s, tc);
    return s;
}
