/* args.c — argument parsing shared by the subcommands. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

int nl_parse_size(const char *text, const char *what, size_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!text || *text == '\0' || *text == '-' || *text == '+') {
        fprintf(stderr, "normlab: %s must be a positive whole number, got '%s'\n",
                what, text ? text : "");
        return 0;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "normlab: %s must be a positive whole number, got '%s'\n", what, text);
        return 0;
    }
    if (errno == ERANGE || v > SIZE_MAX) {
        fprintf(stderr, "normlab: %s '%s' is too large\n", what, text);
        return 0;
    }
    if (v == 0) {
        fprintf(stderr, "normlab: %s must be at least 1, got 0\n", what);
        return 0;
    }
    *out = (size_t)v;
    return 1;
}
