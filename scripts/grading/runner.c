/* runner.c — main() of a suite when the grader runs it: the only process
 * whose words count.
 *
 * The grader compiles the harness with -Dmain=nl_harness_main and links
 * this file in front of it.  Check runs every test in a forked child, and
 * only those children ever call the student's code.  This process keeps
 * the verdict descriptor (NL_VERDICT_FD, opened by the trusted grader
 * outside the sandbox) as its stdout; each child, the moment it is forked,
 * points its stdout and stderr at the log descriptor instead and closes the
 * verdict one.  So what the student's code prints lands in the log, shown
 * to the student as feedback but never parsed for points, and Check's
 * result lines (written by this parent after each child ends) are the only
 * text on the verdict stream.  The stream ends with an END line written
 * after the suite returns: a runner killed half-way leaves no END, and the
 * grader then gives the suite nothing. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int nl_harness_main(void);

static int verdict_fd = -1, log_fd = -1;

static void child_leaves_verdict(void)
{
    fflush(NULL);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    close(verdict_fd);
}

int main(void)
{
    const char *v = getenv("NL_VERDICT_FD");
    verdict_fd = v ? atoi(v) : -1;
    if (verdict_fd <= STDERR_FILENO) {
        fprintf(stderr, "runner: NL_VERDICT_FD names no descriptor above 2\n");
        return 2;
    }
    /* The log is what stdout was; stdout becomes the verdict. */
    log_fd = dup(STDOUT_FILENO);
    if (log_fd < 0 || dup2(verdict_fd, STDOUT_FILENO) < 0 ||
        pthread_atfork(NULL, NULL, child_leaves_verdict) != 0) {
        fprintf(stderr, "runner: cannot set up the verdict descriptor\n");
        return 2;
    }
    /* Without a fork per test the student's code would run here. */
    setenv("CK_FORK", "yes", 1);
    setenv("CK_VERBOSITY", "verbose", 1);
    int rc = nl_harness_main();
    printf("END %d\n", rc);
    fflush(stdout);
    return rc;
}
