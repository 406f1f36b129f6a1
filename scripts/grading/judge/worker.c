/* worker.c — the untrusted side: main() of the program that holds the
 * student's object, and the server of each graded function (built from
 * calls/BASE.def, see calls.h).  It is linked with the student's object,
 * libc, libseccomp and only the library objects the student's file itself
 * calls (never the registry, never the exercise's reference).
 *
 * It reads requests on descriptor 3 and answers on 4 (wire.h).  Before it
 * reads the first one it installs a seccomp filter: read on 3, write on
 * 1, 2 and 4, memory, threads (OpenMP), time, and exit; anything else
 * traps into report_refusal, which tells the judge which call it was and
 * dies of SIGSYS.  Each array the student's function gets is a copy that
 * ends just before an unmapped page, so a read or write past its end
 * crashes the worker (the judge says so) instead of passing unnoticed.
 *
 * Compiled once per exercise with -DNL_CALLS_DEF='"calls/BASE.def"'. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "calls.h"
#include "wire.h"

const char *nl_last_error(void);
void nl_set_error(const char *fmt, ...);

static void die(const char *why)
{
    fprintf(stderr, "worker: %s\n", why);
    fflush(stderr);
    _exit(125);
}

/* Guarded places for a call's arrays, kept from call to call: the k-th
 * array of a call reuses the k-th mapping when it has as many pages, so a
 * call of small arrays maps nothing new (what a mapping held before is
 * only earlier inputs and answers of this worker's own). */
typedef struct {
    void *base;
    size_t len;
} mapping;
static mapping maps[64];
static size_t nmaps; /* mappings used by the call being served */
static long page;

