/* mpi_worker.c — the worker of exercise 14: one MPI rank holding the
 * student's chan_op.c, started P times by mpirun, which the judge (the
 * check_mpi_chan suite) runs with its own pipes for stdin and stdout.
 *
 * The judge holds the inputs (drawn from the run's seed, which mpirun and
 * the ranks never see: the judge removes it from their environment), the
 * reference and the verdict; the ranks hold only the student's operation,
 * this file, libc, libseccomp, Open MPI and the library's nl_chan_merge.
 * Messages are text, because Open MPI forwards a rank's stdout through a
 * pseudo-terminal (it may turn "\n" into "\r\n"); doubles are written
 * with %a, so they travel exactly:
 *
 *   request (the judge to rank 0's stdin)
 *     "nlmpi P L\n", then P x L lines "N MEAN M2\n": rank k's L summaries
 *   answer (rank 0's stdout)
 *     "nlmpi-answer P L\n"
 *     P x L lines: what MPI_Allreduce with the operation left on rank k
 *     L lines: rank 0's fold of the P parts in rank order with
 *              MPI_Reduce_local, ((s0 . s1) . s2) . s3 (rank_order.c)
 *     "nlmpi-end\n"
 *
 * Every rank installs a seccomp filter right after MPI_Init, on all its
 * threads (Open MPI's progress threads included: an unfiltered thread
 * would run whatever the student's code writes into its data), before the
 * student's code first runs from main.  What it allows is what Open MPI's
 * shared-memory collectives and MPI_Finalize were seen to call under
 * strace (the list below); the single-copy transport (process_vm_readv,
 * CMA) is switched off by the judge, so that call is refused too.  Opening
 * files, sockets, exec, fork and signalling others are refused: the rank
 * dies of SIGSYS, and mpirun's exit and the missing answer fail the test.
 * Nothing a rank prints or returns decides a point: the judge compares the
 * numbers it reads with its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpi/mpinorm.h"
#include "wire.h"   /* NL_W_SECCOMP_BASE */

#define MAX_P 16
#define MAX_L 4096

static void fail(const char *why)
{
    fprintf(stderr, "mpi worker: %s\n", why);
    MPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

/* SIGSYS from the filter: name the call on stderr (the judge shows it),
 * then die of it. */
__attribute__((unused)) static void report_refusal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    char msg[128];
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, si->si_syscall);
    int n = snprintf(msg, sizeof msg, "mpi worker: a rank made a system call the sandbox forbids (%s, number %d)\n",
                     name ? name : "?", si->si_syscall);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        n = 0;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void lock_down(void)
{
#ifndef NL_MPI_NO_FILTER
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = report_refusal;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, NULL);
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
    /* Memory, time, threads' waits, and I/O on descriptors the rank holds
     * already (its pipes to mpirun's daemon, Open MPI's sockets and shared
     * memory): nothing that names a file, makes a descriptor or a process. */
    static const int allowed[] = {
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
        SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(sendto),
        SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(epoll_wait), SCMP_SYS(epoll_pwait),
        SCMP_SYS(epoll_ctl), SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(close),
        SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(lseek), SCMP_SYS(fcntl),
        NL_W_SECCOMP_BASE,
        SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
        SCMP_SYS(getegid), SCMP_SYS(gettimeofday), SCMP_SYS(rt_sigaction),
        SCMP_SYS(restart_syscall), SCMP_SYS(shutdown), SCMP_SYS(uname),
        /* MPI_Finalize removes the shared-memory segment and the session
         * folder it made under /tmp: names in the sandbox's private tmpfs
         * mounts, which nothing else uses and no point depends on. */
        SCMP_SYS(unlink), SCMP_SYS(rmdir), SCMP_SYS(getdents64),
    };
    int ok = 1;
    for (size_t i = 0; ok && i < sizeof allowed / sizeof allowed[0]; i++)
        ok = seccomp_rule_add(f, SCMP_ACT_ALLOW, allowed[i], 0) == 0;
    /* Signals to itself only (abort, and Open MPI's own error path). */
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                                (struct scmp_arg_cmp){0, SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0}) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
                                (struct scmp_arg_cmp){0, SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0}) == 0;
    /* ... and to list a folder: openat read-only of a directory, never a
     * file, never a new name. */
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
                                (struct scmp_arg_cmp){2, SCMP_CMP_MASKED_EQ,
                                                      O_ACCMODE | O_DIRECTORY | O_CREAT | O_TRUNC | O_PATH,
                                                      O_RDONLY | O_DIRECTORY}) == 0;
    ok = ok && seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1) == 0;
    if (!ok || seccomp_load(f) != 0)
        fail("cannot install the seccomp filter");
    seccomp_release(f);
#else
    /* A mark for strace: the calls after it are what the filter must allow. */
    syscall(SYS_sysinfo, NULL);
#endif
}

/* One line of three doubles (a trailing "\r" from a terminal is fine). */
static int read_moments(nl_moments *m)
{
    return scanf("%la %la %la", &m->n, &m->mean, &m->m2) == 3;
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 3;
    lock_down();
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks > MAX_P)
        fail("too many ranks");

    int shape[2] = {0, 0};
    nl_moments *all = NULL;
    if (rank == 0) {
        if (scanf(" nlmpi %d %d", &shape[0], &shape[1]) != 2 || shape[0] != ranks || shape[1] < 1 ||
            shape[1] > MAX_L)
            fail("malformed request (want \"nlmpi P L\" with P the number of ranks)");
        all = calloc((size_t)ranks * (size_t)shape[1], sizeof *all);
        if (!all)
            fail("out of memory");
        for (size_t i = 0; i < (size_t)ranks * (size_t)shape[1]; i++)
            if (!read_moments(&all[i]))
                fail("malformed request (a summary line)");
    }
    MPI_Bcast(shape, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int len = shape[1];
    nl_moments *mine = calloc((size_t)len, sizeof *mine);
    nl_moments *got = calloc((size_t)ranks * (size_t)len, sizeof *got);
    if (!mine || !got)
        fail("out of memory");
    /* Plain doubles move the inputs and the results: only the collective
     * with the student's operation runs the student's code. */
    MPI_Scatter(all, 3 * len, MPI_DOUBLE, mine, 3 * len, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    MPI_Datatype type;
    MPI_Op op;
    if (nl_mpi_chan_type(&type, &op) != MPI_SUCCESS)
        fail("nl_mpi_chan_type did not return MPI_SUCCESS");
    if (MPI_Allreduce(MPI_IN_PLACE, mine, len, type, op, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allreduce with the operation failed");
    MPI_Gather(mine, 3 * len, MPI_DOUBLE, got, 3 * len, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        for (int k = 1; k < ranks; k++)
            if (MPI_Reduce_local(all + (size_t)(k - 1) * (size_t)len, all + (size_t)k * (size_t)len, len, type,
                                 op) != MPI_SUCCESS)
                fail("MPI_Reduce_local with the operation failed");
        printf("nlmpi-answer %d %d\n", ranks, len);
        for (size_t i = 0; i < (size_t)ranks * (size_t)len; i++)
            printf("%a %a %a\n", got[i].n, got[i].mean, got[i].m2);
        const nl_moments *fold = all + (size_t)(ranks - 1) * (size_t)len;
        for (int i = 0; i < len; i++)
            printf("%a %a %a\n", fold[i].n, fold[i].mean, fold[i].m2);
        printf("nlmpi-end\n");
        fflush(stdout);
    }
    nl_mpi_chan_free();
    free(all), free(mine), free(got);
    MPI_Finalize();
    return 0;
}
