#!/usr/bin/env bash
# Attack: `.incbin "/etc/passwd"` prints the host's account
# file into the student's feedback.  The sandbox binds only the entries of
# /etc that compiling and running need: the file is not there, the compile
# fails, and nothing of the host's accounts reaches the report.
. tests/grader/lib.sh
[ -r /etc/passwd ] || { echo "skip: this machine has no /etc/passwd to leak"; exit 0; }
mkdir -p "$T/sub/02-rmsnorm"
cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<'C'
#include <stdio.h>
#include "normlab.h"
__asm__(".section .rodata\n nl_pw: .incbin \"/etc/passwd\"\n .byte 0\n .previous");
extern const char nl_pw[];
int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    (void)x; (void)gamma; (void)beta; (void)eps; (void)rows; (void)d; (void)y;
    puts(nl_pw);
    return 0;
}
C
first=$(head -n 1 /etc/passwd)
check() {
    zero 02-rmsnorm
    expect 'compile error'
    ! grep -qF -- "$first" "$T/out.txt" || fail "the host's /etc/passwd reached the feedback"
}
both_ways check "$T/sub" 02
