/* check_cli.c — the `normlab` program under bad input.
 *
 * The contract every command keeps (see code/cli/):
 *   - `normlab CMD --help` exits 0 and prints a usage text to stdout;
 *   - an unknown flag exits 2 and names the flag on stderr;
 *   - a bad size (not a number, negative, trailing junk, missing, too big
 *     for size_t, or so big it could only exhaust memory) exits non-zero,
 *     at once, with a message naming the option.
 *
 * The tests run the real binary, build/normlab (found next to the tests
 * folder), as a subprocess. The commands come from `normlab --help`, so a
 * command added later is tested without editing this file; the size
 * options of a command are the ones its --help mentions.
 * NL_CLI_WRAPPER (`make memcheck` sets it to valgrind), when set, prefixes
 * each run of the program, so its memory errors and leaks fail the test.
 * (Under `make cross-test` build-aarch64/normlab is a script that starts
 * the aarch64 binary under qemu, so every suite can run it as is.) */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* "normlab bench --rows abc" for messages. */
static const char *show(const char *const *args)
{
    static char buf[512];
    size_t n = (size_t)snprintf(buf, sizeof buf, "normlab");
    for (size_t i = 0; args[i] && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", args[i][0] ? args[i] : "''");
    return buf;
}

static void assert_clean_exit(const nl_run_result *r, const char *cmdline)
{
    ck_assert_msg(!r->timed_out, "`%s` was still running after %.0f s and was killed: "
                  "bad input must be rejected before any work starts", cmdline, nl_run_time_limit());
    ck_assert_msg(r->exited, "`%s` was killed by signal %d (%s): bad input must give a "
                  "message, not a crash\nstderr: %s", cmdline, r->code, strsignal(r->code), r->err);
}

/* ------------------------------------------------ the list of commands */

#define MAX_COMMANDS 32
/* A command is one or two words: "bench", or a mode with options of its
 * own, "bench --opencl". */
static char command_words[MAX_COMMANDS][2][32];
static char command_names[MAX_COMMANDS][64];
static size_t command_count;

/* Modes that have their own --help and options, tested like commands. */
static const char *const modes[][2] = {{"bench", "--opencl"}};

static void add_command(const char *w0, const char *w1)
{
    if (command_count == MAX_COMMANDS)
        return;
    snprintf(command_words[command_count][0], 32, "%s", w0);
    snprintf(command_words[command_count][1], 32, "%s", w1 ? w1 : "");
    snprintf(command_names[command_count], 64, "%s%s%s", w0, w1 ? " " : "", w1 ? w1 : "");
    command_count++;
}

/* argv for `normlab COMMAND EXTRA...` (EXTRA NULL-terminated) in buf. */
static const char *const *cmd_argv(const char **buf, size_t i, const char *const *extra)
{
    size_t k = 0;
    buf[k++] = command_words[i][0];
    if (command_words[i][1][0])
        buf[k++] = command_words[i][1];
    while (*extra && k < 15)
        buf[k++] = *extra++;
    buf[k] = NULL;
    return buf;
}

/* The commands, as `normlab --help` lists them (lines "  NAME  summary"),
 * and the modes above whose --help works. Read once, by nl_suite(), so the
 * loop tests run once per real command. */
static void load_commands(void)
{
    static nl_run_result r;
    const char *args[] = {"--help", NULL};
    command_count = 0;
    if (nl_try_run_normlab(&r, args, NULL) != 0)
        return;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[32];
        if (line[0] == ' ' && sscanf(line, " %31[a-z-]", name) == 1)
            add_command(name, NULL);
    }
    size_t listed = command_count;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (size_t i = 0; i < listed; i++) {
            const char *margs[] = {modes[m][0], modes[m][1], "--help", NULL};
            if (!strcmp(command_names[i], modes[m][0]) && nl_try_run_normlab(&r, margs, NULL) == 0 &&
                r.exited && r.code == 0)
                add_command(modes[m][0], modes[m][1]);
        }
}

/* ------------------------------------------------------- the program */

START_TEST(top_level_help_lists_every_command)
{
    static nl_run_result r;
    const char *args[] = {"--help", NULL};
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, "normlab --help");
    ck_assert_msg(r.code == 0, "`normlab --help` exited %d, expected 0\nstderr: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "usage"), "`normlab --help` printed no usage line on stdout:\n%s",
                  r.out);
    const char *expected[] = {"demo", "bench", "config", "devices", "impls"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < command_count; j++)
            found |= !strcmp(command_words[j][0], expected[i]);
        ck_assert_msg(found, "`normlab --help` does not list the command '%s':\n%s", expected[i],
                      r.out);
    }
}
END_TEST

