#!/usr/bin/env bash
# sandbox.sh — run a command on code the course does not trust.
#
#   sandbox.sh [--ro SRC DEST]... [--time S] [--uid N] -- CMD [ARG...]
#   sandbox.sh --probe      exit 0 when a sandbox can be made here, else say why
#   sandbox.sh --nested -- CMD   (inside a sandbox) CMD in a PID namespace of
#                           its own, where the processes outside it (the
#                           driver, which holds the verdict descriptor) and
#                           their /proc entries cannot be seen, with the
#                           current folder (the scratch: the programs the
#                           suite and its workers run) read-only and /tmp
#                           and /dev/shm fresh and its own, so nothing one
#                           suite's worker writes is run by a later one
#                           (NL_SANDBOX_NESTED=1 says so to CMD); CMD as is
#                           where namespaces cannot nest (UNSAFE=1 runs, a
#                           kernel that allows no unprivileged ones)
#
# CMD runs under bubblewrap with nothing of the host but /usr, six entries
# of /etc (below) and the folders given by --ro (read-only): not the repository,
# not solutions/, not other students' files.  Its only writable places are
# /scratch and /tmp, private tmpfs mounts that vanish with it.  No network
# (all namespaces unshared), its own PID namespace (every process it leaves
# behind dies with it), a new session (no terminal to type into), an
# unprivileged uid (--uid, default 65534: when run as root the sandbox is
# entered as that uid; otherwise as the caller, who is unprivileged already),
# and limits: --time S wall-clock seconds for the whole sandbox (default
# 120), CPU seconds, processes (GRADE_NPROC, default 256 for the uid), file
# size (GRADE_FSIZE_MB, default 64), open files, no core dumps, and tmpfs
# sizes (GRADE_SCRATCH_MB, default 512).  Memory: RLIMIT_AS cannot be used
# for code built with AddressSanitizer (its shadow memory is terabytes of
# address space), so the caller bounds compilers with `ulimit -v` inside and
# ASan programs with ASAN_OPTIONS=hard_rss_limit_mb.
#
# Descriptors the caller opens (e.g. 3>FILE) pass through to CMD.  Exit
# status: CMD's, or 124 when --time ran out.
set -u
ro=() time_s=120 uid=${GRADE_UID:-65534}
while [ $# -gt 0 ]; do
    case $1 in
    --ro) ro+=(--ro-bind "$2" "$3"); shift 3 ;;
    --time) time_s=$2; shift 2 ;;
    --uid) uid=$2; shift 2 ;;
    --probe) probe=1; shift ;;
    --nested) shift; [ "${1:-}" = -- ] && shift
        tmp_bytes=$(( ${GRADE_SCRATCH_MB:-512} * 1024 * 1024 ))
        walls=(--dev-bind / / --size "$tmp_bytes" --tmpfs /tmp --ro-bind "$PWD" "$PWD")
        [ -d /dev/shm ] && walls+=(--size "$tmp_bytes" --tmpfs /dev/shm)
        if bwrap --unshare-pid --unshare-user "${walls[@]}" --proc /proc -- true 2>/dev/null; then
            exec bwrap --unshare-pid --unshare-user --die-with-parent "${walls[@]}" --proc /proc \
                --setenv NL_SANDBOX_NESTED 1 -- "$@"
        fi
        exec "$@" ;;
    --) shift; break ;;
    *) echo "sandbox: unknown option $1" >&2; exit 2 ;;
    esac
done

command -v bwrap >/dev/null || { echo "sandbox: bubblewrap (bwrap) is not installed (apt-get install bubblewrap)"; exit 3; }
scratch_bytes=$(( ${GRADE_SCRATCH_MB:-512} * 1024 * 1024 ))
# Of the host's /etc only what compiling and running need: the loader's
# cache, the alternatives links (/usr/bin/cc -> /etc/alternatives/cc), the
# OpenCL loader's list of drivers and Open MPI's defaults.  Not the
# accounts (passwd, group, shadow), not the host's name, keys or config.
sys=(--ro-bind /usr /usr)
for e in ld.so.cache ld.so.conf ld.so.conf.d alternatives OpenCL/vendors openmpi; do
    [ -e "/etc/$e" ] && sys+=(--ro-bind "/etc/$e" "/etc/$e")
done
# The CPU topology, read-only: PoCL (the OpenCL exercise's device) sizes
# itself from it through hwloc.
for d in /sys/devices/system/cpu /sys/devices/system/node; do
    [ -d "$d" ] && sys+=(--ro-bind "$d" "$d")
done
for l in bin sbin lib lib32 lib64 libx32; do
    [ -L "/$l" ] && sys+=(--symlink "$(readlink "/$l")" "/$l")
done
box=(bwrap --unshare-all --die-with-parent --new-session "${sys[@]}"
     --proc /proc --dev /dev --size "$scratch_bytes" --tmpfs /tmp
     --size "$scratch_bytes" --tmpfs /scratch "${ro[@]}" --chdir /scratch
     --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /scratch --setenv TMPDIR /tmp)
drop=()
[ "$(id -u)" -eq 0 ] && drop=(setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all)
limits=(prlimit --nproc="${GRADE_NPROC:-256}" --fsize=$(( ${GRADE_FSIZE_MB:-64} * 1024 * 1024 ))
        --nofile=256 --core=0 --cpu=$(( time_s * 2 + 5 )))

if [ -n "${probe:-}" ]; then
    out=$("${drop[@]}" "${limits[@]}" timeout 20 "${box[@]}" -- /bin/sh -c 'echo ok' 2>&1)
    [ "$out" = ok ] && exit 0
    echo "sandbox: bubblewrap cannot make a sandbox here: $out"; exit 3
fi
[ $# -gt 0 ] || { echo "sandbox: no command" >&2; exit 2; }
exec "${drop[@]}" "${limits[@]}" timeout -k 2 "$time_s" "${box[@]}" -- "$@"
