#!/usr/bin/env bash
# The judge keeps aliasing: an answer to 02 that clears its output row
# before reading the input is right out of place and wrong in place
# (y == x: the row is gone before its RMS is taken).  The worker once
# copied x and y apart, and this answer scored 10/10; now the call stays in
# place in the worker and the numerics suite's in-place test fails it.
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
sed '/@exercise 02-rmsnorm/,/@stub/{s|^\( *\)double sq = 0.0;|\1for (size_t i = 0; i < d; i++) yr[i] = 0.0f; /* clear the output first */\n\1double sq = 0.0;|}' \
    code/scalar/rmsnorm_fused.c >"$T/sub/02-rmsnorm/rmsnorm_fused.c"
grep -q 'clear the output first' "$T/sub/02-rmsnorm/rmsnorm_fused.c" || fail "the test's edit of rmsnorm_fused.c did not apply"
grade_real "$T/sub" 02
expect '^02-rmsnorm .* failing tests'
reject '^02-rmsnorm .* 10/10 '
expect 'in_place_equals_out_of_place'
expect 'in place \(y == x\)'
