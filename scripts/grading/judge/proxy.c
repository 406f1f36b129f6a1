/* proxy.c — the judge's side of a graded exercise: it defines the
 * exercise's functions (same names, same prototypes as the student's file,
 * built from calls/BASE.def, see calls.h), and each of them asks the worker.
 *
 * The judge is a Check suite linked with the reference library, the
 * exercise's file without its graded functions (stage.sh weakens them in
 * the starter's object, so these win) and this file; it never runs a byte
 * of the student's code.  The worker, a separate program (worker.c plus the
 * student's object), is started in each test's process at its first call,
 * with only descriptors 0-2 and its two pipes, under a seccomp filter from
 * before its first instruction (see spawn), and dies with the test.  It
 * is never reused by another test: what one test's calls leave in it (its
 * statics, its heap, an answer still in the pipe when Check killed the
 * test half-way) cannot reach the next test, which gets a fresh exec.
 * A fresh worker per test costs an exec; make grade-check took 66 s with
 * it (74 s when 03 and 10 were graded in-process; 68 s before the judge),
 * well inside a budget of twice that, so isolation wins.
 *
 * A call that gets no valid answer in time fails the test (nl_judge_fail:
 * Check's ck_abort_msg in a suite, judge_check.c) with what happened:
 * the worker exited, crashed, was killed for a forbidden system call, did
 * not answer within NL_WORKER_TIMEOUT seconds, or answered malformed.
 *
 * Compiled once per exercise with -DNL_CALLS_DEF='"calls/BASE.def"'. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "calls.h"
#include "count.h"
#include "wire.h"

/* count.c, linked only into the judges of exercises that count the
 * instructions the answer executes (exercise.conf: count = yes). */
#pragma weak nl_count_armed
#pragma weak nl_count_call

void nl_judge_fail(const char *msg);
void nl_set_error(const char *fmt, ...);

/* Without Check (the normlab program linked for tests that run it): the
 * process stops with the message, which fails whatever test ran it. */
__attribute__((weak)) void nl_judge_fail(const char *msg)
{
    fprintf(stderr, "normlab (graded): %s\n", msg);
    _exit(3);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner = -1, worker = -1;
static int req_fd = -1, rep_fd = -1;
static unsigned char *reply;
static size_t reply_cap;

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void failf(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (worker > 0)
        kill(worker, SIGKILL);
    nl_judge_fail(msg);
    _exit(3); /* nl_judge_fail does not return */
}

/* Why a forbidden call ends the test, as the student should read it.  The
 * OpenCL worker (exercise 08, cl_worker.c) lets PoCL's compiler use files
 * and start the linker, so there only the rest is refused. */
#ifdef NL_JUDGE_OPENCL
#define REFUSED_WHY "a kernel and the host code around it compute: they do not signal or trace " \
                    "other processes, open sockets or change namespaces"
#else
#define REFUSED_WHY "a graded function computes, it does not open files, write to descriptors, " \
                    "signal or start processes"
#endif

/* What the worker's exit status says, for a test's message. */
static void explain_death(const char *fn, const char *what, long refused)
{
    int st = 0;
    pid_t r = 0;
    for (int i = 0; i < 100 && (r = waitpid(worker, &st, WNOHANG)) == 0; i++)
        usleep(10000);
    if (r == 0) {
        kill(worker, SIGKILL);
        waitpid(worker, &st, 0);
        failf("%s: %s (the process running your code was stopped)", fn, what);
    }
    worker = -1;
    if (WIFEXITED(st))
        failf("%s: the process running your code exited (status %d) instead of returning: "
              "exit(), _exit() or abort paths end it, and an exit never passes a test",
              fn, WEXITSTATUS(st));
    int sig = WTERMSIG(st);
    if (sig == SIGSYS && refused < 0)
        failf("%s: your code made a system call the sandbox forbids before the judge's first "
              "call reached it (a constructor, .init code or an ifunc?) and was killed", fn);
    if (sig == SIGSYS) {
        char *name = refused >= 0 ? seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)refused) : NULL;
        char call[64];
        snprintf(call, sizeof call, "%s", name ? name : "unknown");
        free(name);
        failf("%s: your code made a system call the sandbox forbids (%s, number %ld) and was "
              "killed: %s", fn, call, refused, REFUSED_WHY);
    }
    if (sig == SIGSEGV || sig == SIGBUS)
        failf("%s: your code crashed (%s): a read or write outside an array (each array "
              "ends just before an unmapped page) or through a bad pointer",
              fn, strsignal(sig));
    if (sig == SIGABRT)
        failf("%s: your code aborted (SIGABRT: abort() or a failed assert)", fn);
    if (sig == SIGXCPU)
        failf("%s: your code ran out of CPU time: an endless loop?", fn);
    failf("%s: the process running your code was killed by signal %d (%s)", fn, sig, strsignal(sig));
}

