#!/usr/bin/env bash
# Variant: a worker that answers the first call right, then exits (0, as
# if done) and, in a second try, outwaits the judge.  Only calls answered
# count: the exercise is not full, and the feedback says the process exited
# or did not answer in time.  Without policy.sh (exit and nanosleep are
# not plain computation, policy.sh refuses them).
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
for tail in '_exit(0);' 'for (;;) { struct timespec t = {60, 0}; nanosleep(&t, NULL); }'; do
    sed '/^int nl_rmsnorm_fused/,/^{/!b; /^{/a\
    static int calls;\
    if (calls++ > 0) { '"$tail"' }' code/scalar/rmsnorm_fused.c | sed '1i #define _GNU_SOURCE\n#include <time.h>\n#include <unistd.h>' >"$T/sub/02-rmsnorm/rmsnorm_fused.c"
    GRADE_NO_POLICY=1 GRADE_WORKER_TIMEOUT=2 grade_real "$T/sub" 02
    expect '^02-rmsnorm .* (failing tests|crash in a test|timeout in a test)'
    reject '^02-rmsnorm .* 10/10 '
    case $tail in
    _exit*) expect 'the process running your code exited \(status 0\)' ;;
    *) expect 'did not answer within 2 s' ;;
    esac
done
