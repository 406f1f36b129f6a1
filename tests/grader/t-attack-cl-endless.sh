#!/usr/bin/env bash
# Exercise 08: a kernel that never ends.  The judge waits GRADE_WORKER_TIMEOUT
# seconds for the worker's answer (PoCL's compile included), then fails the
# test and says so; the exercise scores 0.
. tests/grader/lib.sh
mkdir -p "$T/sub/08-cl-reduction"
cat >"$T/sub/08-cl-reduction/reduce.cl" <<'CL'
float team_sum(__local float *mine, uint lane, uint size, float v)
{
    volatile __local float *p = mine;
    p[lane] = v;
    while (p[lane] == p[lane])
        p[lane] = p[lane];
    return v;
}
CL
GRADE_WORKER_TIMEOUT=8 grade_real "$T/sub" 08
expect '^08-cl-reduction .* 0/10 '
expect 'did not answer within 8 s|timeout'