/* The student's code called the k-th function of the exercise's `forbid`
 * list (NL_FORBIDDEN, from exercise.conf through the driver, with the
 * exercise's reason in NL_FORBIDDEN_WHY). */
static void forbidden_call(const char *fn, uint64_t k)
{
    const char *list = getenv("NL_FORBIDDEN"), *why = getenv("NL_FORBIDDEN_WHY");
    char name[128] = "a function this exercise replaces";
    for (const char *p = list ? list : ""; *p && k < 64;) {
        size_t n = strcspn(p, " ");
        if (n && k-- == 0) {
            snprintf(name, sizeof name, "%.*s", (int)(n < 120 ? n : 120), p);
            break;
        }
        p += n + (p[n] == ' ');
    }
    failf("%s: your code calls %s, one of the kernels this exercise replaces: %s", fn, name,
          why && *why ? why : "write the computation in your own code");
}

/* Start the worker, in this test's process.  The child closes every
 * descriptor but its pipes and 0-2 and installs a first seccomp filter
 * before exec, so even code that runs before the worker's main (a
 * constructor, an ifunc resolver) can only read, map memory and exit;
 * worker.c then narrows it further. */
static void spawn(void)
{
    const char *path = getenv("NL_WORKER");
    if (!path || !*path)
        failf("judge: NL_WORKER names no worker program (the grader's setup is broken)");
    int q[2], a[2];
    if (pipe2(q, O_CLOEXEC) || pipe2(a, O_CLOEXEC))
        failf("judge: cannot make the worker's pipes: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        failf("judge: cannot start the worker: %s", strerror(errno));
    if (pid == 0) {
        /* q[0] and a[1] may already be 3 or 4: move them out of the way. */
        int r = fcntl(q[0], F_DUPFD, 10), w = fcntl(a[1], F_DUPFD, 10);
        if (r < 0 || w < 0 || dup2(r, NL_W_REQ_FD) < 0 || dup2(w, NL_W_REP_FD) < 0) {
            dprintf(2, "judge: cannot give the worker its pipes (%d %d %d %d): %s\n", q[0], a[1], r, w, strerror(errno));
            _exit(120);
        }
        close_range(NL_W_REP_FD + 1, ~0u, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct rlimit core = {0, 0};
        setrlimit(RLIMIT_CORE, &core);
#ifdef NL_JUDGE_EXEC
        /* An exercise's own start of its worker (cl_judge.c for 08): does
         * not return. */
        void NL_JUDGE_EXEC(const char *worker_path);
        NL_JUDGE_EXEC(path);
#endif
        /* TRAP, not KILL: of two filters the stricter action wins, and
         * worker.c's SIGSYS handler names the refused call only if this
         * one traps too (before that handler exists, SIGSYS kills). */
        scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
        static const int loader[] = {
            /* exec, and what the dynamic loader and libc's start need */
            SCMP_SYS(execve), SCMP_SYS(brk), SCMP_SYS(arch_prctl), SCMP_SYS(access),
            SCMP_SYS(openat), SCMP_SYS(open), SCMP_SYS(close), SCMP_SYS(read), SCMP_SYS(pread64),
            SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(mmap), SCMP_SYS(mprotect),
            SCMP_SYS(munmap), SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list),
            SCMP_SYS(rseq), SCMP_SYS(prlimit64), SCMP_SYS(getrandom), SCMP_SYS(rt_sigaction),
            SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(futex),
            SCMP_SYS(sched_getaffinity), SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(readlink),
            SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(seccomp), SCMP_SYS(prctl),
            SCMP_SYS(madvise), SCMP_SYS(mremap), SCMP_SYS(sysinfo), SCMP_SYS(uname),
            SCMP_SYS(clock_gettime), SCMP_SYS(statfs), SCMP_SYS(lseek), SCMP_SYS(getcwd),
            /* and all worker.c's own filter allows (a call passes only if
             * both filters let it) */
            SCMP_SYS(sched_yield), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
        };
        int ok = f != NULL;
        for (size_t i = 0; ok && i < sizeof loader / sizeof *loader; i++)
            ok = seccomp_rule_add(f, SCMP_ACT_ALLOW, loader[i], 0) == 0;
        /* Files open only for reading: code that runs early cannot change
         * the scratch (the next suite's programs) or anything else. */
        for (int fd = 1; ok && fd <= NL_W_REP_FD; fd++)
            ok = fd == NL_W_REQ_FD ||
                 seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)fd, 0)) == 0;
        ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                                    nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0)) == 0;
        ok = ok && seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0;
        ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                                    nl_w_arg0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)) == 0;
        if (!ok || seccomp_load(f) != 0) {
            dprintf(2, "judge: cannot install the worker's first seccomp filter\n");
            _exit(121);
        }
        char *argv[] = {(char *)path, NULL};
        char *envp[] = {"PATH=/usr/bin:/bin", "OMP_NUM_THREADS=2", NULL};
        execve(path, argv, envp);
        dprintf(2, "judge: cannot run the worker %s: %s\n", path, strerror(errno));
        _exit(122);
    }
    close(q[0]);
    close(a[1]);
    req_fd = q[1];
    rep_fd = a[0];
    worker = pid;
    owner = getpid();
}

