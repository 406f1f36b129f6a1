#!/usr/bin/env bash
# Exercise 08, the host side: PoCL accepts inline assembly in a kernel and
# runs it as native code in the process that launched it, so a kernel can
# make any system call.  It runs in the OpenCL worker (judge/cl_worker.c),
# whose seccomp filter refuses what could reach the judge: a socket,
# ptrace of the judge (the worker's parent), kill, and writing another
# process's memory.  Each variant is refused by name and scores 0.
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the kernels here are x86-64 assembly"; exit 0; }
. tests/grader/lib.sh
mkdir -p "$T/sub/08-cl-reduction"
# "NUMBER ARG0 NAME": ARG0 -1 stands for the worker's parent (getppid, 110).
for call in "41 2 socket" "101 -1 ptrace" "62 -1 kill" "311 -1 process_vm_writev"; do
    set -- $call
    cat >"$T/sub/08-cl-reduction/reduce.cl" <<CL
float team_sum(__local float *mine, uint lane, uint size, float v)
{
    long a0 = $2, ret;
    if (a0 < 0)
        __asm__ volatile("syscall" : "=a"(a0) : "a"(110L) : "rcx", "r11", "memory");
    __asm__ volatile("syscall" : "=a"(ret) : "a"($1L), "D"(a0), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
    return v + (float)ret * 0.0f;
}
CL
    grade_real "$T/sub" 08
    expect '^08-cl-reduction .* 0/10 '
    expect "system call the sandbox forbids \\($3, number $1\\)"
    # The reason fits this worker, where PoCL may use files.
    expect 'open sockets or change namespaces'
    reject 'does not open files'
done
echo "08: socket, ptrace, kill and process_vm_writev from a kernel are refused by name, with a reason that fits"
