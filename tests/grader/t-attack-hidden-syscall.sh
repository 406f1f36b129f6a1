#!/usr/bin/env bash
# Attack: a `syscall` hidden in the immediate of a mov
# (b8 0f 05 90 00: objdump shows `mov $0x90050f,%eax`) and a jump into it,
# for exit_group(0), then write(3) for the verdict.  policy.sh sees no
# system-call instruction; the worker's exit fails every call it leaves
# unanswered, and a write to 3 is refused by seccomp, named in the feedback.
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
for nr in 231 1; do
    cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<C
#include "normlab.h"
__asm__(".text\\n nl_hide: movl \$0x90050f, %eax\\n ret\\n");
int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    (void)x; (void)gamma; (void)beta; (void)eps; (void)rows; (void)d; (void)y;
    static const char line[] = "T P meanpres:rows_come_out_with_the_right_moments:0 ok\\n";
    __asm__ volatile("mov \$$nr, %%eax\\n mov \$3, %%edi\\n lea nl_hide+1(%%rip), %%rcx\\n call *%%rcx"
                     : : "S"(line), "d"(sizeof line - 1) : "rax", "rdi", "rcx", "r11", "memory");
    return 0;
}
C
    if [ $nr = 231 ]; then
        check() { zero 02-rmsnorm; expect 'the process running your code exited \(status 3\)'; }
    else
        check() { zero 02-rmsnorm; expect 'system call the sandbox forbids \(write, number 1\)'; }
    fi
    both_ways check "$T/sub" 02
done
