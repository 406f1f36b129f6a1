#!/usr/bin/env bash
# Attack: code in the .init section (not .init_array) runs
# before main, in whatever process holds the student's object; it writes
# passing lines of the suite's tests to descriptors 3-20, where the verdict
# once was.  policy.sh refuses the section; without it, the code runs in
# the worker before its first call, under the first seccomp filter, and is
# killed at its first write to 3: 0 points either way.
. tests/grader/lib.sh
mkdir -p "$T/sub/09-bf16-round"
{ cat exercises/09-bf16-round/bf16.c; cat <<'C'
#include <stdio.h>
void nl_zz_forge(void);
void nl_zz_forge(void)
{
    for (int fd = 3; fd <= 20; fd++) {
        char line[] = "T P half_convert:every_bf16_survives_a_round_trip:0 ok\nEND 1\n";
        FILE *f = stdout;
        (void)f;
        __asm__ volatile("mov $1, %%eax\n syscall" : : "D"(fd), "S"(line), "d"(sizeof line - 1)
                         : "rax", "rcx", "r11", "memory");
    }
}
__asm__(".section .init,\"ax\",@progbits\n call nl_zz_forge\n .previous");
C
} >"$T/sub/09-bf16-round/bf16.c"
check() {
    zero 09-bf16-round
    if [ -n "$1" ]; then
        expect 'system call the sandbox forbids before the judge.s first call'
    else
        expect 'not allowed'
    fi
}
both_ways check "$T/sub" 09
