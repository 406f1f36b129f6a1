/* main.c — `normlab COMMAND [ARGS]`: dispatch to one subcommand, and make
 * sure what it printed arrived. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    {"precision", cmd_precision, "chapter 8: error of each bf16/fp16 cast order, fp16 overflow, eps"},
    {"run",     cmd_run,     "run an implementation on your own .npy / .safetensors arrays"},
    {"gradcheck", cmd_gradcheck, "check the backward passes: finite differences, every kernel, invariants"},
    {"logits",  cmd_logits,  "the logits of a GPT-2 checkpoint on one token sequence"},
    {"convert", cmd_convert, "turn a LayerNorm GPT-2 into an RMSNorm model, same logits"},
    {"train",   cmd_train,   "train a GPT-2 with LayerNorm or RMSNorm on text or llm.c tokens"},
    {"sample",  cmd_sample,  "generate text from a GPT-2 checkpoint, seeded"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *to)
{
    fprintf(to, "usage: normlab COMMAND [ARGS]   (normlab COMMAND --help for details)\n\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

/* Output that never arrived (a full disk, `> /dev/full`, a closed pipe)
 * is a failure even when the command succeeded: one check here serves
 * every command, since stdio only reports a lost write at the flush. */
static int output_delivered(int status)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !failed)
        failed = 1, e = errno;
    if (!failed)
        return status;
    fprintf(stderr, "normlab: writing to standard output failed: %s\n",
            e ? strerror(e) : "write error");
    return status ? status : 1;
}

int main(int argc, char **argv)
{
    /* With stdout closed, the next file opened (a --csv) would get its
     * descriptor and receive the table: refuse before anything runs. */
    if (fcntl(STDOUT_FILENO, F_GETFD) == -1) {
        fprintf(stderr, "normlab: standard output is closed; give it somewhere to go "
                        "(> /dev/null to discard it)\n");
        return 1;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return output_delivered(0);
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return output_delivered(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "normlab: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
