/* cl_judge.c — the judge's side of exercise 08: how proxy.c starts the
 * OpenCL worker (cl_worker.c), linked into the suite in place of the
 * registry's two OpenCL functions (proxy.c built from calls/reduce.def with
 * -DNL_JUDGE_EXEC=nl_cl_exec_worker).
 *
 * It runs in the child proxy.c forked, after the pipes are on 3 and 4 and
 * every other descriptor is closed.  proxy.c's usual first filter (no file
 * written, no process made) would refuse what PoCL needs, and there is no
 * student code to hold back before the worker's main: the student wrote
 * OpenCL C, which only runs once cl_worker.c's filter is in place and
 * PoCL compiles it.  So this only gives the worker a fresh environment:
 * the kernel folder, a PATH for PoCL's linker, whether its /tmp of its own
 * (cl_worker.c) must be made (where the suite runs in a nested sandbox,
 * namespaces can be made), and nothing else (no variable of the judge;
 * the seed was never in the environment: harness.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void nl_cl_exec_worker(const char *path);

void nl_cl_exec_worker(const char *path)
{
    static char kernels[4096];
    const char *k = getenv("NORMLAB_CL_KERNELS");
    int n = snprintf(kernels, sizeof kernels, "NORMLAB_CL_KERNELS=%s", k ? k : "");
    char *argv[] = {(char *)path, NULL};
    char *envp[4] = {"PATH=/usr/bin:/bin", NULL, NULL, NULL}, **e = envp + 1;
    if (getenv("NL_SANDBOX_NESTED")) /* namespaces nest here: the worker's must be made */
        *e++ = "NL_CL_PRIVATE_TMP_REQUIRED=1";
    if (n > 0 && (size_t)n < sizeof kernels && k)
        *e++ = kernels;
    execve(path, argv, envp);
    dprintf(2, "judge: cannot run the OpenCL worker %s\n", path);
    _exit(122);
}
