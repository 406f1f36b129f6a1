#!/usr/bin/env bash
# `make grade EX=14` said "no exercise 14" (issue 21, item 2), though its
# README says to use it.  Until the grader hosts mpirun, an exercise whose
# exercise.conf says `sandbox = no` is named, with the target that checks
# it; the lists of graded exercises (gradebook, Classroom steps) come from
# exercise_confs, so it joins them when its exercise.conf loses that line.
. tests/grader/lib.sh
grep -Eq '^sandbox *= *no' exercises/14-chan-op/exercise.conf || { echo "exercise 14 is graded now: nothing to check here"; exit 0; }
real_solution "$T/sub" 14-chan-op
grade_real "$T/sub" 14
[ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
reject 'no exercise 14'
expect 'exercise 14-chan-op is not scored by this grader yet.*make mpi-exercise'
echo "EX=14: named, with make mpi-exercise"
