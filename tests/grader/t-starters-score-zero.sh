#!/usr/bin/env bash
# Untouched starters compile and score 0: the tests have teeth.
. tests/grader/lib.sh
starters "$T/sub"; grade "$T/sub"
expect '^Score: 0/15$'
expect '^98-fix-sum +1/3 +0/10'   # the empty-row test needs no code: no points