static long timeout_ms(void)
{
    const char *t = getenv("NL_WORKER_TIMEOUT");
    long s = t ? atol(t) : 0;
    return (s > 0 ? s : 10) * 1000L;
}

/* Send one request (q: nl_w_begin'd, then its fields); on return the
 * answer's body is in c and the lock is held until nl_j_done.  Any
 * failure fails the test (no return). */
static void nl_j_call(const char *fn, nl_w_buf *q, nl_w_cursor *c, uint64_t most)
{
    if (q->failed)
        failf("judge: out of memory building the request of %s", fn);
    if (owner != getpid())
        spawn(); /* a test's own process (Check forks one per test) */
    else if (worker < 0)
        failf("%s: the process running your code is gone (it died in an earlier call)", fn);
    nl_w_seal(q);
    if (nl_count_armed && nl_count_armed()) {
        char why[512];
        if (nl_count_call(worker, req_fd, q->p, q->len, rep_fd, nl_w_now_ms() + timeout_ms(), why,
                          sizeof why))
            failf("%s: %s", fn, why);
    } else if (nl_w_write_all(req_fd, q->p, q->len)) {
        explain_death(fn, "it stopped reading", -1);
    }
    nl_w_header h = {0, 0, 0};
    int r = nl_w_recv(rep_fd, &h, &reply, &reply_cap, most, nl_w_now_ms() + timeout_ms());
    if (r == -2)
        failf("%s: your code did not answer within %ld s: an endless loop?", fn, timeout_ms() / 1000);
    if (r != -1 && h.magic != NL_W_SAYS)
        failf("%s: the process running your code sent something that is not an answer "
              "(its descriptor 4 is the judge's; printing to it fails the test)", fn);
    if (r == 0 && h.what == NL_W_REFUSED)
        explain_death(fn, "it was refused a system call", (long)h.len);
    if (r == 0 && h.what == NL_W_FORBIDDEN)
        forbidden_call(fn, h.len);
    if (r == -1)
        explain_death(fn, "it closed its answer without answering", -1);
    if (r == -4)
        failf("%s: the process running your code sent more than one answer (its descriptor 4 "
              "is the judge's; printing to it fails the test)", fn);
    if (r || h.what != NL_W_OK)
        failf("%s: malformed answer (%llu bytes where at most %llu are expected)", fn,
              (unsigned long long)h.len, (unsigned long long)most);
    *c = (nl_w_cursor){reply + sizeof h, (size_t)h.len, 0, 0};
}

/* The next field of an answer into dst, exactly `want` bytes (NL_W_NULL:
 * a NULL pointer's, no bytes). */
