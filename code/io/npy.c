/* npy.c — NumPy's .npy format, read and written.
 *
 * A file is the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), the
 * length of a header (2 bytes in 1.0, 4 after), the header itself (a
 * Python dict literal: {'descr': '<f4', 'fortran_order': False,
 * 'shape': (3, 4), }) padded with spaces to a multiple of 64 bytes and
 * ended by a newline, then the raw data. We read only what a norm needs:
 * little-endian float32, float16 and 16-bit raw (bf16), C order. */
#include "io/io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HEADER_MAX = 1 << 16 };

static const struct { const char *descr; nl_elem elem; } descrs[] = {
    {"<f4", NL_ELEM_F32}, {"<f2", NL_ELEM_F16}, {"<u2", NL_ELEM_U16},
    {"|V2", NL_ELEM_U16}, {"<V2", NL_ELEM_U16},
};

/* ------------------------------------------------------ the header dict */

typedef struct {
    const char *p, *end, *path;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && isspace((unsigned char)*c->p))
        c->p++;
}

static int expect(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    nl_set_error("%s: malformed .npy header: expected '%c'", c->path, ch);
    return 0;
}

/* A quoted Python string ('...' or "...") without escapes into buf. */
static int parse_str(cursor *c, char *buf, size_t n)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) {
        nl_set_error("%s: malformed .npy header: expected a quoted string", c->path);
        return 0;
    }
    char q = *c->p++;
    size_t len = 0;
    while (c->p < c->end && *c->p != q) {
        if (len + 1 >= n) {
            nl_set_error("%s: malformed .npy header: a string is too long", c->path);
            return 0;
        }
        buf[len++] = *c->p++;
    }
    if (c->p >= c->end) {
        nl_set_error("%s: malformed .npy header: unterminated string", c->path);
        return 0;
    }
    c->p++;
    buf[len] = '\0';
    return 1;
}

