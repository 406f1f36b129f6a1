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
 * the kernel folder, a private PoCL cache, a PATH for PoCL's linker, and
 * nothing else (no NL_TEST_SEED, no other variable of the judge). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void nl_cl_exec_worker(const char *path);

void nl_cl_exec_worker(const char *path)
{
    static char kernels[4096], cache[] = "/tmp/normlab-cl-worker-XXXXXX", cache_env[64];
    const char *k = getenv("NORMLAB_CL_KERNELS");
    /* A per-worker cache: nothing compiled from one submission's kernel
     * (or one test's) is reused by another. */
    if (!mkdtemp(cache)) {
        dprintf(2, "judge: cannot make the OpenCL worker's cache folder\n");
        _exit(121);
    }
    snprintf(cache_env, sizeof cache_env, "POCL_CACHE_DIR=%s", cache);
    int n = snprintf(kernels, sizeof kernels, "NORMLAB_CL_KERNELS=%s", k ? k : "");
    char *argv[] = {(char *)path, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", cache_env, n > 0 && (size_t)n < sizeof kernels && k ? kernels : NULL,
                    NULL};
    execve(path, argv, envp);
    dprintf(2, "judge: cannot run the OpenCL worker %s\n", path);
    _exit(122);
}