START_TEST(no_command_is_a_usage_error)
{
    static nl_run_result r;
    const char *args[] = {NULL};
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, "normlab");
    ck_assert_msg(r.code == 2, "`normlab` with no command exited %d, expected 2", r.code);
    ck_assert_msg(strstr(r.err, "usage"), "`normlab` with no command printed no usage on stderr:\n%s",
                  r.err);
}
END_TEST

START_TEST(unknown_command_is_named)
{
    static nl_run_result r;
    const char *args[] = {"frobnicate", NULL};
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, "normlab frobnicate");
    ck_assert_msg(r.code == 2, "`normlab frobnicate` exited %d, expected 2", r.code);
    ck_assert_msg(strstr(r.err, "frobnicate"),
                  "`normlab frobnicate` did not name the unknown command on stderr:\n%s", r.err);
}
END_TEST

/* ------------------------------------------------------ each command */

START_TEST(command_help)
{
    const char *cmd = command_names[_i];
    static nl_run_result r;
    const char *buf[16], *extra[] = {"--help", NULL};
    const char *const *args = cmd_argv(buf, (size_t)_i, extra);
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, show(args));
    ck_assert_msg(r.code == 0, "`%s` exited %d, expected 0\nstderr: %s", show(args), r.code, r.err);
    char want[64];
    snprintf(want, sizeof want, "normlab %s", cmd);
    /* The usage line names the command, with its mode if it has one. */
    ck_assert_msg(strstr(r.out, "usage") && strstr(r.out, want),
                  "`%s` should print a usage line naming '%s' on stdout; stdout was:\n%s",
                  show(args), want, r.out);
}
END_TEST

START_TEST(command_rejects_unknown_flag)
{
    static nl_run_result r;
    const char *buf[16], *extra[] = {"--no-such-flag", NULL};
    const char *const *args = cmd_argv(buf, (size_t)_i, extra);
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, show(args));
    ck_assert_msg(r.code == 2, "`%s` exited %d, expected 2 (a usage error)\nstderr: %s",
                  show(args), r.code, r.err);
    ck_assert_msg(strstr(r.err, "--no-such-flag"),
                  "`%s` should name the unknown flag on stderr; stderr was:\n%s", show(args), r.err);
}
END_TEST

/* Options that take a size, under the names the commands may use; a
 * command is tested on those its --help mentions. */
static const char *const size_options[] = {
    "--rows", "--d", "--dim", "--chapter", "--threads", "--samples", "--runs", "--reps", "--repeats",
    "--warmup",
};
#define NSIZE_OPTIONS (sizeof size_options / sizeof size_options[0])

static int mentions_option(const char *help, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = strstr(help, opt); p; p = strstr(p + 1, opt)) {
        char next = p[n];
        if (next == ' ' || next == '=' || next == '\n' || next == ',' || next == '\t' ||
            next == '\0' || next == ']')
            return 1;
    }
    return 0;
}

/* Values no size option may accept, and why. 2^64 does not fit size_t;
 * 2^62 fits but no machine has 2^62 rows, floats, threads or samples to
 * give, so it must be refused up front (not attempted, not hung on). */
static const struct {
    const char *value, *why;
} bad_sizes[] = {
    {"abc", "not a number"},
    {"12abc", "trailing junk"},
    {"-3", "negative"},
    {"", "empty"},
    {"1.5", "not whole"},
    {"18446744073709551616", "2^64, too big for size_t"},
    {"99999999999999999999999", "far too big for size_t"},
    {"4611686018427387904", "2^62: would exhaust memory or time"},
};

