#!/usr/bin/env bash
# A crash is caught and reported: inside one test (Check runs each test in
# its own process) and of a whole suite (CK_FORK=no: no process per test).
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
expect 'Received signal 11'
CK_FORK=no grade "$T/sub"
expect '^98-fix-sum .* 0/10 +crash$'
expect 'died of signal 11'
expect '^99-fix-max .* ok$'
expect '^Score: 5/15$'
