#!/usr/bin/env bash
# Attack: exercise 02 answered by the library's own kernel,
# found without naming it: from one of its own statics the code scans
# memory for the word equal to its own function's address (the `fn` of a
# registry entry), steps to the next entry and calls that kernel.  In the
# worker there is no registry and no other kernel to find: 0 points.
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<'C'
#include <stdint.h>
#include "normlab.h"

typedef int (*kernel)(const float *, const float *, const float *, float, size_t, size_t, float *);
static int anchor = 1;

int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    const uintptr_t me = (uintptr_t)&nl_rmsnorm_fused;
    const uintptr_t *p = (const uintptr_t *)((uintptr_t)&anchor & ~(uintptr_t)4095);
    /* the pages around our own data: the registry sits in .data.rel.ro */
    for (size_t i = 0; i < 65536; i++) {
        const uintptr_t *q = p - 32768 + i;
        if (*q == me && q[6] > 4096 && q[6] != me)
            return ((kernel)q[6])(x, gamma, beta, eps, rows, d, y);
    }
    (void)anchor;
    return 0;
}
C
check() { zero 02-rmsnorm; }
both_ways check "$T/sub" 02
