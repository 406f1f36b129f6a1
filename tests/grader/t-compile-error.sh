#!/usr/bin/env bash
# A file that does not compile scores 0 with the compiler's message shown,
# and the other exercise is still graded.
. tests/grader/lib.sh
solutions "$T/sub"
printf 'int nl_fixture_sum(const int *v, unsigned long n) { return v[0] +; }\n' >"$T/sub/98-fix-sum/fixsum.c"
grade "$T/sub"
expect '^98-fix-sum +0/0 +0/10 +compile error'
expect 'fixsum.c:1:.*error'
expect '^99-fix-max +2/2 +5/5 +ok'
expect '^Score: 5/15$'