static void nl_j_get(nl_w_cursor *c, void *dst, uint64_t want, const char *fn, const char *what)
{
    uint64_t len, aux;
    const unsigned char *p = nl_w_next(c, &len, &aux);
    if (c->bad || len != want)
        failf("%s: malformed answer: %s has %llu bytes where %llu are expected", fn, what,
              len == NL_W_NULL ? 0ull : (unsigned long long)len,
              want == NL_W_NULL ? 0ull : (unsigned long long)want);
    if (p && len)
        memcpy(dst, p, (size_t)len);
}

__attribute__((unused)) static void nl_j_get_err(nl_w_cursor *c, const char *fn)
{
    uint64_t len, aux;
    const unsigned char *p = nl_w_next(c, &len, &aux);
    if (c->bad || !p || len == 0 || len > NL_W_ERRLEN || p[len - 1] != '\0')
        failf("%s: malformed answer: its error message is not a string of at most %d bytes", fn,
              NL_W_ERRLEN);
    if (*p)
        nl_set_error("%s", (const char *)p);
}

static void nl_j_done(nl_w_cursor *c, const char *fn)
{
    if (c->pos != c->len)
        failf("%s: malformed answer: %zu bytes more than the call returns", fn, c->len - c->pos);
    pthread_mutex_unlock(&lock);
}

/* The arrays of one request so far, to find aliases (wire.h, aux). */
typedef struct {
    const void *at[32];
    uint64_t bytes[32];
    size_t n;
} nl_arrays;

__attribute__((unused)) static uint64_t array_aux(nl_arrays *a, const void *p, uint64_t bytes)
{
    uint64_t aux = (uintptr_t)p % 64;
    for (size_t i = 0; p && bytes && i < a->n; i++)
        if (a->at[i] == p && a->bytes[i] == bytes) {
            aux |= (uint64_t)(i + 1) << NL_W_ALIAS_SHIFT;
            break;
        }
    if (a->n < sizeof a->at / sizeof *a->at) {
        a->at[a->n] = p;
        a->bytes[a->n] = bytes;
    }
    a->n++;
    return aux;
}

/* The request being built: one buffer, kept between calls (the lock). */
static nl_w_buf q_;

/* A request's first field (wire.h): the caller's OpenMP thread count. */
static void put_threads(nl_w_buf *q)
{
#ifdef _OPENMP
    int t = omp_get_max_threads();
#else
    int t = 1;
#endif
    uint32_t n = t < 1 ? 1u : t > NL_W_MAX_THREADS ? NL_W_MAX_THREADS : (uint32_t)t;
    nl_w_put(q, &n, sizeof n, 0);
}

__attribute__((unused)) static void put_strv(nl_w_buf *q, const char *const *v)
{
    if (!v) {
        nl_w_put(q, NULL, NL_W_NULL, 0);
        return;
    }
    nl_w_buf s = {0};
    for (size_t i = 0; v[i]; i++) {
        size_t n = strlen(v[i]) + 1;
        if (s.len + n > s.cap) {
            size_t cap = (s.cap + n) * 2;
            unsigned char *p = realloc(s.p, cap);
            if (!p)
                failf("judge: out of memory");
            s.p = p;
            s.cap = cap;
        }
        memcpy(s.p + s.len, v[i], n);
        s.len += n;
    }
    nl_w_put(q, s.p, s.len, 0);
    free(s.p);
}

/* The request: by-value arguments, then arrays (wire.h). */
#define NL_SEND1_VAL(T, n, c) nl_w_put(&q_, &n, sizeof n, 0);
#define NL_SEND1_IN(T, n, c)
#define NL_SEND1_OUT(T, n, c)
#define NL_SEND1_INOUT(T, n, c)
#define NL_SEND1_JSON(T, n, c)
#define NL_SEND1_STRV(T, n, c)
#define NL_SEND1_ERR(T, n, c)
#define NL_SEND1_(K, T, n, c) NL_SEND1_##K(T, n, c)
#define NL_SEND2_VAL(T, n, c)
#define NL_SEND2_IN(T, n, c)                                                         \
    nl_w_put(&q_, n, n ? NL_BYTES(T, c) : NL_W_NULL, array_aux(&arr_, n, NL_BYTES(T, c)));
