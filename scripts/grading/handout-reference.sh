#!/usr/bin/env bash
# handout-reference.sh DEST — the reference objects the handout grades
# with: every .c file an exercise grades, compiled from the real code/ of
# this tree with the grader's flags (lib.sh: the Makefile's, less -Werror
# and sanitizers), debug information stripped, into DEST/obj/<path>.o,
# and DEST/machine.txt (the architecture $CC builds for, lib.sh's
# target_arch: a cross build's objects are not this machine's) so that a
# handout built for another architecture knows they cannot link there.
# No source is written.  lib.sh's reference_build puts them in place of
# the student's objects of the other exercises when the handout grades
# one exercise.
#
# An exercise whose file is not C (08's reduce.cl, OpenCL C compiled at run
# time) has no object to ship without its source: DEST/not-shipped.txt
# names it, and the handout's README says what that means.
set -eu
dest=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
mkdir -p "$dest/obj"
: >"$dest/not-shipped.txt"
"$here/exercises.sh" list code | while read -r id file; do
    case $file in
    *.c) ;;
    *) printf '%s %s\n' "$id" "$file" >>"$dest/not-shipped.txt"; continue ;;
    esac
    o=$dest/obj/${file%.c}.o
    mkdir -p "$(dirname "$o")"
    # shellcheck disable=SC2046,SC2086
    # -g0 after the grader's flags: no debug information (no source lines)
    # is written, with any compiler, so no objcopy that knows the target.
    if ! $CC $cflags -g0 $(isa_flags "$file") -I"$(dirname "$file")" $(case $file in code/mpi/*) pkg-config --cflags ompi-c 2>/dev/null ;; esac) -c "$file" -o "$o"; then
        # Exercise 14 needs Open MPI's mpi.h for this compiler (an aarch64
        # cross build has none): like 08, it is then not shipped, and said.
        case $file in
        code/mpi/*) echo "handout: the reference of $id ($file) needs Open MPI's headers for $CC: not shipped" >&2
                    printf '%s %s\n' "$id" "$file" >>"$dest/not-shipped.txt"; continue ;;
        esac
        echo "handout: the reference of $id ($file) does not compile" >&2; exit 1
    fi
done
target_arch >"$dest/machine.txt"
