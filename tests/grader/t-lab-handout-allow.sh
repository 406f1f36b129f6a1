#!/usr/bin/env bash
# The handout's grader may refuse no call the real code makes.  In the
# handout the allowed calls come from the stubbed code/ (what the starter
# calls) plus exercise.conf's allow key, so every library function the real
# answer calls must be in one of them: exercise 12's README says to call
# nl_residual_add, and the handout refused it ("not allowed", 0 points).
. tests/grader/lib.sh
. scripts/grading/lib.sh
EXDIR=exercises
for cfile in exercises/*/exercise.conf; do
    id=$(basename "$(dirname "$cfile")")
    for f in $(scripts/grading/exercises.sh list code | awk -v id="$id" '$1 == id { print $2 }'); do
        case $f in *.c) ;; *) continue ;; esac
        # shellcheck disable=SC2086
        flags="$cflags $(isa_flags "$f") -I$(dirname "$f") $(case $f in code/mpi/*) pkg-config --cflags ompi-c 2>/dev/null ;; esac)"
        $CC $flags -c "$f" -o "$T/real.o" || fail "$f does not compile"
        scripts/grading/exercises.sh handout "$f" >"$T/stub.c"
        $CC $flags -I"$(dirname "$f")" -c "$T/stub.c" -o "$T/stub.o" || fail "the handout's $f does not compile"
        missing=$(comm -23 <(nm -u "$T/real.o" | awk '{ print $NF }' | sed 's/@.*//' | sort -u) \
            <({ printf '%s\n' $SAFE_CALLS $(conf "$cfile" allow); nm -u "$T/stub.o" | awk '{ print $NF }' | sed 's/@.*//'; } | sort -u) |
            grep -vE '^(__stack_chk_fail|_GLOBAL_OFFSET_TABLE_)$' | tr '\n' ' ')
        [ -z "$missing" ] || { echo "FAIL: $id: the real $f calls ${missing% }, which the handout's grader would refuse (add it to $cfile's allow)"; exit 1; }
    done
done
echo "every call of the real code is allowed in the handout"
