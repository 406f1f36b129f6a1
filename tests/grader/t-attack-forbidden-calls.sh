#!/usr/bin/env bash
# Attack: code that reaches outside the computation: files (rewrite another
# student's results, append to a test), processes (setsid sleep, a fork
# bomb, killing the runner), descriptors, exit, constructors that run in
# the runner, a global that replaces a library function, raw system calls.
# Each is refused before the code runs, with a message that names it.
. tests/grader/lib.sh
try() {   # try WHAT BODY [TOP]: a fixsum whose body is BODY
    fixsum <<C
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <stddef.h>
${3:-}
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    int s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    $2
    return s;
}
C
    grade "$T/sub"
    echo "--- $1" >>"$T/out.txt"
    expect '^98-fix-sum .* 0/10 +not allowed'
    expect "$1"
}
try 'fopen' 'FILE *f = fopen("build/grade/bob.json", "w"); if (f) fclose(f);'
try 'remove' 'remove("tests/check_welford.c");'
try 'system' 'if (system("setsid sleep 600 &")) s++;'
try 'fork' 'while (fork() >= 0) {}'
try 'kill' 'kill(getppid(), 9);'
try 'write' 'if (write(3, "END 0\n", 6)) s++;'
try '_exit' '_exit(0);'
try 'constructors' '' 'static volatile int hit; __attribute__((constructor)) static void early(void) { hit = 1; }'
try 'as global' '' 'int srunner_ntests_failed(void *sr); int srunner_ntests_failed(void *sr) { (void)sr; return 0; }'
[ "$(uname -m)" = x86_64 ] && try 'system calls directly' '__asm__ volatile("syscall" ::: "rax", "rcx", "r11", "memory");'
