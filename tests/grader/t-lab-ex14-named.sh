#!/usr/bin/env bash
# `make grade EX=14` said "no exercise 14", then named
# `make mpi-exercise` while mpirun could not run in the sandbox.  Now the
# judge hosts it (judge/mpi_worker.c, check_mpi_chan's judged tests): the
# real chan_op.c scores full, and the merge with its operands swapped,
# nl_chan_merge(upper, lower), as accurate as the right one, loses points
# with a first feedback line that names the rank order.
. tests/grader/lib.sh
real_solution "$T/sub" 14-chan-op
grade_real "$T/sub" 14
[ "$rc" -eq 0 ] || fail "the real chan_op.c: exit $rc, expected 0 (full marks)"
expect '^14-chan-op .* 10/10 +ok'
reject 'not scored by this grader'
sed -i 's/upper\[i\] = nl_chan_merge(lower\[i\], upper\[i\]);/upper[i] = nl_chan_merge(upper[i], lower[i]);/' "$T/sub/14-chan-op/chan_op.c"
grep -q 'nl_chan_merge(upper\[i\], lower\[i\])' "$T/sub/14-chan-op/chan_op.c" || fail "could not swap the merge's operands"
grade_real "$T/sub" 14
[ "$rc" -eq 1 ] || fail "the swapped merge: exit $rc, expected 1 (below full)"
expect '^14-chan-op .* [1-9][0-9.]*/10 +failing tests'
first=$(grep -m1 '^  mpi_chan:' "$T/out.txt")
case $first in *judged_rank_order*"rank order"*) ;; *) fail "first feedback line does not name the rank order: $first" ;; esac
echo "EX=14: real 10/10; swapped operands lose points, first line: judged_rank_order"
