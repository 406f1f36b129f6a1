#!/usr/bin/env bash
# The reference objects say which architecture they were compiled for as
# the compiler says it (issue 21: machine.txt held `uname -m`, this
# machine's, which a cross build's aarch64 objects are not), and the
# grader uses them only where its compiler builds for that architecture:
# elsewhere it says so and grades with the student's own build.
. tests/grader/lib.sh
. scripts/grading/lib.sh
mkdir -p "$T/ref/obj" "$T/build/obj" "$T/bin"
# A cross compiler as far as the grader asks it (none need be installed).
printf '#!/bin/sh\n[ "$1" = -dumpmachine ] && echo aarch64-linux-gnu\n' >"$T/bin/aarch64-linux-gnu-gcc"
chmod +x "$T/bin/aarch64-linux-gnu-gcc"
printf 'x86_64\n' >"$T/ref/machine.txt"
got=$(CC=$T/bin/aarch64-linux-gnu-gcc; REFERENCE=$T/ref reference_build "$T/build" "$T/overlay" 2>"$T/out.txt")
[ "$got" = "$T/build" ] || fail "x86_64 objects were used for an aarch64 compiler (got $got)"
expect 'reference objects are for x86_64, .*aarch64-linux-gnu-gcc here builds for aarch64'
printf '%s\n' "$(target_arch)" >"$T/ref/machine.txt"     # this compiler's
got=$(REFERENCE=$T/ref reference_build "$T/build" "$T/overlay" 2>"$T/out.txt")
[ "$got" = "$T/overlay" ] || fail "the objects for this compiler's architecture were not used (got $got)"
# handout-reference.sh records the compiler's target, not this machine's.
grep -q '^target_arch >"$dest/machine.txt"$' scripts/grading/handout-reference.sh || fail "handout-reference.sh does not record target_arch"
echo "reference objects: recorded and matched by the compiler's target architecture, not uname -m"
