#!/usr/bin/env bash
# Exercise 14's operation runs in MPI ranks under mpirun, inside the
# sandbox, each rank under the seccomp filter of judge/mpi_worker.c from
# MPI_Init on; the suite (the judge) compares what rank 0 answers with its
# own fold of inputs drawn from the run's seed.  A hostile
# chan_op.c run as root and read solutions/.  Each of these scores 0,
# without policy.sh (no score may depend on it), and the feedback names
# what stopped it:
#   open     reads solutions/ and the host's /etc/passwd from the operation
#   fds      writes passing verdict lines to descriptors 3-20
#   exit     _exit(0) from inside the collective
#   forge    prints a made-up answer of the worker's format, then _exit(0)
#   ctor     a constructor (before MPI_Init, unfiltered) writes verdict lines
#            to descriptors 3-20 and reads solutions/: the ranks hold no
#            verdict descriptor, and the sandbox has no solutions/
. tests/grader/lib.sh
mkdir -p "$T/sub/14-chan-op"
body() {
    {
        cat <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((unused)) static void forge(void)
{
    printf("nlmpi-answer 2 64\n");
    for (int i = 0; i < 3 * 64; i++) printf("0x1p+0 0x0p+0 0x0p+0\n");
    printf("nlmpi-end\n");
    fflush(stdout);
}
C
        sed "s|/\\* TODO(14-chan-op): your code here; see exercises/14-chan-op/README.md \\*/|$1|" \
            exercises/14-chan-op/chan_op.c
        printf '%s\n' "$2"
    } >"$T/sub/14-chan-op/chan_op.c"
}
grep -q 'TODO(14-chan-op)' exercises/14-chan-op/chan_op.c || { echo "FAIL: the starter's TODO line moved"; exit 1; }
declare -A want=(
    [open]='system call the sandbox forbids \((open|openat)'
    [fds]='mpi_chan:judged_rank_order'
    [exit]='gave no complete answer'
    [forge]='mpi_chan:judged_'
    [ctor]='mpi_chan:judged_rank_order'
)
declare -A code=(
    [open]='{ int fd = open("solutions/14-chan-op.md", O_RDONLY); if (fd < 0) fd = open("/etc/passwd", O_RDONLY); (void)fd; }'
    [fds]='for (int fd = 3; fd <= 20; fd++) dprintf(fd, "T P judged:judged_rank_order:2 ok\\\\n");'
    [exit]='_exit(0);'
    [forge]='forge(); _exit(0);'
    [ctor]=''
)
ctor='__attribute__((constructor)) static void early(void) { for (int fd = 3; fd <= 20; fd++) dprintf(fd, "T P judged:judged_rank_order:2 ok\n"); int s = open("solutions/14-chan-op.md", O_RDONLY); if (s >= 0) { char b[4096]; ssize_t n = read(s, b, sizeof b); if (n > 0 && write(1, b, (size_t)n) < 0) _exit(1); } }'
for k in ${ONLY:-open fds exit forge ctor}; do
    extra=""; [ $k = ctor ] && extra=$ctor
    body "${code[$k]}" "$extra"
    attack_zero 14 14-chan-op "${want[$k]}"
    reject 'Why a loop over'   # no line of solutions/14-chan-op.md shown
    echo "ok: $k"
done
