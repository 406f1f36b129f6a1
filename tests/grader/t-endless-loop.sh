#!/usr/bin/env bash
# An endless loop is stopped and reported, twice: by Check's per-test limit,
# and by the grader's own limit on the whole suite.
. tests/grader/lib.sh
solutions "$T/sub"
cat >"$T/sub/98-fix-sum/fixsum.c" <<'C'
#include <stddef.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    volatile int spin = 1;
    while (spin)
        (void)v;
    return (int)n;
}
C
CK_DEFAULT_TIMEOUT=1 grade "$T/sub"
expect '^98-fix-sum +0/3 +0/10 +timeout in a test'
expect '^99-fix-max .* ok$'
CK_DEFAULT_TIMEOUT=60 GRADE_TIMEOUT=2 grade "$T/sub"
expect '^98-fix-sum .* 0/10 +timeout$'
expect 'ran past 2 s'
expect '^Score: 5/15$'