static void *guarded(uint64_t bytes, uint64_t align)
{
    if (bytes > (uint64_t)1 << 36 || nmaps == sizeof maps / sizeof *maps)
        die("a request asks for too large or too many arrays");
    size_t n = (size_t)bytes, pages = (n + 63 + (size_t)page - 1) / (size_t)page + 1;
    mapping *m = &maps[nmaps++];
    if (m->len != pages * (size_t)page) {
        if (m->base)
            munmap(m->base, m->len);
        unsigned char *b = mmap(NULL, pages * (size_t)page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
            die("out of memory");
        if (mprotect(b + (pages - 1) * (size_t)page, (size_t)page, PROT_NONE))
            die("cannot protect a guard page");
        *m = (mapping){b, pages * (size_t)page};
    }
    unsigned char *guard = (unsigned char *)m->base + m->len - (size_t)page;
    /* Its end as near the guard as the caller's alignment (mod 64) allows. */
    uintptr_t start = (uintptr_t)(guard - n);
    start -= (start - (uintptr_t)align % 64) % 64;
    return (void *)start;
}

/* The arrays of the call being served, in order, for aliases (wire.h). */
typedef struct {
    void *at;
    uint64_t bytes;
} array;
static array arrs[32];
static size_t narrs;

/* The earlier array this one aliases, or NULL; a bad index is malformed. */
static void *alias_of(uint64_t aux, uint64_t bytes, int *bad)
{
    uint64_t k = aux >> NL_W_ALIAS_SHIFT;
    if (k == 0)
        return NULL;
    if (k > narrs || k > sizeof arrs / sizeof *arrs || !arrs[k - 1].at || arrs[k - 1].bytes != bytes) {
        *bad = 1;
        return NULL;
    }
    return arrs[k - 1].at;
}

static void note_array(void *p, uint64_t bytes)
{
    if (narrs < sizeof arrs / sizeof *arrs)
        arrs[narrs] = (array){p, bytes};
    narrs++;
}

static int malformed;

static const void *get_val(nl_w_cursor *c, size_t want)
{
    uint64_t len, aux;
    const unsigned char *p = nl_w_next(c, &len, &aux);
    if (!p || len != want)
        malformed = 1;
    return p;
}

/* An input or in-out array: a guarded copy (or the copy of the array it
 * aliases), or NULL. */
__attribute__((unused)) static void *get_arr(nl_w_cursor *c, uint64_t want)
{
    uint64_t len, aux;
    const unsigned char *p = nl_w_next(c, &len, &aux);
    if (c->bad || (p && len != want)) {
        malformed = 1;
        return NULL;
    }
    void *d = NULL;
    if (p && len) {
        d = alias_of(aux, len, &malformed);
        if (!d)
            d = guarded(len, aux);
        memcpy(d, p, (size_t)len);
    } else if (p) {
        d = guarded(0, aux);
    }
    note_array(d, p ? len : 0);
    return d;
}

__attribute__((unused)) static void *get_out(nl_w_cursor *c, uint64_t want)
{
    uint64_t len, aux;
    nl_w_next(c, &len, &aux);
    if (c->bad || (len != NL_W_NULL && len != 0)) {
        malformed = 1;
        return NULL;
    }
    void *d = NULL;
    if (len != NL_W_NULL) {
        /* An output over an input (y == x) starts as the input; else not
         * zeros: an output must be written. */
        d = want ? alias_of(aux, want, &malformed) : NULL;
        if (!d) {
            d = guarded(want, aux);
            memset(d, 0xa5, (size_t)want);
        }
    }
    note_array(d, d ? want : 0);
    return d;
}

__attribute__((unused)) static const char *const *get_strv(nl_w_cursor *c)
{
    uint64_t len, aux;
    const unsigned char *p = nl_w_next(c, &len, &aux);
    if (c->bad || (p && (len == 0 || p[len - 1] != '\0'))) {
        malformed = 1;
        return NULL;
    }
    if (!p)
        return NULL;
    size_t n = 0;
    for (uint64_t i = 0; i < len; i++)
        n += p[i] == '\0';
    const char **v = guarded((n + 1) * sizeof *v, 0);
    char *s = guarded(len, 0);
    memcpy(s, p, (size_t)len);
    for (size_t i = 0, at = 0; i < n; i++) {
        v[i] = s + at;
        at += strlen(s + at) + 1;
    }
    v[n] = NULL;
    return v;
}

__attribute__((unused)) static void put_err(nl_w_buf *a)
{
    char e[NL_W_ERRLEN];
    snprintf(e, sizeof e, "%s", nl_last_error());
    nl_w_put(a, e, strlen(e) + 1, 0);
}

/* Receive the arguments (by value first, then arrays), call, answer. */
#define NL_GET1_VAL(T, n, c) T n; { const void *p_ = get_val(c_, sizeof n); if (p_) memcpy(&n, p_, sizeof n); else memset(&n, 0, sizeof n); }
#define NL_GET1_IN(T, n, c)
#define NL_GET1_OUT(T, n, c)
#define NL_GET1_INOUT(T, n, c)
#define NL_GET1_JSON(T, n, c)
#define NL_GET1_STRV(T, n, c)
#define NL_GET1_ERR(T, n, c)
#define NL_GET1_(K, T, n, c) NL_GET1_##K(T, n, c)
#define NL_GET2_VAL(T, n, c)
#define NL_GET2_IN(T, n, c) const T *n = get_arr(c_, NL_BYTES(T, c));
#define NL_GET2_OUT(T, n, c) T *n = get_out(c_, NL_BYTES(T, c));
#define NL_GET2_INOUT(T, n, c) T *n = get_arr(c_, NL_BYTES(T, c));
#define NL_GET2_JSON(T, n, c)                                                        \
    cJSON *n##_tree_ = NULL;                                                         \
    {                                                                                \
        uint64_t l_, x_;                                                             \
        const unsigned char *t_ = nl_w_next(c_, &l_, &x_);                           \
        if (t_ && l_ > 0 && t_[l_ - 1] == '\0')                                      \
            n##_tree_ = cJSON_Parse((const char *)t_);                               \
        else if (t_ || c_->bad)                                                      \
            malformed = 1;                                                           \
    }                                                                                \
    const cJSON *n = n##_tree_;
#define NL_GET2_STRV(T, n, c) const char *const *n = get_strv(c_);
#define NL_GET2_ERR(T, n, c) nl_set_error("%s", "");
#define NL_GET2_(K, T, n, c) NL_GET2_##K(T, n, c)
#define NL_PUT_VAL(T, n, c)
#define NL_PUT_IN(T, n, c)
#define NL_PUT_OUT(T, n, c) nl_w_put(a_, n, n ? NL_BYTES(T, c) : NL_W_NULL, 0);
#define NL_PUT_INOUT(T, n, c) NL_PUT_OUT(T, n, c)
#define NL_PUT_JSON(T, n, c) cJSON_Delete(n##_tree_);
#define NL_PUT_STRV(T, n, c)
#define NL_PUT_ERR(T, n, c) put_err(a_);
#define NL_PUT_(K, T, n, c) NL_PUT_##K(T, n, c)

#define NL_SERVE_ARGS(name)                                                          \
    NL_ARGS_##name(NL_GET1_) NL_ARGS_##name(NL_GET2_)                                \
    if (malformed || c_->pos != c_->len)                                             \
        die("malformed request (the judge and this worker disagree on " #name ")");
#define NL_CALL(R, name)                                                             \
    R name(NL_PROTO(name));                                                          \
    static void serve_##name(nl_w_cursor *c_, nl_w_buf *a_)                          \
    {                                                                                \
        NL_SERVE_ARGS(name)                                                          \
        R ret_ = name(NL_ARGLIST(name));                                             \
        nl_w_put(a_, &ret_, sizeof ret_, 0);                                         \
        NL_ARGS_##name(NL_PUT_)                                                      \
    }
#define NL_CALL_VOID(name)                                                           \
    void name(NL_PROTO(name));                                                       \
    static void serve_##name(nl_w_cursor *c_, nl_w_buf *a_)                          \
    {                                                                                \
        NL_SERVE_ARGS(name)                                                          \
        name(NL_ARGLIST(name));                                                      \
        NL_ARGS_##name(NL_PUT_)                                                      \
    }
#include NL_CALLS_DEF
#undef NL_CALL
#undef NL_CALL_VOID

typedef void (*server)(nl_w_cursor *, nl_w_buf *);
#define NL_CALL(R, name) serve_##name,
#define NL_CALL_VOID(name) serve_##name,
static const server servers[] = {
#include NL_CALLS_DEF
};

/* SIGSYS from the filter: say which call, then die of it (a second
 * refused call while SIGSYS is blocked kills the process outright). */
static void report_refusal(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)ctx;
    nl_w_header h = {NL_W_SAYS, NL_W_REFUSED, (uint64_t)(unsigned)si->si_syscall};
    nl_w_write_all(NL_W_REP_FD, &h, sizeof h);
    syscall(SYS_getppid);
    _exit(126);
}

/* A function of the exercise's `forbid` list was called (stage.sh links
 * the worker with --wrap for each, and the wrapper calls this with its
 * place in the list): say which, and end.  Defence of the exercise's
 * point, not of the judge: whatever the worker sends, the test fails. */
void nl_w_forbidden(unsigned k) __attribute__((noreturn));
void nl_w_forbidden(unsigned k)
{
    nl_w_header h = {NL_W_SAYS, NL_W_FORBIDDEN, (uint64_t)k};
    nl_w_write_all(NL_W_REP_FD, &h, sizeof h);
    _exit(127);
}

/* cl_worker.c brings its own filter (PoCL compiles in the worker) and
 * includes this file with NL_WORKER_OWN_LOCK_DOWN defined. */
#ifndef NL_WORKER_OWN_LOCK_DOWN
static void lock_down(void)
{
    pid_t self = getpid();
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
    static const int plain[] = {
        NL_W_SECCOMP_BASE,
    };
    int ok = f != NULL;
    for (size_t i = 0; ok && i < sizeof plain / sizeof *plain; i++)
        ok = seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, nl_w_arg0(SCMP_CMP_EQ, NL_W_REQ_FD, 0)) == 0;
    for (int fd = 1; ok && fd <= NL_W_REP_FD; fd++)
        ok = fd == NL_W_REQ_FD ||
             seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)fd, 0)) == 0;
    /* abort() signals itself, and only itself */
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)self, 0)) == 0;
    /* glibc's own thread signals (32 and 33, SIGCANCEL and SIGSETXID:
     * the first pthread_create installs a handler for 33, as OpenMP's
     * pool does in exercise 13); no handler for SIGABRT or any other. */
    for (int sig = 32; ok && sig <= 33; sig++)
        ok = seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
                              nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)sig, 0)) == 0;
    /* Threads only (glibc falls back from clone3, whose flags a filter
     * cannot see, to clone): no new processes. */
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                                nl_w_arg0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)) == 0;
    if (!ok || seccomp_load(f) != 0)
        die("cannot install the seccomp filter");
    seccomp_release(f);
}
#endif

