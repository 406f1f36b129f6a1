#!/usr/bin/env bash
# Grading never writes into the submission folder, even when it fails.
. tests/grader/lib.sh
solutions "$T/sub"
printf 'broken\n' >"$T/sub/98-fix-sum/fixsum.c"
before=$(cd "$T/sub" && find . -exec ls -ld --time-style=+%s.%N {} + | sort | cksum; find . -type f -exec cksum {} + | sort | cksum)
grade "$T/sub"
after=$(cd "$T/sub" && find . -exec ls -ld --time-style=+%s.%N {} + | sort | cksum; find . -type f -exec cksum {} + | sort | cksum)
[ "$before" = "$after" ] || fail "the submission folder changed while it was graded"
[ -f "$T/results/sub.json" ] || fail "no result file outside the submission"
