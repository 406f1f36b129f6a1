#!/usr/bin/env bash
# Exercise 08, the host side: a kernel that tries to read files the host
# holds (the real kernel from the code tree, the account file) through the
# OpenCL compiler's #include, and one that reaches the judge's process
# through /proc (its memory and descriptors are not the worker's: the test
# process is not dumpable and the worker's environment has no seed).
# Neither file is in the sandbox, so neither compiles into a right answer:
# 0 points, and the account file's lines never reach the feedback.
. tests/grader/lib.sh
mkdir -p "$T/sub/08-cl-reduction"
for inc in '"code/opencl/kernels/reduce.cl"' '"/etc/shadow"'; do
    cat >"$T/sub/08-cl-reduction/reduce.cl" <<CL
#include $inc
CL
    grade_real "$T/sub" 08
    expect '^08-cl-reduction .* 0/10 '
    reject '^root:'
done
