/* args.c — argument parsing shared by the subcommands, so that every
 * command refuses bad input the same way: a message on stderr that names
 * the option, and exit code 2 (a usage error, as in getopt-based tools). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/args.h"

int nl_parse_size(const char *text, const char *what, size_t *out)
{
    return nl_parse_size_max(text, what, SIZE_MAX, out);
}

int nl_parse_size_max(const char *text, const char *what, size_t max, size_t *out)
{
    char *end = NULL;
    errno = 0;
    /* strtoull accepts leading blanks and a sign ("-1" becomes 2^64-1):
     * only plain digits are a size. */
    if (!text || *text < '0' || *text > '9') {
        fprintf(stderr, "normlab: %s must be a positive whole number, got '%s'\n",
                what, text ? text : "");
        return 0;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "normlab: %s must be a positive whole number, got '%s'\n", what, text);
        return 0;
    }
    if (errno == ERANGE || v > max) {
        fprintf(stderr, "normlab: %s '%s' is too large (at most %zu)\n", what, text, max);
        return 0;
    }
    if (v == 0) {
        fprintf(stderr, "normlab: %s must be at least 1, got 0\n", what);
        return 0;
    }
    *out = (size_t)v;
    return 1;
}

const char *nl_option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "normlab: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int nl_unknown_option(const char *command, const char *arg)
{
    if (arg[0] == '-')
        fprintf(stderr, "normlab %s: unknown option '%s' (try normlab %s --help)\n", command, arg,
                command);
    else
        fprintf(stderr, "normlab %s: unexpected argument '%s' (try normlab %s --help)\n", command,
                arg, command);
    return 2;
}

int nl_check_shape(size_t rows, size_t d, size_t buffers)
{
    /* Refuse before allocating: a shape whose buffers exceed the machine's
     * memory would either fail to allocate deep inside a run or, with
     * overcommit, be granted and then end in the OOM killer. */
    if (buffers == 0)
        buffers = 1;
    if (d > SIZE_MAX / sizeof(float) / buffers || rows > SIZE_MAX / sizeof(float) / buffers / d) {
        fprintf(stderr, "normlab: --rows %zu x --d %zu floats overflow the address space\n",
                rows, d);
        return 0;
    }
    size_t bytes = rows * d * sizeof(float) * buffers;
    double have = nl_phys_memory();
    if (have > 0 && (double)bytes > have) {
        fprintf(stderr,
                "normlab: --rows %zu x --d %zu needs %.1f GiB, more than this machine's "
                "%.1f GiB of memory\n",
                rows, d, (double)bytes / (1u << 30), have / (1u << 30));
        return 0;
    }
    return 1;
}

double nl_phys_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}