START_TEST(command_rejects_bad_sizes)
{
    const char *cmd = command_names[_i];
    static nl_run_result help, r;
    const char *buf[16];
    const char *hextra[] = {"--help", NULL};
    nl_run_normlab(&help, cmd_argv(buf, (size_t)_i, hextra), NULL);

    size_t tested = 0;
    for (size_t o = 0; o < NSIZE_OPTIONS; o++) {
        const char *opt = size_options[o];
        if (!mentions_option(help.out, opt))
            continue;
        tested++;
        for (size_t b = 0; b < sizeof bad_sizes / sizeof bad_sizes[0]; b++) {
            const char *extra[] = {opt, bad_sizes[b].value, NULL};
            const char *const *args = cmd_argv(buf, (size_t)_i, extra);
            nl_run_normlab(&r, args, NULL);
            assert_clean_exit(&r, show(args));
            ck_assert_msg(r.code == 2, "`%s` (%s) exited %d: a bad size must be refused with "
                          "exit 2 (a usage error)", show(args), bad_sizes[b].why, r.code);
            ck_assert_msg(strstr(r.err, opt) != NULL,
                          "`%s` (%s) exited %d but its message does not name %s:\n%s",
                          show(args), bad_sizes[b].why, r.code, opt, r.err);
        }
        /* The option as the last word, with its value missing. */
        const char *extra[] = {opt, NULL};
        const char *const *args = cmd_argv(buf, (size_t)_i, extra);
        nl_run_normlab(&r, args, NULL);
        assert_clean_exit(&r, show(args));
        ck_assert_msg(r.code != 0 && strstr(r.err, opt),
                      "`%s` (value missing) exited %d; expected non-zero and a message naming "
                      "%s:\n%s", show(args), r.code, opt, r.err);
        ck_assert_msg(!strstr(r.err, "unknown"),
                      "`%s` (value missing): %s is in --help, yet the message calls it "
                      "unknown; say that it needs a value:\n%s", show(args), opt, r.err);
    }
    /* Each size fits, the product does not: rows x d floats overflow
     * size_t (2^33 x 2^33 x 4 bytes), or exhaust any machine (2^24 x 2^24
     * x 4 bytes = 1 PiB). */
    if (mentions_option(help.out, "--rows") && mentions_option(help.out, "--d")) {
        const char *products[][2] = {{"8589934592", "8589934592"}, {"16777216", "16777216"}};
        for (size_t k = 0; k < 2; k++) {
            const char *extra[] = {"--rows", products[k][0], "--d", products[k][1], NULL};
            const char *const *args = cmd_argv(buf, (size_t)_i, extra);
            nl_run_normlab(&r, args, NULL);
            assert_clean_exit(&r, show(args));
            ck_assert_msg(r.code != 0 && (strstr(r.err, "rows") || strstr(r.err, "--d")),
                          "`%s` exited %d; a rows x d that cannot be allocated must be refused "
                          "with a message naming rows or d:\n%s", show(args), r.code, r.err);
        }
    }
    /* A shape option takes ROWSxD: each part is a size, and so is the
     * product (the 2^62, 2^64 and 1 PiB cases again, as shapes). */
    if (mentions_option(help.out, "--shape")) {
        tested++;
        const char *shapes[] = {"abc", "4096", "4096x", "x4096", "-1x5", "0x5", "5x0",
                                "1.5x2", "4096x4096,abc", "18446744073709551616x1",
                                "4611686018427387904x1", "4294967296x4294967296",
                                "16777216x16777216"};
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            const char *extra[] = {"--shape", shapes[k], NULL};
            const char *const *args = cmd_argv(buf, (size_t)_i, extra);
            nl_run_normlab(&r, args, NULL);
            assert_clean_exit(&r, show(args));
            ck_assert_msg(r.code != 0 && strstr(r.err, "shape"),
                          "`%s` exited %d; a bad shape must be refused with a message "
                          "naming the shape:\n%s", show(args), r.code, r.err);
        }
    }
    if (tested == 0) {
        char why[128];
        snprintf(why, sizeof why, "`normlab %s --help` names no size option", cmd);
        NL_SKIP(why);
    }
}
END_TEST

/* --------------------------------------------- one parser, one contract */

/* Every command, run once with its values written --opt=VALUE (cheaply:
 * small sizes, --show of a committed CSV), and once with one bad value in
 * that form.  A command added to main.c needs a line here: the test below
 * fails for a listed command that has none.  `expect` is text the output
 * holds only if the values were used; `absent`, text it must not hold. */
