#!/usr/bin/env bash
# The handout's list of exercises done and left (handout-status.sh, run by
# its make and make test) says what `make grade` says: an
# exercise is judged on its own code alone, every other exercise its
# untouched starter.  Here, in a build like the handout's whose exercise 02
# is a wrong answer (what a student's build holds while 02 is unfinished),
# with a correct 11 and 12: the list shows 11 and 12 done (the grader
# stages every other exercise as its starter and never links the build's
# own exercise objects), a changed file is graded again, an unchanged one
# is not; a wrong 12 shows the grader's first feedback line; and where no
# sandbox can be made, the list says it ran the suites unconfined.
. tests/grader/lib.sh
scripts/grading/sandbox.sh --probe >/dev/null 2>&1 || { echo "SKIP: no sandbox can be made here"; exit 0; }
b=$T/handout-build
handout_build "$b" || fail "cannot build the starters"
# 02 in that build: a wrong answer (it leaves y as it is)
printf '#include "normlab.h"\nint nl_rmsnorm_fused(const float *x, const float *g, const float *b, float e, size_t r, size_t d, float *y) { (void)x; (void)g; (void)b; (void)e; (void)r; (void)d; (void)y; return 0; }\n' >"$T/wrong02.c"
(. scripts/grading/lib.sh; $CC $cflags -c "$T/wrong02.c" -o "$b/obj/code/scalar/rmsnorm_fused.o") || fail "cannot build the wrong 02"
mkdir -p "$b/tests" && cp "${GRADE_BUILD:-build}"/tests/check_fused_props "${GRADE_BUILD:-build}"/tests/check_block_depth "$b/tests/" 2>/dev/null
ex=$T/exercises
cp -R exercises "$ex"
real_solution "$ex" 11-fused-add
real_solution "$ex" 12-norm-placement
status() { HANDOUT_EXERCISES=$ex scripts/grading/handout-status.sh "$b" >"$T/out.txt" 2>&1; [ -z "${SHOW:-}" ] || cat "$T/out.txt"; }

status
expect '^\(grading 11-fused-add 12-norm-placement as make grade does'
expect '^11-fused-add +done'
expect '^12-norm-placement +done'
expect '^02-rmsnorm +not started'
expect '^2 of [0-9]+ exercises done'
status                  # nothing changed: the verdicts are kept
reject '^\(grading'
expect '^12-norm-placement +done'

# A 12 begun and not finished: the starter with its TODO line gone.
cp exercises/12-norm-placement/depth.c "$ex/12-norm-placement/depth.c"
sed -i '/TODO(12-norm-placement)/d' "$ex/12-norm-placement/depth.c"
status
expect '^\(grading 12-norm-placement as make grade does'
expect '^12-norm-placement +in progress +0/10: [^ ]'
expect '^11-fused-add +done'

# No sandbox: a bwrap that cannot make one.
mkdir -p "$T/nobox" && printf '#!/bin/sh\necho "no namespaces here" >&2\nexit 1\n' >"$T/nobox/bwrap" && chmod +x "$T/nobox/bwrap"
printf '\n/* edited */\n' >>"$ex/11-fused-add/fused_add_scalar.c"
PATH=$T/nobox:$PATH status
expect 'no sandbox can be made here'
echo "handout-status: the grader's verdicts (11 and 12 done beside a wrong 02 in the build), kept until a file changes; the suites unconfined, said, without a sandbox"
