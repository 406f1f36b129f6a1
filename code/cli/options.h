/* options.h — the one option parser of the `normlab` program.
 *
 * A command describes its options in a table and hands argv to
 * nl_options_parse; the parser keeps one contract for every command:
 *   - `--opt VALUE` and `--opt=VALUE` are the same;
 *   - `--help` / `-h` prints the command's usage to stdout; it exits 0;
 *   - an unknown option, a missing value, a value given to a flag or a bad
 *     value prints one line to stderr naming the command, the option and
 *     the value ("normlab bench: --threads 'abc': not a positive whole
 *     number"); the command exits 2.
 * Nothing here exits: the command returns what main returns.
 *
 * Adding a subcommand: write code/cli/NAME.c with `int cmd_NAME(int argc,
 * char **argv)`, list it in main.c's table, describe its options in an
 * nl_option table (see impls.c for the smallest one). */
#ifndef NL_OPTIONS_H
#define NL_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    NL_OPT_FLAG,     /* no value: *(int *)dest = 1 */
    NL_OPT_SIZE,     /* 1..max: *(size_t *)dest */
    NL_OPT_TEXT,     /* any non-empty text: *(const char **)dest (the last one given) */
    NL_OPT_MAYBE,    /* a flag with an optional value (`--show`, `--show FILE`,
                        `--show=FILE`): *(const char **)dest = the value, or ""
                        when none; a following word starting with '-' is not taken */
    NL_OPT_CUSTOM,   /* parse(value, dest): 1, or 0 with the reason in nl_last_error() */
} nl_opt_kind;

typedef struct {
    const char *name;   /* "--rows" */
    nl_opt_kind kind;
    void *dest;
    size_t max;         /* NL_OPT_SIZE: the largest value accepted */
    int (*parse)(const char *value, void *dest); /* NL_OPT_CUSTOM; may be called
                                                    once per use (lists, repeats) */
    const char *alias;  /* another spelling, e.g. "--only-experiment"; or NULL */
} nl_option;

/* Words that are not options (file names), in order; `--` ends the options.
 * They are moved to the front of argv (argv[1..count]), so a command that
 * takes them must not need argv's original order afterwards. */
typedef struct {
    char **word;
    int count;
} nl_positional;

/* Parses argv[1..argc-1] (argv[0] is the command's name) against opts.
 * `command` names it in messages ("bench"); `usage` prints its help.
 * positional: where words that are not options go, or NULL when the
 * command takes none (then one is a usage error).
 * Returns 1 when the command should run; 0 when it should return
 * *exit_code at once: 0 after printing its help for --help, 2 after a
 * usage error's message.  Typical use:
 *     int code;
 *     if (!nl_options_parse("impls", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
 *         return code; */
int nl_options_parse(const char *command, const nl_option *opts, size_t nopts, int argc,
                     char **argv, nl_positional *positional, void (*usage)(FILE *to),
                     int *exit_code);

/* "normlab COMMAND: MESSAGE (try normlab COMMAND --help)" on stderr;
 * returns 2, the exit code for usage and input errors, so that a command
 * can `return nl_usage_error(...)`. */
int nl_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define NL_COUNT(table) (sizeof(table) / sizeof((table)[0]))

#endif
