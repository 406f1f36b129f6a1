/* commands.h — the subcommands of the `normlab` program. Each lives in its
 * own file, code/cli/<name>.c, and takes the arguments after its name. */
#ifndef NL_COMMANDS_H
#define NL_COMMANDS_H

#include <stddef.h>

int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_impls(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_precision(int argc, char **argv);
int cmd_gradcheck(int argc, char **argv);
int cmd_logits(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_sample(int argc, char **argv);
/* impls_backward.c: the backward table of `normlab impls` */
size_t impls_print_backward(size_t chapter);
/* impls_fused.c: the fused add + norm table of `normlab impls` (chapter 9);
 * chapter != 0 keeps only that chapter's entries, and no table when none. */
size_t impls_print_fused(size_t chapter);

#include "cli/options.h" /* the argument contract every command keeps */

#endif
