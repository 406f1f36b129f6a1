#!/usr/bin/env bash
# Variants of the attacks above, each tried without policy.sh (and with
# it), on exercise 02: what the worker's seccomp filter and the judge's
# checks of every answer stop.  Each scores 0 and the feedback names it.
#   blind    writes passing lines to descriptors 3-20
#   abrt     a SIGABRT handler that swallows aborts
#   jump     longjmp back into a call that has already returned
#   fd4      its own bytes on the answer descriptor (a forged answer)
#   fork     starts a process to answer for it
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
body() {
    cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<C
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "normlab.h"
static void swallow(int s) { (void)s; }
static jmp_buf again;
int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    (void)x; (void)gamma; (void)beta; (void)eps; (void)rows; (void)d; (void)y; (void)swallow; (void)again;
    $1
    return 0;
}
C
}
declare -A want=(
    [blind]='system call the sandbox forbids \((write|newfstatat)'
    [abrt]='system call the sandbox forbids \(rt_sigaction'
    [jump]='rmsnorm_fused'
    [fd4]='(sent something that is not an answer|malformed answer)'
    [fork]='system call the sandbox forbids \((fork|clone|vfork)'
)
declare -A code=(
    [blind]='for (int fd = 3; fd <= 20; fd++) dprintf(fd, "T P meanpres:rows_come_out_with_the_right_moments:0 ok\n");'
    [abrt]='signal(SIGABRT, swallow); abort();'
    [jump]='static int n; if (n++ == 0) { if (setjmp(again)) return 0; return 1; } longjmp(again, 1);'
    [fd4]='write(4, "LAYSxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 36);'
    [fork]='if (fork() == 0) _exit(0);'
)
for k in blind abrt jump fd4 fork; do
    body "${code[$k]}"
    attack_zero 02 02-rmsnorm "${want[$k]}"
    grade_real "$T/sub" 02      # and with policy.sh
    zero 02-rmsnorm
    echo "ok: $k"
done