static int parse_shape(cursor *c, nl_array *a)
{
    if (!expect(c, '('))
        return 0;
    a->ndim = 0;
    for (;;) {
        skip_space(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            return 1;
        }
        if (a->ndim == NL_ARRAY_MAXDIM) {
            nl_set_error("%s: more than %d dimensions", c->path, NL_ARRAY_MAXDIM);
            return 0;
        }
        char *stop;
        errno = 0;
        unsigned long long v = strtoull(c->p, &stop, 10);
        if (stop == c->p || errno || !isdigit((unsigned char)*c->p) || v > SIZE_MAX) {
            nl_set_error("%s: malformed .npy header: bad number in 'shape'", c->path);
            return 0;
        }
        c->p = stop;
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
            c->p++; /* Python 2 wrote longs as 4L; numpy still reads them */
        a->shape[a->ndim++] = (size_t)v;
        skip_space(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
    }
}

static int parse_header(const char *path, const char *h, size_t len, nl_array *a)
{
    cursor c = {h, h + len, path};
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32], descr[32];
    if (!expect(&c, '{'))
        return NL_EARG;
    for (;;) {
        skip_space(&c);
        if (c.p < c.end && *c.p == '}')
            break;
        if (!parse_str(&c, key, sizeof key) || !expect(&c, ':'))
            return NL_EARG;
        if (!strcmp(key, "descr")) {
            if (!parse_str(&c, descr, sizeof descr))
                return NL_EARG;
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            skip_space(&c);
            if (c.end - c.p >= 5 && !strncmp(c.p, "False", 5)) {
                c.p += 5;
            } else if (c.end - c.p >= 4 && !strncmp(c.p, "True", 4)) {
                nl_set_error("%s: Fortran (column-major) order is not supported: save "
                             "np.ascontiguousarray(x) instead", path);
                return NL_EARG;
            } else {
                nl_set_error("%s: malformed .npy header: fortran_order is not "
                             "True/False", path);
                return NL_EARG;
            }
            have_order = 1;
        } else if (!strcmp(key, "shape")) {
            if (!parse_shape(&c, a))
                return NL_EARG;
            have_shape = 1;
        } else {
            nl_set_error("%s: malformed .npy header: unknown key '%s'", path, key);
            return NL_EARG;
        }
        skip_space(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
    }
    if (!have_descr || !have_order || !have_shape) {
        nl_set_error("%s: malformed .npy header: missing '%s'", path,
                     !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
        return NL_EARG;
    }
    for (size_t i = 0; i < sizeof descrs / sizeof descrs[0]; i++)
        if (!strcmp(descr, descrs[i].descr)) {
            a->elem = descrs[i].elem;
            memcpy(a->descr, descrs[i].descr, strlen(descrs[i].descr) + 1);
            return NL_OK;
        }
    if (descr[0] == '>') {
        nl_set_error("%s: big-endian dtype '%s' is not supported: save "
                     "x.astype(x.dtype.newbyteorder('<')) instead", path, descr);
        return NL_EARG;
    }
    nl_set_error("%s: dtype '%s' is not supported: normlab reads float32 ('<f4'), float16 "
                 "('<f2') and bf16 as 16-bit raw ('<u2' or '|V2')", path, descr);
    return NL_EARG;
}

// @snippet npy-read
int nl_npy_read(const char *path, nl_array *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        nl_set_error("%s: cannot open: %s", path, strerror(errno));
        return NL_EARG;
    }
    unsigned char pre[12];
    size_t got = fread(pre, 1, sizeof pre, f);
    int rc = NL_EARG;
    char *header = NULL;
    if (got < 6 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        nl_set_error("%s: not a .npy file (it does not start with \\x93NUMPY)", path);
        goto done;
    }
    unsigned major = got > 6 ? pre[6] : 0;
    size_t hlen, start;
    if (got < 8 || (major != 1 && major != 2 && major != 3)) {
        if (got < 8)
            nl_set_error("%s: truncated: %zu bytes, not even a .npy version", path, got);
        else
            nl_set_error("%s: .npy format version %u.%u is not one this reader knows "
                         "(1, 2, 3)", path, major, pre[7]);
        goto done;
    }
    start = major == 1 ? 10 : 12;
    if (got < start) {
        nl_set_error("%s: truncated: %zu bytes, a version %u.0 .npy needs %zu before its "
                     "header", path, got, major, start);
        goto done;
    }
    if (major == 1)
        hlen = pre[8] | (size_t)pre[9] << 8;
    else
        hlen = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    if (hlen > HEADER_MAX) {
        nl_set_error("%s: .npy header of %zu bytes is implausibly long", path, hlen);
        goto done;
    }
    header = malloc(hlen + 1);
    if (!header) {
        nl_set_error("%s: no memory for the header", path);
        rc = NL_ENOMEM;
        goto done;
    }
    if (fseek(f, (long)start, SEEK_SET) != 0) {
        nl_set_error("%s: cannot seek (a pipe?): %s; save the array to a file", path,
                     strerror(errno));
        goto done;
    }
    if (fread(header, 1, hlen, f) != hlen) {
        nl_set_error("%s: truncated inside the .npy header", path);
        goto done;
    }
    header[hlen] = '\0';
    rc = parse_header(path, header, hlen, out);
    if (rc == NL_OK)
        rc = nl_io_read_data(f, path, (long)(start + hlen), out);
done:
    free(header);
    fclose(f);
    return rc;
}
// @end

/* ----------------------------------------------------------------- write */

static const char *descr_of(nl_elem e, int bf16_as_void)
{
    switch (e) {
    case NL_ELEM_F32: return "<f4";
    case NL_ELEM_F16: return "<f2";
    default: return bf16_as_void ? "|V2" : "<u2";
    }
}

int nl_npy_stage(const char *path, const nl_array *a, int bf16_as_void, char **staged)
{
    *staged = NULL;
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr_of(a->elem, bf16_as_void));
    for (size_t i = 0; i < a->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%zu,%s", a->shape[i],
                      i + 1 < a->ndim ? " " : "");
    if (a->ndim > 1)
        n--; /* NumPy writes (3, 4) but (3,) */
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* magic (6) + version (2) + length (2) + dict + padding + '\n' = k * 64 */
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    unsigned char head[1024];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    size_t hlen = padded - 10;
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8);
    memcpy(head + 10, dict, (size_t)n);
    memset(head + 10 + n, ' ', padded - total);
    head[padded - 1] = '\n';

    size_t bytes;
    int rc = nl_io_shape_count(path, a, &bytes);
    if (rc)
        return rc;
    const void *part[2] = {head, a->data};
    size_t len[2] = {padded, bytes};
    return nl_io_stage_file(path, part, len, 2, staged);
}

int nl_npy_commit(const char *path, char *staged, int force)
{
    return nl_io_commit_file(path, staged, force);
}

void nl_npy_discard(char *staged) { nl_io_discard_file(staged); }

int nl_npy_write(const char *path, const nl_array *a, int bf16_as_void, int force)
{
    char *staged;
    int rc = nl_output_check(path, force);
    if (rc == NL_OK)
        rc = nl_npy_stage(path, a, bf16_as_void, &staged);
    return rc == NL_OK ? nl_npy_commit(path, staged, force) : rc;
}
