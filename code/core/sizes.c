/* sizes.c — sizes from text, and shapes that must fit the machine.  A
 * program that silently ran a different size than asked for would answer
 * the wrong question, so everything odd is refused with a reason. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/sizes.h"
#include "normlab.h"

int nl_parse_size(const char *text, size_t max, size_t *out)
{
    char *end = NULL;
    errno = 0;
    /* strtoull accepts leading blanks and a sign ("-1" becomes 2^64-1):
     * only plain digits are a size. */
    if (!text || *text < '0' || *text > '9') {
        nl_set_error("not a positive whole number");
        return 0;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') {
        nl_set_error("not a positive whole number");
        return 0;
    }
    if (errno == ERANGE || v > max) {
        nl_set_error("too large (at most %zu)", max);
        return 0;
    }
    if (v == 0) {
        nl_set_error("must be at least 1");
        return 0;
    }
    *out = (size_t)v;
    return 1;
}

int nl_check_shape(size_t rows, size_t d, size_t buffers)
{
    /* Refuse before allocating: a shape whose buffers exceed the machine's
     * memory would either fail to allocate deep inside a run or, with
     * overcommit, be granted and then end in the OOM killer. */
    if (buffers == 0)
        buffers = 1;
    if (d > SIZE_MAX / sizeof(float) / buffers || rows > SIZE_MAX / sizeof(float) / buffers / d) {
        nl_set_error("rows x d = %zu x %zu floats overflow the address space", rows, d);
        return 0;
    }
    size_t bytes = rows * d * sizeof(float) * buffers;
    double have = nl_phys_memory();
    if (have > 0 && (double)bytes > have) {
        nl_set_error("rows x d = %zu x %zu needs %.1f GiB, more than this machine's "
                     "%.1f GiB of memory", rows, d, (double)bytes / (1u << 30), have / (1u << 30));
        return 0;
    }
    return 1;
}

double nl_phys_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}
