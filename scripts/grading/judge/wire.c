/* wire.c — framing of wire.h's messages, linked into both the judge and
 * the worker (neither trusts the other's lengths: see nl_w_next). */
#define _POSIX_C_SOURCE 200809L
#include "wire.h"

#include <errno.h>
#include <stddef.h>
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

void nl_w_begin(nl_w_buf *b, uint32_t magic, uint32_t what)
{
    nl_w_header h = {magic, what, 0};
    b->len = 0;
    b->failed = 0;
    grow(b, sizeof h);
    if (!b->failed) {
        memcpy(b->p, &h, sizeof h);
        b->len = sizeof h;
    }
}

void nl_w_seal(nl_w_buf *b)
{
    if (b->failed || b->len < sizeof(nl_w_header))
        return;
    uint64_t n = b->len - sizeof(nl_w_header);
    memcpy(b->p + offsetof(nl_w_header, len), &n, sizeof n);
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

/* Wait for fd to be readable until the deadline (none when < 0). */
static int wait_readable(int fd, long long deadline_ms)
{
    if (deadline_ms < 0)
        return 0;
    for (;;) {
        long long left = deadline_ms - nl_w_now_ms();
        if (left <= 0)
            return -2;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, left > 1000000 ? 1000000 : (int)left);
        if (r > 0)
            return 0;
        if (r == 0)
            return -2;
        if (errno != EINTR)
            return -1;
    }
}

static int reserve(unsigned char **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    unsigned char *p = realloc(*buf, n);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

int nl_w_recv(int fd, nl_w_header *h, unsigned char **buf, size_t *cap, uint64_t most,
              long long deadline_ms)
{
    /* The first read asks for as much as the buffer holds: a small
     * message, written in one write, then arrives in one read. */
    size_t first = sizeof *h + (most < 65536 ? (size_t)most : 65536);
    if (reserve(buf, cap, first))
        return -1;
    size_t got = 0, need = sizeof *h;
    int known = 0;
    while (got < need || !known) {
        if (!known && got >= sizeof *h) {
            memcpy(h, *buf, sizeof *h);
            known = 1;
            if (h->magic == NL_W_SAYS && (h->what == NL_W_REFUSED || h->what == NL_W_FORBIDDEN)) {
                need = sizeof *h;
                break;
            }
            if (h->len > most)
                return -3;
            need = sizeof *h + (size_t)h->len;
            if (reserve(buf, cap, need))
                return -1;
            continue;
        }
        int w = wait_readable(fd, deadline_ms);
        if (w)
            return w;
        size_t room = known ? need - got : *cap - got;
        ssize_t k = read(fd, *buf + got, room);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return got > need ? -4 : 0;
}
