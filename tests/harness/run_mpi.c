/* run_mpi.c — run build/normlab-mpi under Open MPI's mpirun, for the
 * check_mpi_* suites, and read back what it printed. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static int in_path(const char *prog)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 <= sizeof dir) {
            snprintf(dir, sizeof dir, "%.*s/%s", (int)n, path, prog);
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

const char *nl_mpi_unavailable(void)
{
    static char prog[PATH_MAX];
    if (!in_path("mpirun"))
        return "Open MPI's mpirun is not installed (package openmpi-bin; `make` installs it "
               "from scripts/setup/deps/base.txt)";
    if (!nl_build_program("normlab-mpi", prog, sizeof prog))
        return "no normlab-mpi beside the tests folder: make builds build/normlab-mpi only "
               "where Open MPI's C development files are installed (libopenmpi-dev, "
               "pkg-config ompi-c), and the grader does not link one (it grades exercise 14 "
               "through the judged tests, whose ranks run the MPI worker)";
    return NULL;
}

void nl_run_mpi(nl_run_result *r, int ranks, const char *const *args)
{
    static char prog[PATH_MAX];
    ck_assert_msg(nl_build_program("normlab-mpi", prog, sizeof prog),
                  "build/normlab-mpi is missing (call NL_MPI_OR_SKIP first)");
    char np[16];
    snprintf(np, sizeof np, "%d", ranks);
    const char *argv[64] = {"mpirun", "-np", np, "--oversubscribe", prog};
    size_t k = 5;
    for (size_t i = 0; args[i] && k < 63; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    /* CI runs as root, which mpirun refuses unless told twice. Containers
     * often forbid the cross-process memory copy Open MPI's shared-memory
     * transport tries first; plain copies work everywhere. Plugins stay
     * loaded at exit so that LeakSanitizer (SAN=1) can name them in
     * tests/lsan.supp. The ranks share one machine, so the point-to-point
     * layer is ob1 over shared memory, named: left to choose, Open MPI
     * first tries UCX (InfiniBand and the like), and that was half of each
     * start (0.39-0.45 s a run of 2 ranks on 2 cores, 0.20 s with ob1).
     * When a rank exits with an error, as every bad-input test's does,
     * mpirun ends the job and then waited a second (odls_base_sigkill_timeout)
     * for processes that had already gone: 1.5-2.2 s a run, 0.17-0.18 s
     * without the wait. */
    static const char *const env[] = {"OMPI_ALLOW_RUN_AS_ROOT=1",
                                      "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_pml=ob1",
                                      "OMPI_MCA_odls_base_sigkill_timeout=0",
                                      "OMPI_MCA_btl_vader_single_copy_mechanism=none",
                                      "OMPI_MCA_mca_base_component_disable_dlclose=1", NULL};
    ck_assert_msg(nl_try_run_argv(r, argv, env, 0) == 0, "could not start mpirun");
    ck_assert_msg(!r->timed_out, "mpirun -np %d normlab-mpi was still running after %.0f s and "
                  "was killed: a collective that some rank never joined?\nstdout: %s\nstderr: %s",
                  ranks, nl_run_time_limit(), r->out, r->err);
}

double nl_mpi_max_error(const nl_run_result *r)
{
    const char *at = strstr(r->out, "max error: ");
    ck_assert_msg(at, "normlab-mpi printed no 'max error:' line (exit %d)\nstdout: %s\nstderr: %s",
                  r->code, r->out, r->err);
    return strtod(at + strlen("max error: "), NULL);
}

unsigned long long nl_mpi_fingerprint(const nl_run_result *r)
{
    const char *at = strstr(r->out, "fingerprint: ");
    ck_assert_msg(at, "normlab-mpi printed no 'fingerprint:' line (exit %d)\nstdout: %s\nstderr: %s",
                  r->code, r->out, r->err);
    return strtoull(at + strlen("fingerprint: "), NULL, 16);
}