#define REF_CSV "book/data/bench-reference.csv"
static const struct {
    const char *command;
    const char *good[8], *expect, *absent;
    const char *bad[4], *bad_option, *bad_value;
} equals_forms[] = {
    {"demo", {"--no-experiment", "--rows=3", "--d=5", "--runs=1", NULL}, "3 rows x 5", NULL,
     {"--runs=abc", NULL}, "--runs", "abc"},
    {"bench", {"--show=" REF_CSV, "--shape=256x1024", "--threads=1", "--impl=rmsnorm_naive", NULL},
     "rmsnorm_naive", "layernorm_naive",
     {"--samples=0", NULL}, "--samples", "0"},
    {"config", {"--tsv", "tests/fixtures/configs/TinyLlama-1.1B-Chat-v1.0.json", NULL}, "llama", NULL,
     /* config has flags only: a flag given a value is refused the same way */
     {"--json=yes", "tests/fixtures/configs/TinyLlama-1.1B-Chat-v1.0.json", NULL}, "--json", "--json=yes"},
    {"devices", {"--device=0", NULL}, " *  0", NULL, {"--device=", NULL}, "--device", "''"},
    {"impls", {"--chapter=1", NULL}, "layernorm_naive", "layernorm_avx2",
     {"--chapter=one", NULL}, "--chapter", "one"},
    {"gradcheck", {"--norm=rms", "--rows=2", "--d=8", NULL}, "RMSNorm, 2 x 8", NULL,
     {"--rows=abc", NULL}, "--rows", "abc"},
    {"precision", {"--rows=2", "--d=8", NULL}, "2 x 8", NULL, {"--rows=abc", NULL}, "--rows", "abc"},
    /* run writes its result to --out, not stdout: the expected text is the
     * empty string, and the value checks are in check_half_run. SCRATCH/
     * stands for the suite's scratch folder (never build/, which a fresh
     * clone under `make SAN=1 test` does not have). */
    {"run", {"rmsnorm_naive", "--x=tests/fixtures/npy/x-2x4-f32.npy",
             "--gamma=tests/fixtures/npy/gamma-4-f32.npy", "--eps=1e-6", "--force",
             "--out=SCRATCH/check-cli-run.npy", NULL}, "", NULL,
     {"--eps=abc", NULL}, "--eps", "abc"},
    /* logits writes to --out too; its values are checked in check_gpt2_cli */
    {"logits", {"--model=tests/fixtures/gpt2/tiny.bin", "--tokens=1,2,3", "--force",
                "--out=SCRATCH/check-cli-logits.npy", NULL}, "", NULL,
     {"--tokens=abc", NULL}, "--tokens", "abc"},
    {"convert", {"--in=tests/fixtures/gpt2/tiny.bin", "--out=SCRATCH/check-cli-convert.bin",
                 "--force", "--crms", NULL}, "Pre-CRMSNorm", NULL,
     {"--in=", NULL}, "--in", "''"},
    /* train and sample: their runs are checked in check_train_cli */
    {"train", {"--text=tests/fixtures/train/words.txt", "--norm=rmsnorm", "--layers=1",
               "--channels=8", "--context=8", "--batch=2", "--steps=2", NULL},
     "2 steps", "layernorm", {"--steps=abc", NULL}, "--steps", "abc"},
    /* sample prints the model's bytes (tiny.bin's are control characters) */
    {"sample", {"--model=tests/fixtures/gpt2/tiny.bin", "--length=5", "--seed=2",
                "--temperature=0.5", NULL}, "", NULL,
     {"--temperature=abc", NULL}, "--temperature", "abc"},
};
#define NEQUALS (sizeof equals_forms / sizeof equals_forms[0])

/* The equals_forms line of command i; fails the test when it has none. */
static size_t equals_form_of(int i)
{
    const char *cmd = command_words[i][0];
    size_t k = 0;
    while (k < NEQUALS && strcmp(equals_forms[k].command, cmd) != 0)
        k++;
    ck_assert_msg(k < NEQUALS, "`normlab %s` has no line in equals_forms (tests/check_cli.c): "
                  "add one running it with --opt=VALUE and one bad value", cmd);
    return k;
}

#define SKIP_MODES()                                                              \
    do {                                                                          \
        if (command_words[_i][1][0])                                              \
            NL_SKIP("a mode of a command: its options are the command's, tested there"); \
    } while (0)

/* equals_forms[k].good with --out=SCRATCH/NAME pointed into the suite's
 * scratch folder (a fresh clone has no build/ to write into). */
