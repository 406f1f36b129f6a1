/* options.c — one option parser for every command (see options.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "core/sizes.h"
#include "normlab.h"

enum { USAGE_ERROR = 2 };

int nl_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "normlab %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try normlab %s --help)\n", command);
    va_end(ap);
    return USAGE_ERROR;
}

/* Does `arg` spell `name`, alone ("--rows") or with a value ("--rows=8")?
 * Returns the value after '=', "" for none, NULL for another option. */
static const char *match(const char *arg, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (!name || strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    return arg[n] == '\0' ? "" : NULL;
}

static const nl_option *find(const nl_option *opts, size_t nopts, const char *arg,
                             const char **inline_value)
{
    for (size_t k = 0; k < nopts; k++) {
        const char *v = match(arg, opts[k].name);
        if (!v)
            v = match(arg, opts[k].alias);
        if (v) {
            *inline_value = strchr(arg, '=') ? v : NULL;
            return &opts[k];
        }
    }
    return NULL;
}

/* Stores `value` for option `o`; 0 with the reason in nl_last_error(). */
static int store(const nl_option *o, const char *value)
{
    switch (o->kind) {
    case NL_OPT_SIZE:
        return nl_parse_size(value, o->max, (size_t *)o->dest);
    case NL_OPT_TEXT:
    case NL_OPT_MAYBE:
        if (o->kind == NL_OPT_TEXT && !*value) {
            nl_set_error("needs a non-empty value");
            return 0;
        }
        *(const char **)o->dest = value;
        return 1;
    case NL_OPT_CUSTOM:
        return o->parse(value, o->dest);
    case NL_OPT_FLAG:
        break;
    }
    *(int *)o->dest = 1;
    return 1;
}

/* The walk over argv: NL_OK-like 0 to run, 1 for --help, 2 after a
 * usage error's message. */
static int parse(const char *command, const nl_option *opts, size_t nopts, int argc,
                 char **argv, nl_positional *positional)
{
    int options_end = 0, kept = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_end || arg[0] != '-' || arg[1] == '\0') {
            if (!positional)
                return nl_usage_error(command, "unexpected argument '%s'", arg);
            argv[kept++] = argv[i]; /* kept <= i: only words already read move */
            continue;
        }
        if (!strcmp(arg, "--")) {
            options_end = 1;
            continue;
        }
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
            return 1;
        const char *value;
        const nl_option *o = find(opts, nopts, arg, &value);
        if (!o)
            return nl_usage_error(command, "unknown option '%s'", arg);
        const char *name = strncmp(arg, o->name, strlen(o->name)) ? o->alias : o->name;
        if (o->kind == NL_OPT_FLAG) {
            if (value)
                return nl_usage_error(command, "%s takes no value, got '%s'", name, arg);
            store(o, NULL);
            continue;
        }
        if (!value) {
            int optional = o->kind == NL_OPT_MAYBE;
            if (i + 1 < argc && !(optional && argv[i + 1][0] == '-'))
                value = argv[++i];
            else if (optional)
                value = "";
            else
                return nl_usage_error(command, "%s needs a value", name);
        }
        if (!store(o, value))
            return nl_usage_error(command, "%s '%s': %s", name, value, nl_last_error());
    }
    if (positional)
        *positional = (nl_positional){argv + 1, kept - 1};
    return 0;
}

int nl_options_parse(const char *command, const nl_option *opts, size_t nopts, int argc,
                     char **argv, nl_positional *positional, void (*usage)(FILE *to),
                     int *exit_code)
{
    int rc = parse(command, opts, nopts, argc, argv, positional);
    if (rc == 1)
        usage(stdout);
    *exit_code = rc == 1 ? 0 : rc;
    return rc == 0;
}
