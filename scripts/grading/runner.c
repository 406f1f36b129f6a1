/* runner.c — main() of a suite when the grader runs it: the only process
 * whose words count.
 *
 * The grader links this file in place of the harness's main (compiled as
 * nl_harness_main, unused).  Check runs every test in a forked child, and
 * only those children ever call the student's code: this process never
 * does (policy.sh refuses constructors, so nothing of the student's runs
 * before main).  It keeps the verdict descriptor (NL_VERDICT_FD, opened by
 * the trusted grader outside the sandbox); each child, the moment it is
 * forked, closes it and points stdout and stderr at the log, so what the
 * student's code prints is shown as feedback and never parsed for points.
 *
 * The verdict is written from srunner_results(): the type of each result
 * comes from Check's own bookkeeping, one line per test, and a message has
 * its line breaks replaced, so a string the student's code returned (an
 * eps key, say) cannot start a line of its own.  Test names come from
 * Check's log, read entry by entry: each result's entry is exactly one line
 * plus the line breaks of its own message.  The stream ends with END: a
 * runner killed half-way leaves none, and the grader then gives the suite
 * nothing. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

Suite *nl_suite(void);
void nl_take_seed(void);

static int verdict_fd = -1, log_fd = -1;

static void child_leaves_verdict(void)
{
    /* The child stays undumpable: it holds a test's inputs and expected
     * answers, and the worker it starts (the student's code, same uid)
     * must not read them through /proc or ptrace. */
    if (verdict_fd < 0)
        return; /* a fork of the test's process (its worker): done already */
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    close(verdict_fd);
    verdict_fd = -1;
}

static void flush_all(void) { fflush(NULL); }

/* The next log line into buf (without its newline); 0 at the end. */
static int next_line(FILE *f, char *buf, size_t n)
{
    if (!fgets(buf, (int)n, f))
        return 0;
    size_t len = strlen(buf);
    int whole = len > 0 && buf[len - 1] == '\n';
    if (whole)
        buf[len - 1] = '\0';
    else { /* a longer line: its rest is of no use */
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n') {
        }
    }
    return 1;
}

/* "file:line:R:tcase:test:iter: msg" -> "test:iter" in name. */
static void test_name(const char *line, char *name, size_t n)
{
    const char *p = line;
    for (int field = 0; field < 4 && p; field++) {
        p = strchr(p, ':');
        if (p)
            p++;
    }
    const char *end = p ? strchr(p, ':') : NULL;
    const char *end2 = end ? strchr(end + 1, ':') : NULL;
    if (!p || !end2 || (size_t)(end2 - p) >= n) {
        snprintf(name, n, "?");
        return;
    }
    memcpy(name, p, (size_t)(end2 - p));
    name[end2 - p] = '\0';
}

int main(void)
{
    const char *v = getenv("NL_VERDICT_FD");
    verdict_fd = v ? atoi(v) : -1;
    if (verdict_fd <= STDERR_FILENO) {
        fprintf(stderr, "runner: NL_VERDICT_FD names no descriptor above 2\n");
        return 2;
    }
    /* Not dumpable: /proc/PID/fd of this process belongs to root, so a
     * child (same uid) cannot reopen the verdict through it, nor trace us. */
    log_fd = dup(STDOUT_FILENO);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || log_fd < 0 ||
        pthread_atfork(flush_all, NULL, child_leaves_verdict) != 0) {
        fprintf(stderr, "runner: cannot set up the verdict descriptor\n");
        return 2;
    }
    FILE *verdict = fdopen(verdict_fd, "w");
    char logpath[] = "/tmp/normlab-runner-XXXXXX";
    int lfd = mkstemp(logpath);
    if (!verdict || lfd < 0) {
        fprintf(stderr, "runner: cannot open the verdict or the log\n");
        return 2;
    }
    close(lfd);

    nl_take_seed(); /* before any test is forked: the pipe is read once */
    SRunner *sr = srunner_create(nl_suite());
    /* Without a fork per test the student's code would run here. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_set_log(sr, logpath);
    srunner_run_all(sr, CK_SILENT);

    FILE *log = fopen(logpath, "r");
    TestResult **res = srunner_results(sr);
    int n = srunner_ntests_run(sr);
    char line[4096], name[256];
    if (log)
        next_line(log, line, sizeof line); /* "Running suite(s): ..." */
    for (int i = 0; i < n; i++) {
        const char *msg = tr_msg(res[i]) ? tr_msg(res[i]) : "";
        snprintf(name, sizeof name, "?");
        if (log && next_line(log, line, sizeof line))
            test_name(line, name, sizeof name);
        for (const char *p = msg; log && (p = strchr(p, '\n')); p++)
            next_line(log, line, sizeof line);
        int t = tr_rtype(res[i]);
        char r = t == CK_PASS ? 'P' : t == CK_FAILURE ? 'F' : 'E';
        fprintf(verdict, "T %c %s:%s ", r, tr_tcname(res[i]), name);
        for (const char *p = msg; *p; p++)
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, verdict);
        fputc('\n', verdict);
    }
    fprintf(verdict, "END %d\n", n);
    fclose(verdict);
    if (log)
        fclose(log);
    unlink(logpath);
    free(res);
    srunner_free(sr);
    return 0;
}