int main(void)
{
    /* stdio decides buffering with fstat at the first print: decide it
     * now, so a print needs nothing but write. */
    static char outbuf[1 << 14];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    setvbuf(stderr, NULL, _IONBF, 0);
    page = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = report_refusal;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    lock_down();
    static unsigned char *msg;
    static size_t cap;
    static nl_w_buf a;
    for (;;) {
        nl_w_header h;
        int r = nl_w_recv(NL_W_REQ_FD, &h, &msg, &cap, (uint64_t)1 << 36, -1);
        if (r == -1)
            _exit(0); /* the judge is done with us */
        if (r || h.magic != NL_W_ASK || h.what >= sizeof servers / sizeof *servers)
            die("malformed request");
        nl_w_cursor c = {msg + sizeof h, (size_t)h.len, 0, 0};
        malformed = 0;
        nmaps = narrs = 0;
        uint32_t threads = 1;
        const void *t = get_val(&c, sizeof threads);
        if (t)
            memcpy(&threads, t, sizeof threads);
        if (malformed || threads < 1 || threads > NL_W_MAX_THREADS)
            die("malformed request (its thread count)");
#ifdef _OPENMP
        omp_set_num_threads((int)threads);
#endif
        nl_w_begin(&a, NL_W_SAYS, NL_W_OK);
        servers[h.what](&c, &a);
        fflush(stdout);
        if (a.failed)
            die("out of memory for the answer");
        nl_w_seal(&a);
        if (nl_w_write_all(NL_W_REP_FD, a.p, a.len))
            _exit(0);
    }
}
