#!/usr/bin/env bash
# A half-right answer gets half the points of the tests with teeth: here
# it sums positives only, passing "1, 2, 3" but not "5, -2".
. tests/grader/lib.sh
solutions "$T/sub"
cat >"$T/sub/98-fix-sum/fixsum.c" <<'C'
#include <stddef.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    int s = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0)
            s += v[i];
    return s;
}
C
grade "$T/sub"
expect '^98-fix-sum +2/3 +5/10 +failing tests'
expect 'sums_negative: sum of 5, -2: expected 3, got 5'
expect '^Score: 10/15$'
