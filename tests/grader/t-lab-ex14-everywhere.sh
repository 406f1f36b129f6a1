#!/usr/bin/env bash
# Exercise 14 is scored wherever the others are: a lab
# of it (make handout LAB=13,14) has a Classroom step for it with its
# points, its sheet lists it, the handout's grader stages its MPI worker,
# and the handout's
# `make mpi-exercise` is its grade in the sandbox, never a run of the
# instructor's tree.
. tests/grader/lib.sh
LAB=13,14 scripts/grading/exercises-handout.sh "$T/h.tar.gz" >"$T/out.txt" 2>&1 || fail "exercises-handout.sh failed"
mkdir -p "$T/x" && tar -xzf "$T/h.tar.gz" -C "$T/x"
h=$T/x/normlab
grep -q -- '- name: 14-chan-op (10 points)' "$h/.github/workflows/classroom.yml" || fail "no Classroom step for 14"
grep -q 'grade-only EX=14 ' "$h/.github/workflows/classroom.yml" || fail "the Classroom step does not grade EX=14"
grep -q 'runners: ex13,ex14$' "$h/.github/workflows/classroom.yml" || fail "the reporter does not count ex14"
grep -q '^## 14-chan-op' "$h/lab.md" || fail "the lab's sheet does not list 14"
[ -f "$h/scripts/grading/judge/mpi_worker.c" ] || fail "the handout's grader has no MPI worker"
! grep -q 'upper\[i\] = nl_chan_merge(lower\[i\], upper\[i\])' "$h/code/mpi/chan_op.c" "$h/exercises/14-chan-op/chan_op.c" ||
    fail "exercise 14's answer is in the handout"
(cd "$h" && make -n mpi-exercise 2>&1) >"$T/out.txt"
expect 'grade EX=14'
reject 'mpi-exercise/normlab-mpi|check_mpi_chan$'
echo "a lab of 13 and 14: its Classroom step, sheet and MPI worker; mpi-exercise is make grade EX=14"
