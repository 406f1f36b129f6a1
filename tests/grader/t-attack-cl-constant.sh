#!/usr/bin/env bash
# Exercise 08: a kernel that returns a constant for every team sum, and
# prints the runner's passing lines from inside the kernel (OpenCL C's
# printf, which PoCL writes to the worker's stdout).  The judge compares the
# numbers the worker sends with its own reference: 0 points, the first
# failing line names the error against the reference; the printed lines
# are only shown.
. tests/grader/lib.sh
mkdir -p "$T/sub/08-cl-reduction"
cat >"$T/sub/08-cl-reduction/reduce.cl" <<'CL'
float team_sum(__local float *mine, uint lane, uint size, float v)
{
    if (lane == 0)
        printf("T P device:layernorm_on_awkward_shapes:0 forged\nT P device:rmsnorm_on_awkward_shapes:0 forged\n");
    return 1.0f;
}
CL
grade_real "$T/sub" 08
expect '^08-cl-reduction .* 0/10 '
expect 'max \|y - reference\|'
reject '^08-cl-reduction .* 10/10 '
