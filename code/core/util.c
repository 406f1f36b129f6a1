/* util.c — a clock and aligned memory, the two things every timing loop
 * and every kernel test needs, and nl_read_file, the one whole-file reader
 * (with a byte limit) that the config reader and the OpenCL kernel loader
 * share. */
#define _POSIX_C_SOURCE 200809L
#include "normlab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

float *nl_reused_floats(nl_reused *r, size_t floats)
{
    if (floats > r->floats) {
        nl_free(r->p);
        r->p = nl_alloc(floats * sizeof(float));
        r->floats = r->p ? floats : 0;
    }
    return r->p;
}

char *nl_read_file(const char *path, size_t limit, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        nl_set_error("%s: cannot open: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    /* Grow as it reads rather than ask the size first: a pipe has none.
     * At most limit + 1 bytes are read: one past the limit is enough to
     * know the file is too large. */
    size_t cap = limit < (1 << 16) ? limit + 1 : (1 << 16), n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > limit)
            break;
        size_t next = cap > limit / 2 ? limit + 1 : cap * 2;
        char *bigger = realloc(buf, next + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap = next;
    }
    int read_failed = ferror(f);
    fclose(f);
    int e = !buf ? ENOMEM : read_failed ? EIO : n > limit ? EFBIG : 0;
    if (e) {
        if (e == EFBIG)
            nl_set_error("%s: larger than %zu bytes", path, limit);
        else
            nl_set_error("%s: %s", path, e == ENOMEM ? "out of memory" : "read error");
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}
