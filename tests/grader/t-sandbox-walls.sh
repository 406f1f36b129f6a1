#!/usr/bin/env bash
# The sandbox's own walls, tried by a shell inside it (not by C code, which
# policy.sh stops earlier): whatever gets past the first wall meets these.
# Nothing of the repository can be read; nothing outside the scratch can be
# written (a planted file survives, another student's results too); no
# network; no process outlives it (setsid sleep); a fork bomb is contained
# and the time limit ends it; it runs as an unprivileged uid.
. tests/grader/lib.sh
sb=scripts/grading/sandbox.sh
mkdir -p "$T/results"; echo '{"score": 10}' >"$T/results/bob.json"; echo planted >"$T/planted"
chmod -R a+rwX "$T"   # even a world-writable file is out of reach
out=$("$sb" --time 20 -- /bin/sh -c "
    cat '$PWD/solutions/'*.md 2>/dev/null && echo READ-SOLUTIONS
    cat '$PWD/code/scalar/welford.c' 2>/dev/null && echo READ-CODE
    echo 0 >'$T/results/bob.json' 2>/dev/null && echo WROTE-RESULTS
    rm -f '$T/planted' 2>/dev/null; [ -e '$T/planted' ] || echo NO-PLANTED-HERE
    echo x >>'$PWD/tests/check_welford.c' 2>/dev/null && echo WROTE-TESTS
    echo hi >/scratch/f && echo SCRATCH-OK
    id -u
    (exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo NETWORK
    " 2>&1)
for bad in READ-SOLUTIONS READ-CODE WROTE-RESULTS WROTE-TESTS NETWORK; do
    ! grep -q "$bad" <<<"$out" || { echo "FAIL: the sandbox allowed $bad"; echo "$out"; exit 1; }
done
grep -q SCRATCH-OK <<<"$out" || { echo "FAIL: the scratch is not writable: $out"; exit 1; }
[ "$(grep -E '^[0-9]+$' <<<"$out")" != 0 ] || { echo "FAIL: the sandbox runs as uid 0"; exit 1; }
[ -e "$T/planted" ] && grep -q 'score": 10' "$T/results/bob.json" || { echo "FAIL: a file outside the sandbox changed"; exit 1; }
! git diff --quiet -- tests/check_welford.c 2>/dev/null && { echo "FAIL: tests/check_welford.c changed"; exit 1; }

# A process left behind dies with the sandbox, and the pipe it held closes.
tag=normlab-selftest-$$-$RANDOM
start=$(date +%s)
"$sb" --time 20 -- /bin/sh -c "setsid sh -c 'exec -a $tag sleep 600' & echo started" | cat >/dev/null
[ $(( $(date +%s) - start )) -lt 15 ] || { echo "FAIL: the sandbox waited for its orphan"; exit 1; }
! pgrep -f "$tag" >/dev/null || { echo "FAIL: a process outlived the sandbox: $(pgrep -af "$tag")"; exit 1; }

# A fork bomb: contained by the process limit, ended by the time limit.
start=$(date +%s)
GRADE_NPROC=64 "$sb" --time 4 -- /bin/bash -c 'b() { b | b & }; b' >/dev/null 2>&1
rc=$?
[ $(( $(date +%s) - start )) -lt 20 ] || { echo "FAIL: the fork bomb ran past the time limit"; exit 1; }
[ $rc -eq 124 ] || [ $rc -eq 0 ] || [ $rc -gt 128 ] || { echo "FAIL: unexpected exit $rc"; exit 1; }
echo "ok: walls hold; orphan gone; fork bomb ended after $(( $(date +%s) - start )) s"

# The driver holds the verdict descriptor while a suite runs: from a suite's
# own PID namespace (sandbox.sh --nested) it cannot be reopened through
# /proc.  Without the nesting it could (the control), which is why it is there.
try_reopen='exec 3>&-; for p in /proc/[0-9]*; do echo FORGED 2>/dev/null >"$p/fd/3"; done; true'
out=$("$sb" --time 20 --ro "$PWD/scripts/grading" /g -- /bin/bash -c "
    exec 3>/tmp/verdict
    /bin/bash -c '$try_reopen'; echo control: \$(cat /tmp/verdict); : >/tmp/verdict
    /g/sandbox.sh --nested -- /bin/bash -c '$try_reopen'; echo nested: \$(cat /tmp/verdict)" 2>&1)
grep -q 'control: FORGED' <<<"$out" || { echo "FAIL: the control did not reach the descriptor: $out"; exit 1; }
grep -q '^nested: *$' <<<"$out" || { echo "FAIL: the verdict was reached from a nested namespace: $out"; exit 1; }
echo "ok: the verdict descriptor is out of reach of a suite's namespace"
