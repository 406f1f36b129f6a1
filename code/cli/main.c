/* main.c — `normlab COMMAND [ARGS]`: dispatch to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"demo",    cmd_demo,    "reproduce the seed experiment and run the verified ladder"},
    {"bench",   cmd_bench,   "time every implementation against the copy bandwidth"},
    {"config",  cmd_config,  "read model config.json files: norm kind, eps, norm parameters"},
    {"devices", cmd_devices, "list OpenCL platforms and devices"},
    {"impls",   cmd_impls,   "list the registered implementations and whether they run here"},
    {"gradcheck", cmd_gradcheck, "check the backward passes: finite differences, every kernel, invariants"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *to)
{
    fprintf(to, "usage: normlab COMMAND [ARGS]   (normlab COMMAND --help for details)\n\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "normlab: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