static const char **scratch_outs(const char *good[8], size_t k)
{
    static char out[PATH_MAX + 16];
    memset(good, 0, 8 * sizeof *good);
    for (size_t g = 0; g < 7 && equals_forms[k].good[g]; g++) {
        good[g] = equals_forms[k].good[g];
        if (!strncmp(good[g], "--out=SCRATCH/", 14)) {
            snprintf(out, sizeof out, "--out=%s", nl_scratch_name(good[g] + 14));
            good[g] = out;
        }
    }
    return good;
}

START_TEST(command_accepts_equals_and_refuses_bad_value)
{
    SKIP_MODES();
    size_t k = equals_form_of(_i);
    const char *cmd = command_words[_i][0];
    static nl_run_result r;
    const char *buf[16], *good[8];
    const char *const *args = cmd_argv(buf, (size_t)_i, scratch_outs(good, k));
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, show(args));
    if (!strcmp(cmd, "devices") && r.code == 1)
        NL_SKIP("no OpenCL platform here: `normlab devices --device=0` cannot pick one");
    ck_assert_msg(r.code == 0, "`%s` exited %d, expected 0: every option takes --opt=VALUE as "
                  "well as --opt VALUE\nstderr: %s", show(args), r.code, r.err);
    ck_assert_msg(strstr(r.out, equals_forms[k].expect),
                  "`%s` ran, but its output lacks '%s', which it shows when the values were "
                  "used:\n%.2000s", show(args), equals_forms[k].expect, r.out);
    ck_assert_msg(!equals_forms[k].absent || !strstr(r.out, equals_forms[k].absent),
                  "`%s` printed '%s', which its options should have left out:\n%.2000s",
                  show(args), equals_forms[k].absent, r.out);

    args = cmd_argv(buf, (size_t)_i, equals_forms[k].bad);
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, show(args));
    ck_assert_msg(r.code == 2, "`%s` exited %d, expected 2 (a bad value is a usage error)\n"
                  "stderr: %s", show(args), r.code, r.err);
    ck_assert_msg(strstr(r.err, equals_forms[k].bad_option) && strstr(r.err, equals_forms[k].bad_value),
                  "`%s`: the message should name the option %s and the value %s; stderr "
                  "was:\n%s", show(args), equals_forms[k].bad_option, equals_forms[k].bad_value,
                  r.err);
}
END_TEST

/* The two spellings mean the same: for the commands whose output does not
 * depend on timing, `--opt V` and `--opt=V` print the same bytes. */
START_TEST(space_and_equals_print_the_same)
{
    const char *const pairs[][2][8] = {
        {{"impls", "--chapter=5", NULL}, {"impls", "--chapter", "5", NULL}},
        {{"bench", "--show=" REF_CSV, "--threads=1", "--shape=4096x4096", NULL},
         {"bench", "--show", REF_CSV, "--threads", "1", "--shape", "4096x4096", NULL}},
    };
    static nl_run_result a, b;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        nl_run_normlab(&a, pairs[k][0], NULL);
        nl_run_normlab(&b, pairs[k][1], NULL);
        ck_assert_msg(a.code == 0 && b.code == 0 && !strcmp(a.out, b.out),
                      "`%s` (exit %d) and the same with '--opt V' (exit %d) should print the "
                      "same; the first printed:\n%.1500s\nthe second:\n%.1500s\nstderr: %s%s",
                      show(pairs[k][0]), a.code, b.code, a.out, b.out, a.err, b.err);
    }
}
END_TEST

/* `normlab impls` lists the fused add + norm registry of chapter 9 under a
 * heading of its own (after which its rows come), and --chapter narrows it
 * as it narrows the forward table. */
