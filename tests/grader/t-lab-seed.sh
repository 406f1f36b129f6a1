#!/usr/bin/env bash
# make handout SEED=N: the handout's make test draws
# its random inputs from another seed, the same distributions.  The
# harness's nl_fill_gauss moves with NL_TEST_SEED (unset and 0: the
# course's inputs) or with the seed the grader hands a suite on a pipe
# (NL_SEED_FD), and the handout's mk/zz-handout.mk exports it; a SEED
# that is not a number is refused.
. tests/grader/lib.sh
. scripts/grading/lib.sh
: >"$T/out.txt"
cat >"$T/draw.c" <<'C'
#include <stdio.h>
#include "harness.h"
Suite *nl_suite(void) { return NULL; }
int main(void)
{
    float x[4];
    nl_take_seed();
    nl_fill_gauss(x, 4, 0.0, 1.0, 41);
    printf("%a %a %a %a\n", (double)x[0], (double)x[1], (double)x[2], (double)x[3]);
    return 0;
}
C
# shellcheck disable=SC2086
$CC $cflags -Itests/harness -Dmain=nl_harness_main -c tests/harness/harness.c -o "$T/harness.o" &&
    $CC $cflags -Itests/harness -c "$T/draw.c" -o "$T/draw.o" &&
    $CC "$T/draw.o" "$T/harness.o" -o "$T/draw" "${GRADE_BUILD:-build}/libnormlab.a" $GRADE_CHECK_LIBS $GRADE_LDLIBS || fail "cannot build the probe"
base=$(env -u NL_TEST_SEED "$T/draw"); zero=$(NL_TEST_SEED=0 "$T/draw")
a=$(NL_TEST_SEED=2027 "$T/draw"); b=$(NL_TEST_SEED=2028 "$T/draw"); a2=$(NL_TEST_SEED=2027 "$T/draw")
[ "$base" = "$zero" ] || fail "NL_TEST_SEED=0 changed the course's inputs"
[ "$a" != "$base" ] && [ "$a" != "$b" ] || fail "NL_TEST_SEED does not move the inputs ($base / $a / $b)"
[ "$a" = "$a2" ] || fail "the same seed drew different inputs"
# The grader's way: the seed on a pipe (NL_SEED_FD), not in the environment.
p=$(NL_SEED_FD=5 "$T/draw" 5< <(echo 2027))
[ "$p" = "$a" ] || fail "the seed on a pipe drew other inputs than NL_TEST_SEED ($p / $a)"
mkdir -p "$T/tree" && cp -R Makefile README.md mk scripts exercises code "$T/tree/"
SEED=2027 scripts/grading/handout-tree.sh "$T/tree" || fail "handout-tree.sh failed"
grep -q '^export NL_TEST_SEED := 2027$' "$T/tree/mk/zz-handout.mk" || fail "the handout does not export its seed"
! SEED='1; rm -rf /' scripts/grading/handout-tree.sh "$T/tree" 2>/dev/null || fail "a SEED that is not a number was taken"
echo "SEED: the inputs move with it, 0 keeps the course's, the handout exports it"
