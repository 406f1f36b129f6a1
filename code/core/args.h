/* args.h — command-line argument parsing shared by every command of
 * `normlab` and by the library's own command entry points (the benchmarks),
 * so that all of them refuse bad input the same way. Internal: not part of
 * the public normlab.h. */
#ifndef NL_ARGS_H
#define NL_ARGS_H

#include <stddef.h>

/* Shared argument parsing (code/core/args.c). Every command keeps one contract:
 * `--help` prints usage to stdout and exits 0; an unknown option or a bad
 * value prints a message naming it to stderr and exits 2.
 *
 * A strictly positive size ("4096", not "4k", "-1", "+3", " 7" or "12abc");
 * prints a message naming `what` (the option, e.g. "--rows") and returns 0
 * on error. The _max form also refuses values above `max`: every size
 * option should have a bound (threads, samples), so that 2^62 is refused
 * rather than attempted. */
int nl_parse_size(const char *text, const char *what, size_t *out);
int nl_parse_size_max(const char *text, const char *what, size_t max, size_t *out);
/* The value of option argv[*i], advancing *i; NULL (with a message naming
 * the option) when it is the last word. */
const char *nl_option_value(int argc, char **argv, int *i);
/* Prints "unknown option '--x'" (or "unexpected argument") naming the
 * command and returns 2, the exit code for usage errors. */
int nl_unknown_option(const char *command, const char *arg);
/* 1 if `buffers` float arrays of rows x d fit in size_t and in this
 * machine's memory; else a message naming --rows and --d, and 0. */
int nl_check_shape(size_t rows, size_t d, size_t buffers);

/* This machine's physical memory in bytes, or 0 when the system will not
 * say. */
double nl_phys_memory(void);

#endif
