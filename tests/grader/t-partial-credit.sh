#!/usr/bin/env bash
# A half-right answer gets half the points of the tests with teeth: here
# it sums positives only, passing "1, 2, 3" but not "5, -2".
. tests/grader/lib.sh
positives_only
grade "$T/sub"
expect '^98-fix-sum +2/3 +5/10 +failing tests'
expect 'sums_negative: sum of 5, -2: expected 3, got 5'
expect '^Score: 10/15$'
