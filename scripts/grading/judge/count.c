/* count.c — the judge counts what the worker executes (count.h says why).
 *
 * For the armed call the judge attaches to its worker (PTRACE_SEIZE: the
 * worker is the judge's own child), stops it where it waits for the
 * request, writes the request, and single-steps it until its answer can
 * be read, looking up each executed address in the driver's map of the
 * student's arithmetic instructions.  Then it lets go (PTRACE_DETACH) and
 * proxy.c reads the answer as for any call.  A signal the worker gets
 * meanwhile (its filter's SIGSYS, a crash) is handed on as the judge lets
 * go, so the worker dies as it would have and the proxy says why; an
 * exit is let through the same way (PTRACE_O_TRACEEXIT).  Threads the
 * student's code starts run untraced and uncounted: the test asks for
 * one thread.  A step costs a few microseconds; the counted calls are
 * small (06: 4096 and 8192 floats, about 0.1 s). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "count.h"
#include "wire.h"

typedef struct {
    unsigned long long at;
    char kind; /* 'P' packed, 'S' scalar */
} insn;

static insn *map;
static size_t nmap;
static nl_insn_mix *armed;

static int by_address(const void *a, const void *b)
{
    unsigned long long x = ((const insn *)a)->at, y = ((const insn *)b)->at;
    return x < y ? -1 : x > y;
}

static int load_map(char *why, size_t n)
{
    if (map)
        return 0;
    const char *path = getenv("NL_INSN_MAP");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    if (!f) {
        snprintf(why, n, "the grader wrote no map of the answer's instructions (NL_INSN_MAP%s%s)",
                 path ? ": " : " unset", path ? path : "");
        return -1;
    }
    size_t cap = 0;
    unsigned long long at;
    char kind;
    while (fscanf(f, "%llx %c", &at, &kind) == 2) {
        if (nmap == cap) {
            cap = cap ? 2 * cap : 256;
            insn *m = realloc(map, cap * sizeof *m);
            if (!m) {
                fclose(f);
                snprintf(why, n, "out of memory reading the instruction map");
                return -1;
            }
            map = m;
        }
        map[nmap++] = (insn){at, kind};
    }
    fclose(f);
    if (!map) /* an answer with no arithmetic at all: an empty map */
        map = malloc(sizeof *map);
    qsort(map, nmap, sizeof *map, by_address);
    return 0;
}

static char kind_at(unsigned long long pc)
{
    insn key = {pc, 0};
    const insn *hit = nmap ? bsearch(&key, map, nmap, sizeof *map, by_address) : NULL;
    return hit ? hit->kind : 0;
}

int nl_judge_count_next(nl_insn_mix *mix, char *why, size_t n)
{
    if (load_map(why, n))
        return -1;
    memset(mix, 0, sizeof *mix);
    armed = mix;
    return 0;
}

int nl_count_armed(void)
{
    return armed != NULL;
}

static int pc_of(pid_t pid, unsigned long long *pc)
{
    struct user_regs_struct r;
    struct iovec io = {&r, sizeof r};
    if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io))
        return -1;
#if defined(__x86_64__)
    *pc = r.rip;
#elif defined(__aarch64__)
    *pc = r.pc;
#else
#error "count.c knows the program counter of x86-64 and AArch64 only"
#endif
    return 0;
}

int nl_count_call(int worker, int req_fd, const void *req, size_t len, int rep_fd,
                  long long deadline_ms, char *why, size_t n)
{
    nl_insn_mix *mix = armed;
    armed = NULL;
    int st;
    if (ptrace(PTRACE_SEIZE, worker, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACEEXIT) ||
        ptrace(PTRACE_INTERRUPT, worker, 0, 0) || waitpid(worker, &st, __WALL) != worker ||
        !WIFSTOPPED(st)) {
        snprintf(why, n, "the judge cannot trace the worker to count its instructions: %s",
                 strerror(errno));
        return -1;
    }
    /* The whole request into the pipe while the worker stands still. */
    if (len > 65536)
        fcntl(req_fd, F_SETPIPE_SZ, (int)(len + 4096));
    if (nl_w_write_all(req_fd, req, len)) {
        ptrace(PTRACE_DETACH, worker, 0, 0);
        snprintf(why, n, "the request did not fit the worker's pipe (%zu bytes)", len);
        return -1;
    }
    struct pollfd answer = {rep_fd, POLLIN, 0};
    int sig = 0;
    for (unsigned long long k = 0;; k++) {
        /* Every step: one step more and the worker would be waiting in
         * read for the next request, where a step never ends. */
        if (poll(&answer, 1, 0) > 0)
            break;
        if ((k & 1023) == 0) {
            if (nl_w_now_ms() > deadline_ms) {
                ptrace(PTRACE_DETACH, worker, 0, 0);
                snprintf(why, n, "your code did not answer within the time limit while its "
                                 "instructions were counted (%llu executed): an endless loop?",
                         mix->steps);
                return -1;
            }
        }
        if (ptrace(PTRACE_SINGLESTEP, worker, 0, sig) || waitpid(worker, &st, __WALL) != worker) {
            snprintf(why, n, "the judge lost the worker while counting: %s", strerror(errno));
            return -1;
        }
        sig = 0;
        if (!WIFSTOPPED(st)) /* gone without an exit stop: proxy.c will say so */
            return 0;
        int s = WSTOPSIG(st), event = st >> 16;
        if (s == SIGTRAP && event == PTRACE_EVENT_EXIT)
            break;
        if (event == PTRACE_EVENT_STOP)
            continue;
        if (s != SIGTRAP) { /* the worker's own signal: let go with it */
            ptrace(PTRACE_DETACH, worker, 0, s);
            return 0;
        }
        unsigned long long pc;
        if (pc_of(worker, &pc) == 0) {
            char kind = kind_at(pc);
            mix->packed += kind == 'P';
            mix->scalar += kind == 'S';
        }
        mix->steps++;
    }
    ptrace(PTRACE_DETACH, worker, 0, 0);
    return 0;
}
