#!/usr/bin/env bash
# Attack: print what Check prints for passing tests, and a summary, then
# return a wrong sum (or die).  What the student's code prints goes to the
# log, never to the verdict stream: it scores what it earns, 0.
. tests/grader/lib.sh
for ending in 'return 42;' 'abort();'; do
    fixsum <<C
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    (void)v; (void)n;
    for (int i = 0; i < 3; i++)
        printf("tests/grader/fixture/tests/check_fixsum.c:9:P:fixsum:sums_%s:0: Passed\\n",
               i == 0 ? "three" : i == 1 ? "negative" : "nothing");
    printf("suite fixsum: 3 passed, 0 failed, 0 skipped\\nEND 0\\n");
    fflush(stdout);
    $ending
}
C
    grade "$T/sub"
    expect '^98-fix-sum .* 0/10 '
    expect '^Score: 5/15$'
done
