#!/usr/bin/env bash
# Exercise 08: a kernel that answers nothing (the starter's "return v") and
# writes far below its local memory, over the host's heap and stacks, as a
# kernel trying to reach the judge's numbers would.  PoCL runs it in the
# OpenCL worker (judge/cl_worker.c), not in the suite's process: the
# worker dies, the judge says the code crashed, and the exercise scores 0.
. tests/grader/lib.sh
mkdir -p "$T/sub/08-cl-reduction"
cat >"$T/sub/08-cl-reduction/reduce.cl" <<'CL'
float team_sum(__local float *mine, uint lane, uint size, float v)
{
    __local float *p = mine;
    for (ulong i = 0; i < (1ul << 28); i++)
        *(p - i * 1024) = v;
    return v;
}
CL
GRADE_WORKER_TIMEOUT=20 grade_real "$T/sub" 08
expect '^08-cl-reduction .* 0/10 '
expect 'your code crashed|killed by signal'