START_TEST(impls_lists_the_fused_registry)
{
    static nl_run_result r;
    const char *args[] = {"impls", NULL};
    nl_run_normlab(&r, args, NULL);
    assert_clean_exit(&r, "normlab impls");
    ck_assert_msg(r.code == 0, "`normlab impls` exited %d\nstderr: %s", r.code, r.err);
    const char *section = strstr(r.out, "\nfused add + norm");
    ck_assert_msg(section, "`normlab impls` has no 'fused add + norm' section for the chapter 9 "
                  "registry (code/block/registry.def):\n%.3000s", r.out);
    const char *names[] = {"\nfused_add_rmsnorm ", "\nfused_add_layernorm "};
    for (size_t i = 0; i < 2; i++)
        ck_assert_msg(strstr(section, names[i]), "the fused section of `normlab impls` has no "
                      "row '%s':\n%.3000s", names[i] + 1, section);

    const char *ch9[] = {"impls", "--chapter", "9", NULL};
    nl_run_normlab(&r, ch9, NULL);
    ck_assert_msg(r.code == 0 && strstr(r.out, "\nfused_add_rmsnorm "),
                  "`normlab impls --chapter 9` (exit %d) should list fused_add_rmsnorm:\n%.3000s",
                  r.code, r.out);
    const char *ch1[] = {"impls", "--chapter", "1", NULL};
    nl_run_normlab(&r, ch1, NULL);
    ck_assert_msg(r.code == 0 && !strstr(r.out, "fused_add_rmsnorm"),
                  "`normlab impls --chapter 1` (exit %d) should leave out chapter 9's fused "
                  "kernels:\n%.3000s", r.code, r.out);
}
END_TEST

/* ---------------------------------------- output that does not arrive */

/* Runs `normlab ARGS` through sh with stdout redirected as `redirect` says
 * ("> /dev/full", ">&-"); returns the exit status (-1: killed), stderr in err. */
static int run_redirected(const char *const *args, const char *redirect, char *err, size_t n)
{
    char cmd[2048], errfile[] = "/tmp/normlab-cli-err-XXXXXX";
    int fd = mkstemp(errfile);
    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    close(fd);
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "'%s'", nl_normlab_path());
    for (size_t i = 0; args[i] && len < sizeof cmd; i++)
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, " '%s'", args[i]);
    snprintf(cmd + len, sizeof cmd - len, " %s 2>'%s'", redirect, errfile);
    int st = system(cmd);
    FILE *f = fopen(errfile, "r");
    size_t got = f ? fread(err, 1, n - 1, f) : 0;
    err[got] = '\0';
    if (f)
        fclose(f);
    unlink(errfile);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `normlab CMD > /dev/full` (a full disk) and `normlab CMD >&-` (stdout
 * closed) lose all output: each must exit non-zero and say so, whatever
 * the command (its equals_forms run, and its --help). */
START_TEST(lost_output_is_an_error)
{
    SKIP_MODES();
    size_t k = equals_form_of(_i);
    const char *cmd = command_words[_i][0];
    const char *buf[16], *help[] = {"--help", NULL};
    const char *const *runs[2];
    const char *good[8];
    runs[0] = cmd_argv(buf, (size_t)_i, scratch_outs(good, k));
    static const char *buf2[16];
    runs[1] = cmd_argv(buf2, (size_t)_i, help);
    const char *const redirects[] = {"> /dev/full", ">&-"};
    char err[4096];
    for (size_t r = 0; r < 2; r++)
        for (size_t x = 0; x < 2; x++) {
            int code = run_redirected(runs[r], redirects[x], err, sizeof err);
            if (!strcmp(cmd, "devices") && r == 0 && strstr(err, "no OpenCL"))
                continue; /* no device here: that run fails for another reason */
            if (r == 0 && x == 0 && !equals_forms[k].expect[0])
                continue; /* it writes files, not stdout: nothing to lose on /dev/full */
            ck_assert_msg(code > 0 && strstr(err, "standard output"),
                          "`%s %s` exited %d: output that never arrived must fail the command "
                          "(non-zero) with a message about standard output; stderr:\n%s",
                          show(runs[r]), redirects[x], code, err);
        }
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    /* Dozens of runs of the program, each under valgrind or qemu at worst. */
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, top_level_help_lists_every_command);
    tcase_add_test(tc, no_command_is_a_usage_error);
    tcase_add_test(tc, unknown_command_is_named);
    load_commands(); /* none found: top_level_help fails and says why */
    tcase_add_loop_test(tc, command_help, 0, (int)command_count);
    tcase_add_loop_test(tc, command_rejects_unknown_flag, 0, (int)command_count);
    tcase_add_loop_test(tc, command_rejects_bad_sizes, 0, (int)command_count);
    tcase_add_loop_test(tc, command_accepts_equals_and_refuses_bad_value, 0, (int)command_count);
    tcase_add_test(tc, space_and_equals_print_the_same);
    tcase_add_test(tc, impls_lists_the_fused_registry);
    tcase_add_loop_test(tc, lost_output_is_an_error, 0, (int)command_count);
    suite_add_tcase(s, tc);
    return s;
}
