#!/usr/bin/env bash
# A test that prints without end is cut off (1 MB) and reported, not left
# to fill the disk; the other exercise is still graded.
. tests/grader/lib.sh
solutions "$T/sub"
cat >"$T/sub/98-fix-sum/fixsum.c" <<'C'
#include <stddef.h>
#include <stdio.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    for (;;)
        printf("debugging output %d %zu\n", v[0], n);
}
C
grade "$T/sub"
expect '^98-fix-sum .* 0/10 +output limit$'
expect 'printed more than 1 MB'
expect '^99-fix-max .* ok$'
expect '^Score: 5/15$'
