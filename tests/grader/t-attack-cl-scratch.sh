#!/usr/bin/env bash
# Exercise 08's worker could escape its filter only by what it leaves
# behind: PoCL runs a kernel's inline assembly as native code in the
# worker, whose filter allows files (PoCL compiles there).  A right
# kernel that also probes the walls, once per launch:
#   - unlinks the worker program and creates a file in /scratch (a worker
#     that replaced /scratch/worker once made every later worker run
#     unfiltered): the scratch is read-only while the suite runs;
#   - leaves a file in /tmp and looks for one an earlier worker left: each
#     worker has a /tmp of its own (cl_worker.c), which vanishes with it;
#   - reads the environment and command line of every process it can see
#     (/proc/1 .. /proc/64) for the run's seed, and for NL_TEST_SEED: the
#     seed reaches the suite on a pipe (driver.sh), never an environment.
# Any probe that gets through makes the kernel's sum wrong, and so does a
# control that must get through (a file in its own /tmp, read back; its
# own command line, read): full marks say every wall held and the probes
# ran.  The seed is a distinctive number, so a stray match is no match.
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the kernel's system calls here are x86-64 assembly"; exit 0; }
. tests/grader/lib.sh
seed=918273645546372819
mkdir -p "$T/sub/08-cl-reduction"
{
    cat <<'CL'
long nl_probe_sys(long n, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}

/* 1 if the first n bytes of buf hold word (len bytes) */
int nl_probe_holds(const char *buf, long n, const char *word, int len)
{
    for (long i = 0; i + len <= n; i++) {
        int k = 0;
        while (k < len && buf[i + k] == word[k])
            k++;
        if (k == len)
            return 1;
    }
    return 0;
}

/* what gets through that must not (or fails that must not): 0 = none */
int nl_probe_walls(void)
{
    int bad = 0;
    char worker[] = "/scratch/worker", made[] = "/scratch/left-behind";
    bad |= nl_probe_sys(87, (long)worker, 0, 0) == 0;                      /* unlink */
    bad |= nl_probe_sys(2, (long)made, 0x41, 0755) >= 0;                   /* creat */
    /* /tmp: a marker holding its maker's pid; another pid's is an escape */
    char marker[] = "/tmp/normlab-left-behind";
    int me = (int)nl_probe_sys(39, 0, 0, 0), other = 0;
    long fd = nl_probe_sys(2, (long)marker, 0xc1, 0644);                   /* O_CREAT|O_EXCL|O_WRONLY */
    if (fd >= 0) {
        bad |= nl_probe_sys(1, fd, (long)&me, 4) != 4;
        nl_probe_sys(3, fd, 0, 0);
    } else {
        fd = nl_probe_sys(2, (long)marker, 0, 0);
        bad |= fd < 0 || nl_probe_sys(0, fd, (long)&other, 4) != 4 || other != me;
        if (fd >= 0)
            nl_probe_sys(3, fd, 0, 0);
    }
    /* every process's environment and command line */
    char seed[] = "SEED_DIGITS", name[] = "TEST_SEED", buf[8192];
    char path[40] = "/proc/";
    int self_seen = 0;
    for (int pid = 1; pid <= 64; pid++) {
        for (int what = 0; what < 2; what++) {
            int at = 6, digits[4], nd = 0;
            for (int p = pid; p > 0; p /= 10)
                digits[nd++] = p % 10;
            while (nd > 0)
                path[at++] = (char)('0' + digits[--nd]);
            char tail[2][10] = {"/environ", "/cmdline"};
            for (int k = 0; tail[what][k]; k++)
                path[at++] = tail[what][k];
            path[at] = 0;
            fd = nl_probe_sys(2, (long)path, 0, 0);
            if (fd < 0)
                continue;
            long n = nl_probe_sys(0, fd, (long)buf, sizeof buf);
            nl_probe_sys(3, fd, 0, 0);
            if (n <= 0)
                continue;
            self_seen |= pid == me && what == 1;
            bad |= nl_probe_holds(buf, n, seed, sizeof seed - 1) || nl_probe_holds(buf, n, name, sizeof name - 1);
        }
    }
    /* the control: its own command line, when its pid is in 1..64 */
    bad |= me <= 64 && !self_seen;
    return bad;
}

CL
    # the real kernel, probing once per launch
    sed -e 's|^    // @exercise 08-cl-reduction$|    int bad = get_global_id(0) == 0 ? nl_probe_walls() : 0;|' \
        -e 's|^    return total;$|    return bad ? total + 1.0f : total;|' code/opencl/kernels/reduce.cl
} | sed "s/SEED_DIGITS/$seed/" >"$T/sub/08-cl-reduction/reduce.cl"
grep -q 'return bad ? total' "$T/sub/08-cl-reduction/reduce.cl" || fail "could not make the probing kernel"
GRADE_SEED=$seed grade_real "$T/sub" 08
expect "^random inputs drawn with seed $seed "
expect '^08-cl-reduction .* 10/10 +ok'
# Teeth: the same kernel with the seed search pointed at what every
# process's environment holds (PATH=) reports it, and loses points.
sed -i 's/TEST_SEED/PATH=/' "$T/sub/08-cl-reduction/reduce.cl"
GRADE_SEED=$seed grade_real "$T/sub" 08
reject '^08-cl-reduction .* 10/10 '
echo "08: a kernel cannot write the scratch, sees no earlier worker's /tmp, and finds no seed in any process it can see"
