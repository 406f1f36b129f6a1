#!/usr/bin/env bash
# Switching make targets must not rebuild the tree (75-114 files, 15-25 s on 2 cores).  The flags stamp, which every object
# depends on, must hold the same flags whichever object asks for it first:
# a test object (-Itests/harness), an MPI one, or a library one.  Read
# from make -n in an empty build folder, so nothing is built.
. tests/grader/lib.sh
b=$T/b; : >"$T/out.txt"
stamp_via() { make -n --no-print-directory BUILD="$b" "$1" 2>/dev/null | grep -m1 "printf '%s' .* > $b/.flags" ; }
lib=$(stamp_via "$b/obj/code/core/error.o")
[ -n "$lib" ] || fail "no flags stamp in make -n's plan"
for o in "$b/obj/tests/check_half_cast.o" "$b/obj/code/mpi/chan_op.o" "$b/obj/code/bench/copy_kernel.o"; do
    [ "$(stamp_via "$o")" = "$lib" ] || fail "the stamp reached through ${o#"$b"/} differs: $(diff <(tr ' ' '\n' <<<"$lib") <(tr ' ' '\n' <<<"$(stamp_via "$o")") | tr '\n' ' ')"
done
echo "one flags stamp whichever target comes first"
