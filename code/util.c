/* util.c — a clock and aligned memory, the two things every timing loop
 * and every kernel test needs. */
#define _POSIX_C_SOURCE 200809L
#include "normlab.h"

#include <stdlib.h>
#include <time.h>

double nl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *nl_alloc(size_t bytes)
{
    /* 64 bytes: one cache line, and the width of an AVX-512 register. */
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded < bytes)
        return NULL;
    return aligned_alloc(64, rounded ? rounded : 64);
}

void nl_free(void *p) { free(p); }