#define NL_SEND2_OUT(T, n, c)                                                        \
    nl_w_put(&q_, NULL, n ? 0 : NL_W_NULL, array_aux(&arr_, n, NL_BYTES(T, c)));
#define NL_SEND2_INOUT(T, n, c) NL_SEND2_IN(T, n, c)
#define NL_SEND2_JSON(T, n, c)                                                       \
    {                                                                                \
        char *t_ = n ? cJSON_PrintUnformatted(n) : NULL;                             \
        nl_w_put(&q_, t_, t_ ? strlen(t_) + 1 : NL_W_NULL, 0);                       \
        free(t_);                                                                    \
    }
#define NL_SEND2_STRV(T, n, c) put_strv(&q_, n);
#define NL_SEND2_ERR(T, n, c)
#define NL_SEND2_(K, T, n, c) NL_SEND2_##K(T, n, c)
/* The answer: outputs copied back, the error message set here. */
#define NL_RECV_VAL(T, n, c)
#define NL_RECV_IN(T, n, c)
#define NL_RECV_OUT(T, n, c) nl_j_get(&c_, n, n ? NL_BYTES(T, c) : NL_W_NULL, fn_, #n);
#define NL_RECV_INOUT(T, n, c) NL_RECV_OUT(T, n, c)
#define NL_RECV_JSON(T, n, c)
#define NL_RECV_STRV(T, n, c)
#define NL_RECV_ERR(T, n, c) nl_j_get_err(&c_, fn_);
#define NL_RECV_(K, T, n, c) NL_RECV_##K(T, n, c)
/* The most an answer may hold. */
#define NL_MOST_VAL(T, n, c)
#define NL_MOST_IN(T, n, c)
#define NL_MOST_OUT(T, n, c) +sizeof(nl_w_field) + (n ? NL_BYTES(T, c) : 0)
#define NL_MOST_INOUT(T, n, c) NL_MOST_OUT(T, n, c)
#define NL_MOST_JSON(T, n, c)
#define NL_MOST_STRV(T, n, c)
#define NL_MOST_ERR(T, n, c) +sizeof(nl_w_field) + NL_W_ERRLEN
#define NL_MOST_(K, T, n, c) NL_MOST_##K(T, n, c)

/* First at file scope, for the headers a description includes; then
 * again for the call ids, and once more for the definitions. */
#define NL_CALL(R, name)
#define NL_CALL_VOID(name)
#include NL_CALLS_DEF
#undef NL_CALL
#undef NL_CALL_VOID
#define NL_CALL(R, name) NL_ID_##name,
#define NL_CALL_VOID(name) NL_ID_##name,
enum {
#include NL_CALLS_DEF
    NL_ID_COUNT
};
#undef NL_CALL
#undef NL_CALL_VOID

#define NL_PROXY_ASK(name)                                                           \
    const char *fn_ = #name;                                                         \
    nl_w_cursor c_;                                                                  \
    nl_arrays arr_ = {0};                                                            \
    pthread_mutex_lock(&lock);                                                       \
    nl_w_begin(&q_, NL_W_ASK, NL_ID_##name);                                         \
    put_threads(&q_);                                                                \
    NL_ARGS_##name(NL_SEND1_) NL_ARGS_##name(NL_SEND2_)                              \
    (void)arr_;                                                                      \
    nl_j_call(fn_, &q_, &c_, 2 * sizeof(nl_w_field) + 64 NL_ARGS_##name(NL_MOST_));
#define NL_CALL(R, name)                                                             \
    R name(NL_PROTO(name))                                                           \
    {                                                                                \
        NL_PROXY_ASK(name)                                                           \
        R ret_;                                                                      \
        memset(&ret_, 0, sizeof ret_);                                               \
        nl_j_get(&c_, &ret_, sizeof ret_, fn_, "the return value");                  \
        NL_ARGS_##name(NL_RECV_) nl_j_done(&c_, fn_);                                \
        return ret_;                                                                 \
    }
#define NL_CALL_VOID(name)                                                           \
    void name(NL_PROTO(name))                                                        \
    {                                                                                \
        NL_PROXY_ASK(name)                                                           \
        NL_ARGS_##name(NL_RECV_) nl_j_done(&c_, fn_);                                \
    }
#include NL_CALLS_DEF
