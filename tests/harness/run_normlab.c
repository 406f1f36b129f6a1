/* run_normlab.c — run the real `normlab` program as a subprocess, the way a
 * user does, for the suites that test its command line (cli, config_errors,
 * bench, opencl). One runner for all of them, so each gets the same
 * guards: a hang is killed after a time limit, an absurd allocation fails
 * under an address-space cap instead of taking the machine down, and
 * NL_CLI_WRAPPER (`make memcheck MEMCHECK_CLI=1` sets it to valgrind)
 * prefixes every run, so the program's own memory errors and leaks fail
 * the test. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"


static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A program of the build folder: ../NAME relative to this test binary;
 * NULL if it is not there. (No ck_assert here: nl_suite() calls it too,
 * before any test runs.) Each call overwrites buf. */
const char *nl_build_program(const char *name, char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    for (int up = 0; up < 2; up++) {         /* .../build/tests/check_cli -> .../build */
        char *slash = strrchr(self, '/');
        if (!slash)
            return NULL;
        *slash = '\0';
    }
    if ((size_t)snprintf(buf, size, "%s/%s", self, name) >= size || access(buf, X_OK) != 0) {
        buf[0] = '\0';
        return NULL;
    }
    return buf;
}

const char *nl_normlab_path(void)
{
    static char path[PATH_MAX];
    return path[0] ? path : nl_build_program("normlab", path, sizeof path);
}

/* Slow wrappers (valgrind, qemu) get longer before a run counts as hung. */
double nl_run_time_limit(void)
{
    const char *w = getenv("NL_CLI_WRAPPER"), *t = getenv("NL_TEST_WRAPPER");
    return (w && *w) || (t && *t) ? 120.0 : 20.0;
}

static int under_address_sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#endif
#endif
    return 0;
}

/* "NAME=VALUE" into the environment (in the child, before exec). */
static void set_env(const char *assignment)
{
    char name[256];
    const char *eq = strchr(assignment, '=');
    size_t n = eq ? (size_t)(eq - assignment) : 0;
    if (!eq || n == 0 || n >= sizeof name)
        return;
    memcpy(name, assignment, n);
    name[n] = '\0';
    setenv(name, eq + 1, 1);
}

static void drain(int fd, char *buf, size_t *len, int *open_)
{
    char tmp[4096];
    ssize_t n = read(fd, tmp, sizeof tmp);
    if (n <= 0) {
        *open_ = 0;
        return;
    }
    size_t room = NL_RUN_CAP - 1 - *len;
    size_t take = (size_t)n < room ? (size_t)n : room;
    memcpy(buf + *len, tmp, take);
    *len += take;
}

int nl_try_run_normlab(nl_run_result *r, const char *const *args, const char *const *env)
{
    memset(r, 0, sizeof *r);
    if (!nl_normlab_path())
        return -1;
    const char *argv[64];
    size_t k = 0;
    char wrapper[1024] = "";
    const char *w = getenv("NL_CLI_WRAPPER");
    if (w && *w) {
        snprintf(wrapper, sizeof wrapper, "%s", w);
        for (char *tok = strtok(wrapper, " "); tok && k < 32; tok = strtok(NULL, " "))
            argv[k++] = tok;
    }
    argv[k++] = nl_normlab_path();
    for (size_t i = 0; args[i] && k < 63; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    return nl_try_run_argv(r, argv, env, !(w && *w));
}

int nl_try_run_argv(nl_run_result *r, const char *const *argv, const char *const *env,
                    int cap_memory)
{
    memset(r, 0, sizeof *r);
    int po[2], pe[2];
    if (pipe(po) != 0)
        return -1;
    if (pipe(pe) != 0) {
        close(po[0]), close(po[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        for (size_t e = 0; env && env[e]; e++)
            set_env(env[e]);
        /* A command that tries to allocate an absurd size should fail to,
         * not take the machine down with it. ASan and the wrappers reserve
         * huge address ranges of their own, so they go without the cap. */
        if (!under_address_sanitizer() && cap_memory) {
            struct rlimit lim = {(rlim_t)8 << 30, (rlim_t)8 << 30};
            setrlimit(RLIMIT_AS, &lim);
        }
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(po[1]), close(pe[1]);

    size_t lo = 0, le = 0;
    int open_o = 1, open_e = 1;
    double deadline = seconds_now() + nl_run_time_limit();
    while (open_o || open_e) {
        struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        int left_ms = (int)((deadline - seconds_now()) * 1000);
        if (left_ms <= 0) {
            r->timed_out = 1;
            kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 2, left_ms) < 0 && errno != EINTR)
            break;
        if (open_o && (fds[0].revents & (POLLIN | POLLHUP)))
            drain(po[0], r->out, &lo, &open_o);
        if (open_e && (fds[1].revents & (POLLIN | POLLHUP)))
            drain(pe[0], r->err, &le, &open_e);
    }
    close(po[0]), close(pe[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r->exited = WIFEXITED(status);
    r->code = r->exited ? WEXITSTATUS(status) : WTERMSIG(status);
    return 0;
}

void nl_run_normlab(nl_run_result *r, const char *const *args, const char *const *env)
{
    ck_assert_msg(nl_try_run_normlab(r, args, env) == 0,
                  "cannot run the normlab program (expected at %s/../normlab next to the "
                  "tests folder): build it first; `make test` does",
                  "the test binary's folder");
}
