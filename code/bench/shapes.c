/* shapes.c — reading "ROWSxD" and "1,2,8" from the command line.
 * A benchmark that silently ran a different size than asked for would
 * report numbers for the wrong question, so everything odd is refused. */
#include "core/args.h"
#include "bench/bench.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double nl_shape_bytes(nl_shape s)
{
    return 2.0 * (double)s.rows * (double)s.d * (double)sizeof(float);
}

int nl_parse_shape(const char *text, nl_shape *out)
{
    const char *x = text ? strpbrk(text, "xX") : NULL;
    if (!x) {
        fprintf(stderr, "normlab: a shape is ROWSxD, e.g. 4096x4096; got '%s'\n",
                text ? text : "");
        return 0;
    }
    char rows_text[64];
    size_t len = (size_t)(x - text);
    if (len >= sizeof rows_text) {
        fprintf(stderr, "normlab: shape '%s': the row count is too long\n", text);
        return 0;
    }
    memcpy(rows_text, text, len);
    rows_text[len] = '\0';
    nl_shape s;
    if (!nl_parse_size(rows_text, "the shape's row count", &s.rows) ||
        !nl_parse_size(x + 1, "the shape's width d", &s.d))
        return 0;
    /* Two buffers (x and y) of rows*d floats must fit in a size_t and in RAM. */
    if (s.rows > SIZE_MAX / s.d || s.rows * s.d > SIZE_MAX / (2 * sizeof(float))) {
        fprintf(stderr, "normlab: shape %zux%zu has more elements than this machine can address\n",
                s.rows, s.d);
        return 0;
    }
    double need = nl_shape_bytes(s), have = nl_phys_memory();
    if (have > 0 && need > have) {
        fprintf(stderr, "normlab: shape %zux%zu needs %.1f GiB (input and output), "
                "but this machine has %.1f GiB of memory\n",
                s.rows, s.d, need / 1073741824.0, have / 1073741824.0);
        return 0;
    }
    *out = s;
    return 1;
}

size_t nl_parse_count_list(const char *text, const char *what, size_t *out, size_t max)
{
    if (!text || !*text) {
        fprintf(stderr, "normlab: %s: expected a comma-separated list, got nothing\n", what);
        return 0;
    }
    size_t n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        if (len >= sizeof item) {
            fprintf(stderr, "normlab: %s: '%.*s' is too long\n", what, (int)len, p);
            return 0;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (n == max) {
            fprintf(stderr, "normlab: %s: at most %zu values\n", what, max);
            return 0;
        }
        if (!nl_parse_size(item, what, &out[n]))
            return 0;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}
