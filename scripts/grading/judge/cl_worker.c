/* cl_worker.c — the worker of exercise 08: worker.c's servers of the two
 * OpenCL functions (calls/reduce.def), linked with the library's OpenCL
 * host objects (never the registry), under a seccomp filter of its own.
 *
 * The student's reduce.cl is compiled by PoCL's CPU device, in this
 * process: LLVM in process at clBuildProgram and again at the first launch
 * of each work-group size, then /usr/bin/ld (started with vfork and exec)
 * makes a shared object in the private cache (POCL_CACHE_DIR, cl_judge.c),
 * which PoCL loads and runs on its own threads.  So, seen under strace
 * (PoCL 3.1, Debian 12), the filter allows besides worker.c's memory,
 * threads and time:
 *   - files: open (any mode), read, write, stat, mkdir, rename, unlink,
 *     chmod, readlink, getdents: PoCL's cache and temporary files, the
 *     headers and bitcode it reads, the ICD's vendor list.  The sandbox
 *     holds no expected answer and no solution to find, and nothing it can
 *     write is read back for points: the verdict is made by the judge, in
 *     another process, from the numbers this one sends.  And nothing it
 *     writes outlives it: before the filter, main gives it a /tmp and
 *     /dev/shm of its own (a user and mount namespace, tmpfs; PoCL's cache
 *     goes there), and the rest of the sandbox is read-only while a suite
 *     runs (sandbox.sh --nested), so no later worker runs what this one
 *     wrote (a kernel that replaced the worker program once made every
 *     later worker run unfiltered);
 *   - execve and clone with CLONE_VM|CLONE_VFORK (posix_spawn of the
 *     linker; clone3, whose flags a filter cannot see, answers ENOSYS so
 *     glibc falls back to clone): a program it starts inherits this filter;
 *   - wait4, pipe2, dup2, fcntl, ioctl TCGETS only, prlimit64 and
 *     sched_setaffinity of itself (pid 0), signals to itself only.
 * Refused (the worker dies of SIGSYS and the judge names the call):
 * ptrace, process_vm_readv/writev, kill and tgkill of any other process,
 * sockets, namespaces, mount, bpf, and everything not listed.  None of
 * what is allowed can raise a score: the worker never sees the seed
 * (cl_judge.c gives it a fresh environment), receives each input only
 * when it is asked, never sees an expected output, and its prints and
 * exit status are not read.  The filter is installed at main, before the
 * first OpenCL call: PoCL has no thread yet, and no student code exists in
 * the process before clBuildProgram. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wire.h"

#define NL_WORKER_OWN_LOCK_DOWN
static void die(const char *why);

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A user and mount namespace of its own (as the same uid), with fresh
 * tmpfs mounts on /dev/shm and /tmp: what PoCL caches and what a kernel
 * writes are this worker's alone and vanish with it.  A kernel folder the
 * judge made under /tmp (NORMLAB_CL_KERNELS: a test's own kernels) is
 * kept, read-only, at the same path: bound into the new /dev/shm while
 * the old /tmp is still in sight, then moved into the new /tmp. */
static int private_tmp(void)
{
    char map[64];
    uid_t uid = getuid();
    gid_t gid = getgid();
    const char *k = getenv("NORMLAB_CL_KERNELS"), *held = "/dev/shm/kernels";
    int keep = k && strncmp(k, "/tmp/", 5) == 0 && !strchr(k + 5, '/') && !strstr(k, "..");
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return -1;
    snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
    if (write_file("/proc/self/setgroups", "deny") || write_file("/proc/self/uid_map", map))
        return -1;
    snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
    if (write_file("/proc/self/gid_map", map) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
        return -1;
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=700"))
        return -1;
    if (keep && (mkdir(held, 0700) || mount(k, held, NULL, MS_BIND, NULL)))
        return -1;
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=512m,mode=700"))
        return -1;
    if (keep && (mkdir(k, 0700) || mount(held, k, NULL, MS_MOVE, NULL) ||
                 mount(NULL, k, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) || rmdir(held)))
        return -1;
    return 0;
}

static void lock_down(void)
{
    pid_t self = getpid();
    /* Where the suite runs in a nested sandbox (NL_CL_PRIVATE_TMP_REQUIRED,
     * from the judge) a worker without a /tmp of its own does not run;
     * where namespaces cannot be made (UNSAFE=1, or a kernel that allows
     * no unprivileged ones, where the suite's sandbox does not nest
     * either) it keeps a cache folder of its own. */
    if (private_tmp() != 0 && getenv("NL_CL_PRIVATE_TMP_REQUIRED"))
        die("cannot make a /tmp of its own (user and mount namespaces)");
    static char cache[] = "/tmp/normlab-pocl-XXXXXX";
    if (!mkdtemp(cache) || setenv("POCL_CACHE_DIR", cache, 1) != 0)
        die("cannot make PoCL's cache folder");
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_TRAP);
    static const int plain[] = {
        NL_W_SECCOMP_BASE,
        /* PoCL's threads and its compiler's start-up */
        SCMP_SYS(set_tid_address), SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack),
        SCMP_SYS(arch_prctl), SCMP_SYS(getrusage), SCMP_SYS(sysinfo), SCMP_SYS(uname),
        SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid),
        /* files: PoCL's compiler, cache and linker */
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(pread64), SCMP_SYS(pwrite64), SCMP_SYS(readv),
        SCMP_SYS(writev), SCMP_SYS(lseek), SCMP_SYS(openat), SCMP_SYS(open), SCMP_SYS(close),
        SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(statx),
        SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(access), SCMP_SYS(faccessat2),
        SCMP_SYS(readlink), SCMP_SYS(getcwd), SCMP_SYS(getdents64), SCMP_SYS(mkdir),
        SCMP_SYS(rename), SCMP_SYS(unlink), SCMP_SYS(rmdir), SCMP_SYS(chmod), SCMP_SYS(umask),
        SCMP_SYS(fdatasync), SCMP_SYS(fsync), SCMP_SYS(ftruncate), SCMP_SYS(fcntl),
        SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(pipe2), SCMP_SYS(poll),
        /* the linker: started, waited for */
        SCMP_SYS(execve), SCMP_SYS(wait4),
    };
    int ok = f != NULL;
    for (size_t i = 0; ok && i < sizeof plain / sizeof *plain; i++)
        ok = seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
                                (struct scmp_arg_cmp){1, SCMP_CMP_EQ, TCGETS, 0}) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, nl_w_arg0(SCMP_CMP_EQ, 0, 0)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(sched_setaffinity), 1, nl_w_arg0(SCMP_CMP_EQ, 0, 0)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, nl_w_arg0(SCMP_CMP_EQ, (scmp_datum_t)self, 0)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                                nl_w_arg0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)) == 0;
    ok = ok && seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                                nl_w_arg0(SCMP_CMP_MASKED_EQ, CLONE_VM | CLONE_VFORK | CLONE_THREAD,
                                          CLONE_VM | CLONE_VFORK)) == 0;
    ok = ok && seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1) == 0;
    if (!ok || seccomp_load(f) != 0)
        die("cannot install the seccomp filter");
    seccomp_release(f);
}

#include "worker.c"
