/* wire.c — framing of wire.h's messages, linked into both the judge and
 * the worker (neither trusts the other's lengths: see nl_w_next). */
#define _POSIX_C_SOURCE 200809L
#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void grow(nl_w_buf *b, size_t more)
{
    if (b->failed || b->len + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

void nl_w_put(nl_w_buf *b, const void *data, uint64_t len, uint64_t aux)
{
    size_t n = len == NL_W_NULL ? 0 : (size_t)len;
    nl_w_field f = {len, aux};
    grow(b, sizeof f + n);
    if (b->failed)
        return;
    memcpy(b->p + b->len, &f, sizeof f);
    if (n)
        memcpy(b->p + b->len + sizeof f, data, n);
    b->len += sizeof f + n;
}

const unsigned char *nl_w_next(nl_w_cursor *c, uint64_t *len, uint64_t *aux)
{
    nl_w_field f;
    *len = NL_W_NULL;
    *aux = 0;
    if (c->bad || c->len - c->pos < sizeof f) {
        c->bad = 1;
        return NULL;
    }
    memcpy(&f, c->p + c->pos, sizeof f);
    c->pos += sizeof f;
    if (f.len == NL_W_NULL) {
        *aux = f.aux;
        return NULL;
    }
    if (f.len > c->len - c->pos) {
        c->bad = 1;
        return NULL;
    }
    const unsigned char *p = c->p + c->pos;
    c->pos += (size_t)f.len;
    *len = f.len;
    *aux = f.aux;
    return p;
}

long long nl_w_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int nl_w_write_all(int fd, const void *p, size_t n)
{
    const unsigned char *q = p;
    while (n > 0) {
        ssize_t k = write(fd, q, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        q += k;
        n -= (size_t)k;
    }
    return 0;
}

int nl_w_read_all(int fd, void *p, size_t n, long long deadline_ms)
{
    unsigned char *q = p;
    while (n > 0) {
        if (deadline_ms >= 0) {
            long long left = deadline_ms - nl_w_now_ms();
            if (left <= 0)
                return -2;
            struct pollfd pf = {fd, POLLIN, 0};
            int r = poll(&pf, 1, left > 1000000 ? 1000000 : (int)left);
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0)
                return -2;
            if (r < 0)
                return -1;
        }
        ssize_t k = read(fd, q, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        q += k;
        n -= (size_t)k;
    }
    return 0;
}
