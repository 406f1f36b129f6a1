#!/usr/bin/env bash
# A handout holds no answer in any form: make handout
# and make handout LAB=02,11 pass handout-audit.sh (exercises-handout.sh
# runs it on every tarball), hold no object, archive or self-test; and the
# audit has teeth: copies of the handout with an answer in each form it
# looks for are each refused, naming the file and the exercise:
#   reference   the objects the handout used to ship (every exercise's
#               file compiled and stripped, scripts/grading/reference/obj)
#   renamed     one of them under a data file's name
#   archive     a static library (ar) of one; a tar.gz of a source
#   blob        exercise 02's machine code alone, as raw bytes in a .bin
#   bytes       exercise 09's machine code as a C byte list in a .c file
#   string      exercise 13's answer as a C string literal in a test
. tests/grader/lib.sh
. scripts/grading/lib.sh
for lab in "" 02,11; do
    LAB=$lab scripts/grading/exercises-handout.sh "$T/h.tar.gz" >"$T/out.txt" 2>&1 || fail "make handout${lab:+ LAB=$lab} failed"
    expect 'no answer in any form'
    rm -rf "$T/x" && mkdir -p "$T/x" && tar -xzf "$T/h.tar.gz" -C "$T/x"
    [ -z "$(find "$T/x" -name '*.o' -o -name '*.a' -o -name '*.so')" ] || fail "the handout${lab:+ of LAB=$lab} holds objects"
    [ ! -e "$T/x/normlab/tests/grader" ] || fail "the handout holds the grader's self-tests (they write answers to grade)"
    [ -s "$T/h.protected.sha256" ] || fail "no checksums of the protected files beside the tarball"
    cmp -s "$T/h.protected.sha256" "$T/x/normlab/scripts/grading/protected.sha256" || fail "the two lists of checksums differ"
done
h=$T/x/normlab
audit() { scripts/grading/handout-audit.sh "$1" >"$T/out.txt" 2>&1; }
audit "$h" || fail "the audit finds an answer in the LAB=02,11 handout"
variant() { rm -rf "$T/v" && cp -R "$h" "$T/v"; }
real_obj() {    # real_obj ID OUT: the exercise's real file as the grader compiles it
    local f; f=$(scripts/grading/exercises.sh list code | awk -v id="$1" '$1 == id { print $2 }')
    # shellcheck disable=SC2086
    $CC $cflags -g0 $(isa_flags "$f") -I"$(dirname "$f")" -c "$f" -o "$2"
}
# reference: what the handout shipped before
variant
scripts/grading/exercises.sh list code | while read -r id f; do
    case $f in code/mpi/*|*.cl) continue ;; esac
    mkdir -p "$T/v/scripts/grading/reference/obj/$(dirname "$f")"
    real_obj "$id" "$T/v/scripts/grading/reference/obj/${f%.c}.o"
done
! audit "$T/v" || fail "the audit passed a handout with the reference objects"
expect '^scripts/grading/reference/obj/code/scalar/rmsnorm_fused.o: an ELF object'
expect "^scripts/grading/reference/obj/code/block/fused_add_scalar.o: the machine code of .*exercise 11-fused-add's answer"
# renamed
variant; real_obj 02-rmsnorm "$T/v/tests/fixtures/weights.dat"
! audit "$T/v" || fail "an object named .dat passed"
expect "^tests/fixtures/weights.dat: an ELF object"
expect "^tests/fixtures/weights.dat: the machine code of nl_rmsnorm_fused, exercise 02-rmsnorm's answer"
# archive: a static library, and a packed source
variant; real_obj 11-fused-add "$T/fused.o"; ar rcs "$T/v/libextra.a" "$T/fused.o"
tar -czf "$T/v/tests/fixtures/notes.tgz" -C code/precision bf16.c
! audit "$T/v" || fail "an archive passed"
expect '^libextra.a: an ar archive'
expect '^tests/fixtures/notes.tgz: a gzip stream'
# blob: the raw bytes of 02's function, nothing else
variant; real_obj 02-rmsnorm "$T/r.o"
objcopy -O binary --only-section=.text "$T/r.o" "$T/v/tests/fixtures/blob.bin"
! audit "$T/v" || fail "raw machine code passed"
expect "^tests/fixtures/blob.bin: the machine code of nl_rmsnorm_fused, exercise 02-rmsnorm's answer"
# bytes: 09's function as a C byte list
variant; real_obj 09-bf16-round "$T/b.o"
objcopy -O binary --only-section=.text "$T/b.o" "$T/b.bin"
{ echo 'static const unsigned char code[] = {'; od -An -tx1 -v "$T/b.bin" | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1, /g'; echo '};'; } >"$T/v/tests/table.c"
! audit "$T/v" || fail "machine code as a byte list passed"
expect "^tests/table.c: the machine code of nl_bf16_from_float, exercise 09-bf16-round's answer"
# string: 13's answer lines as a string literal
variant
awk -v mode=list -f scripts/book/snippets.awk code/backward/rmsnorm_bwd_fused.c |
    awk '$1 == "exercise" { print $4, $5 }' | { read -r a b; sed -n "$((a + 1)),$((b - 1))p" code/backward/rmsnorm_bwd_fused.c; } |
    grep -v '@stub' | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/' >"$T/lines"
{ echo 'static const char *answer ='; cat "$T/lines"; echo ';'; } >"$T/v/tests/check_notes.c"
! audit "$T/v" || fail "an answer in a string literal passed"
expect "^tests/check_notes.c: [0-9]+ lines in a row of exercise 13-rmsnorm-backward's answer"
echo "handouts (all, LAB=02,11): no answer; the audit refuses objects, renamed ones, archives, raw and spelled machine code, answers in strings"
