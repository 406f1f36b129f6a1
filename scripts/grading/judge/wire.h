/* wire.h — the one message format between the judge and the worker: the
 * trust boundary of the grader, in one place.
 *
 * The judge (a Check suite, the reference library and proxy.c) holds the
 * inputs, the expected answers, the comparisons and the verdict.  The
 * worker (worker.c plus the student's object, libc and what the exercise's
 * own code calls) holds nothing but the student's function.  For each call
 * of a graded function the judge's proxy writes one request on the
 * worker's descriptor 3 and reads one answer from its descriptor 4:
 *
 *   request  = header{ magic NL_W_ASK,  call id,        body length } body
 *   answer   = header{ magic NL_W_SAYS, NL_W_OK,        body length } body
 *            | header{ magic NL_W_SAYS, NL_W_REFUSED,   0 } (seccomp:
 *              the system call's number in the length field, sent by the
 *              worker's SIGSYS handler just before it dies)
 *            | header{ magic NL_W_SAYS, NL_W_FORBIDDEN, k } (the student's
 *              code called the k-th function of the exercise's `forbid`
 *              list, which the worker is linked to trap: a kernel the
 *              exercise replaces; the worker exits after sending it)
 *   body     = field*.  A request's first field is a u32, the number of
 *              OpenMP threads the judge's caller would run with
 *              (omp_get_max_threads: a test that sets 1, 2, 3, 4 and 8
 *              threads gets them in the worker, at most NL_W_MAX_THREADS);
 *              then, in the order calls.h gives (see there), the
 *              by-value arguments, then the arrays; the answer carries the
 *              return value, then every output array, then nl_last_error()
 *              where the description asks for it.
 *   field    = u64 length (NL_W_NULL: a NULL pointer), u64 aux, then the
 *              bytes.  For an array, aux's low 6 bits are the caller's
 *              address modulo 64 (the worker's copy gets the same
 *              alignment) and aux >> NL_W_ALIAS_SHIFT, when not 0, is
 *              1 + the index of an earlier array of the same call that
 *              the caller passed at the same address with the same length
 *              (y == x): the worker then passes one copy for both, so an
 *              in-place call stays in place.
 *
 * Each message goes in one write (header and body together) and is read
 * with as few reads as its size allows (nl_w_recv): a call costs one write
 * and one read on each side, plus the judge's poll for its deadline.  A
 * refusal is only a header (its length field is the call's number, not a
 * body's), and so is a forbidden call's.
 *
 * The judge reads an answer field by field and checks every length against
 * what the call must return: a worker that answers anything else (a
 * short, long or foreign message), exits, crashes, hangs or is killed fails
 * the test that made the call.  Nothing else the worker does (its prints,
 * its exit status) is read.  Integers are the machine's own: both ends are
 * built by the same compiler on the same machine. */
#ifndef NL_JUDGE_WIRE_H
#define NL_JUDGE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define NL_W_ASK 0x4b53414cu   /* "LASK" */
#define NL_W_SAYS 0x5359414cu  /* "LAYS" */
#define NL_W_OK 0u
#define NL_W_REFUSED 1u
#define NL_W_FORBIDDEN 2u
#define NL_W_NULL UINT64_MAX
#define NL_W_REQ_FD 3
#define NL_W_REP_FD 4
/* The longest error message an answer may carry (nl_last_error's buffer). */
#define NL_W_ERRLEN 512
#define NL_W_ALIAS_SHIFT 8
#define NL_W_MAX_THREADS 16

typedef struct {
    uint32_t magic, what; /* what: the call id (request) or NL_W_OK/REFUSED */
    uint64_t len;
} nl_w_header;

typedef struct {
    uint64_t len, aux;
} nl_w_field;

/* A growing message body. */
typedef struct {
    unsigned char *p;
    size_t len, cap;
    int failed; /* out of memory */
} nl_w_buf;

/* A body being read: pos moves on; bad is set at the first field that is
 * not what the reader expects, and every later read then gives nothing. */
typedef struct {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} nl_w_cursor;

/* Start a message: its header, whose length nl_w_seal fills in. */
void nl_w_begin(nl_w_buf *b, uint32_t magic, uint32_t what);
void nl_w_seal(nl_w_buf *b);
void nl_w_put(nl_w_buf *b, const void *data, uint64_t len, uint64_t aux);
/* The next field: its bytes (NULL for a NULL field) and length. */
const unsigned char *nl_w_next(nl_w_cursor *c, uint64_t *len, uint64_t *aux);
/* write/read exactly n bytes; 0 on success, -1 at end of file or error.
 * deadline_ms < 0: no limit (the worker), else a poll deadline (the judge). */
int nl_w_write_all(int fd, const void *p, size_t n);
/* One whole message into *buf (grown as needed; the body starts at
 * sizeof(nl_w_header)), its header in *h.  0: done; -1: end of file or
 * error; -2: the deadline passed; -3: the header announces more than
 * `most` bytes of body; -4: more bytes arrived than the message holds (a
 * peer that writes anything besides one message at a time).  A refusal's
 * header is a whole message. */
int nl_w_recv(int fd, nl_w_header *h, unsigned char **buf, size_t *cap, uint64_t most,
              long long deadline_ms);
long long nl_w_now_ms(void);

#ifdef SCMP_ACT_ALLOW
/* A condition on a system call's first argument, for both filters
 * (libseccomp's SCMP_A0 leaves a field unnamed, which clang warns of). */
static inline struct scmp_arg_cmp nl_w_arg0(enum scmp_compare op, scmp_datum_t a, scmp_datum_t b)
{
    struct scmp_arg_cmp c = {0, op, a, b};
    return c;
}

/* What every worker's filter allows without conditions (worker.c,
 * cl_worker.c, mpi_worker.c): memory (malloc, OpenMP's stacks), threads'
 * waits, time, randomness for the C library, signal masks and returns,
 * and the end.  Nothing here names a file, makes a descriptor or a
 * process; each worker adds what it needs beyond this, with its reason. */
#define NL_W_SECCOMP_BASE                                                                     \
    SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect),     \
        SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq),         \
        SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(getpid), SCMP_SYS(gettid), \
        SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),                \
        SCMP_SYS(getrandom), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(exit),  \
        SCMP_SYS(exit_group)
#endif

#endif
