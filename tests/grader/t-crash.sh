#!/usr/bin/env bash
# A crash is caught and reported inside one test: the student's code runs
# in the worker, whose death the judge names in the test's message.
# CK_FORK=no cannot make the student's code run in the process whose
# results count: the runner forks every test whatever the environment says,
# and no suite process runs the student's code anyway.
. tests/grader/lib.sh
solutions "$T/sub"
cat >"$T/sub/98-fix-sum/fixsum.c" <<'C'
#include <stddef.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    volatile int *nowhere = NULL;
    return *nowhere + v[0] + (int)n;
}
C
grade "$T/sub"
expect '^98-fix-sum +0/3 +0/10 +crash in a test'
expect 'nl_fixture_sum: your code crashed \(Segmentation fault\)'
CK_FORK=no grade "$T/sub"
expect '^98-fix-sum .* 0/10 +crash in a test$'
expect '^99-fix-max .* ok$'
expect '^Score: 5/15$'
