/* commands.h — the subcommands of the `normlab` program. Each lives in its
 * own file, code/cli/<name>.c, and takes the arguments after its name. */
#ifndef NL_COMMANDS_H
#define NL_COMMANDS_H

int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_impls(int argc, char **argv);

/* Shared argument parsing: a strictly positive size ("4096", not "4k",
 * "-1" or "12abc"); prints a message naming `what` and returns 0 on error. */
int nl_parse_size(const char *text, const char *what, size_t *out);

#endif
