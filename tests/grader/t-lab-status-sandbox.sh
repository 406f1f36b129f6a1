#!/usr/bin/env bash
# The handout's list of exercises done and left (handout-status.sh, run by
# make and make test) runs the student's suites: in the grader's sandbox,
# as `make grade` does (issue 21's "if time"), not as the student's own
# account with their home folder and the network.  Here the suite of a
# handout made of the fixture exercises is a probe that reports what it
# can see: not /etc/passwd, not the caller's HOME, and the handout only
# read-only.
. tests/grader/lib.sh
bwrap_ok=1; scripts/grading/sandbox.sh --probe >/dev/null 2>&1 || bwrap_ok=0
[ $bwrap_ok = 1 ] || { echo "SKIP: no sandbox can be made here"; exit 0; }
h=$T/h
mkdir -p "$h/exercises" "$h/code" "$h/build/tests"
cp -R "$FIX/exercises/98-fix-sum" "$h/exercises/"
cp "$FIX/code/fixsum.c" "$h/code/"
cp "$FIX/code/fixsum.c" "$h/exercises/98-fix-sum/"     # "done": no TODO line left
cat >"$h/build/tests/check_fixsum" <<'PROBE'
#!/bin/sh
p=no; [ -e /etc/passwd ] && p=yes
w=no; (echo x >"$PWD/written-by-the-suite") 2>/dev/null && w=yes
echo "probe.c:1:F:probe:probe:0: passwd=$p write=$w uid=$(id -u) home=$HOME"
exit 1
PROBE
chmod -R a+rX "$T"; chmod +x "$h/build/tests/check_fixsum"
(cd "$h" && HOME=/root/secret "$OLDPWD/scripts/grading/handout-status.sh" build) >"$T/out.txt" 2>&1
expect '^98-fix-sum +in progress +probe: passwd=no write=no'
reject 'home=/root/secret'
[ ! -e "$h/written-by-the-suite" ] || fail "the suite wrote into the handout"
(cd "$h" && HANDOUT_STATUS_UNSANDBOXED=1 "$OLDPWD/scripts/grading/handout-status.sh" build) >"$T/out.txt" 2>&1
expect 'no sandbox can be made here'
echo "handout-status runs the suites in the sandbox: no /etc/passwd, no HOME, the handout read-only"
