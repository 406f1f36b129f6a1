/* shapes.c — reading "ROWSxD" and "1,2,8".  A benchmark that silently ran
 * a different size than asked for would report numbers for the wrong
 * question, so everything odd is refused; the reason goes to
 * nl_last_error() and the caller names the option it came from. */
#include "core/sizes.h"
#include "bench/bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double nl_shape_bytes(nl_shape s)
{
    return 2.0 * (double)s.rows * (double)s.d * (double)sizeof(float);
}

/* One cache's size from sysfs ("48K", "2048K", "32M"), 0 when absent. */
static double sysfs_size(const char *dir, int index, const char *field, char *text, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/index%d/%s", dir, index, field);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1.0;
    int ok = fgets(text, (int)n, f) != NULL;
    fclose(f);
    if (!ok)
        return -1.0;
    text[strcspn(text, "\n")] = '\0';
    char *end;
    double v = strtod(text, &end);
    if (*end == 'K')
        v *= 1024.0;
    else if (*end == 'M')
        v *= 1024.0 * 1024.0;
    else if (*end == 'G')
        v *= 1024.0 * 1024.0 * 1024.0;
    return v;
}

static const char *cache_source = "";

/* The caches of the core the bench runs on, as its own sysfs entries
 * describe them (NORMLAB_CACHE_SYSFS names another folder laid out the
 * same, for tests). A VM's sysconf can report a host's whole L3 where the
 * core's entries say what it shares, so sysfs comes first; sysconf only
 * where sysfs says nothing. */
void nl_cache_sizes(double *l2, double *l3)
{
    const char *dir = getenv("NORMLAB_CACHE_SYSFS");
    if (!dir || !*dir)
        dir = "/sys/devices/system/cpu/cpu0/cache";
    *l2 = 0.0, *l3 = 0.0;
    int top = 0;
    for (int i = 0; i < 16; i++) {
        char level[32], type[32], size[64];
        if (sysfs_size(dir, i, "level", level, sizeof level) < 0 ||
            sysfs_size(dir, i, "type", type, sizeof type) < 0)
            continue;
        double bytes = sysfs_size(dir, i, "size", size, sizeof size);
        int lv = atoi(level);
        if (bytes <= 0 || !strcmp(type, "Instruction"))
            continue;
        if (lv == 2)
            *l2 = bytes;
        else if (lv >= 3 && lv >= top)
            *l3 = bytes, top = lv;
    }
    if (*l2 > 0 || *l3 > 0) {
        cache_source = "sysfs";
        return;
    }
    long c2 = sysconf(_SC_LEVEL2_CACHE_SIZE), c3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    *l2 = c2 > 0 ? (double)c2 : 0.0;
    *l3 = c3 > 0 ? (double)c3 : 0.0;
    cache_source = *l2 > 0 || *l3 > 0 ? "sysconf" : "";
}

const char *nl_cache_source(void)
{
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    return cache_source;
}

const char *nl_bytes_regime(double bytes, size_t threads)
{
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    if (threads == 0)
        threads = 1;
    if (l2 > 0 && bytes / (double)threads <= l2)
        return "L2";
    if (l3 > 0 && bytes <= l3)
        return "L3";
    return l3 > 0 || l2 > 0 ? "memory" : "";
}

const char *nl_shape_regime(nl_shape s, size_t threads)
{
    return nl_bytes_regime(nl_shape_bytes(s), threads);
}

int nl_parse_shape(const char *text, nl_shape *out)
{
    const char *x = text ? strpbrk(text, "xX") : NULL;
    if (!x) {
        nl_set_error("a shape is ROWSxD, e.g. 4096x4096");
        return 0;
    }
    char rows_text[64];
    size_t len = (size_t)(x - text);
    if (len >= sizeof rows_text) {
        nl_set_error("the shape's row count is too long");
        return 0;
    }
    memcpy(rows_text, text, len);
    rows_text[len] = '\0';
    nl_shape s;
    if (!nl_parse_size(rows_text, SIZE_MAX, &s.rows)) {
        nl_set_error("the shape's row count '%s' is not a positive whole number", rows_text);
        return 0;
    }
    if (!nl_parse_size(x + 1, SIZE_MAX, &s.d)) {
        nl_set_error("the shape's width d '%s' is not a positive whole number", x + 1);
        return 0;
    }
    /* Two buffers (x and y) of rows*d floats must fit in a size_t and in RAM. */
    if (!nl_check_shape(s.rows, s.d, 2))
        return 0;
    *out = s;
    return 1;
}

size_t nl_parse_count_list(const char *text, size_t max_value, size_t *out, size_t max)
{
    if (!text || !*text) {
        nl_set_error("expected a comma-separated list, got nothing");
        return 0;
    }
    size_t n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        if (len >= sizeof item) {
            nl_set_error("'%.*s' is too long", (int)len, p);
            return 0;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (n == max) {
            nl_set_error("at most %zu values", max);
            return 0;
        }
        if (!nl_parse_size(item, max_value, &out[n])) {
            if (!comma && p == text)
                return 0; /* one value: the caller names it already */
            char why[128];
            snprintf(why, sizeof why, "%s", nl_last_error());
            nl_set_error("'%s': %s", item, why);
            return 0;
        }
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}
