#!/usr/bin/env bash
# policy.sh OBJ EXDIR — may this compiled submission be linked and run?
#
# The test runner trusts the process that decides points never to run the
# student's code (runner.c), and a test never to be lied to by the code it
# calls.  Both hold only while the code calls what an answer needs.  So,
# as the data lab's checker limits a puzzle's operators, the object may
#   - call (leave undefined) only what the real code calls, plus plain
#     libc: arithmetic, memory, strings, printing (EXDIR/allowed-undef.txt,
#     written by grade.sh from the real object and a fixed list): no other
#     kernel of the library (nl_rmsnorm_best), no files, no descriptors, no
#     processes, no signals, no exit;
#   - define as global only what the real code defines (a helper must be
#     static): a global `write` or `srunner_run_all` would replace the
#     harness's own;
#   - hold no constructor, destructor, .init/.fini code, ifunc, section a
#     C file does not make, or system-call instruction.
# This is defence in depth: no score depends on it.  The student's code
# runs only in the worker, a process of its own under seccomp (judge/), so
# an object that slips past these checks still cannot reach the verdict.
# Exit 1 with the reason in $SCRATCH/policy.txt (one line, for the student).
set -u
obj=$1 exdir=$2 why=${SCRATCH:-/tmp}/policy.txt
no() { printf '%s\n' "$*" >"$why"; exit 1; }

undef=$(nm -u "$obj" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
bad=$(comm -23 <(printf '%s\n' "$undef" | grep -v '^$') <(sort -u "$exdir/allowed-undef.txt") |
      grep -vE '^(__asan_|__ubsan_|__sanitizer_|__stack_chk_fail$|_GLOBAL_OFFSET_TABLE_$)' | head -n 5 | tr '\n' ' ')
if [ -n "$bad" ]; then
    case $bad in
    nl_*) no "your code calls ${bad% } from the library: write the computation yourself (a solution may call only what the exercise's real code calls)" ;;
    *) no "your code calls ${bad% }, which a graded answer may not use (allowed: arithmetic, memory, strings, printf/fprintf for debugging, and what the exercise's own code calls)" ;;
    esac
fi
def=$(nm -g --defined-only "$obj" | awk '{ print $NF }' | sort -u)
extra=$(comm -23 <(printf '%s\n' "$def" | grep -v '^$') <(sort -u "$exdir/allowed-def.txt") | head -n 5 | tr '\n' ' ')
[ -z "$extra" ] || no "your file defines ${extra% } as global: make helpers static (only the exercise's own functions may be global)"
# Sections: only those a C compiler makes of a plain C file.  .init and
# .fini code (spliced into _init/_fini), constructors, ifunc resolvers and
# sections of an assembler's making run before main or outside any call.
secs=$(objdump -h "$obj" | awk '$1 ~ /^[0-9]+$/ { print $2 }')
for s in $(printf '%s\n' "$secs" | grep -E '^\.(init|fini|preinit_array|init_array|fini_array|ctors|dtors)(\.|$)' | head -n 3); do
    no "your file has a $s section: code that runs before or after the calls the tests make (a constructor, destructor or .init/.fini code) is not allowed"
done
odd=$(printf '%s\n' "$secs" | grep -vE '^\.(text|data|bss|rodata|tbss|tdata|data\.rel\.ro(\.local)?)(\..*)?$|^\.(comment|eh_frame|note\.GNU-stack|note\.gnu\.property|group)$|^\.debug_|^\.gnu\.build\.attributes|^\.text\.' | head -n 3 | tr '\n' ' ')
[ -z "$odd" ] || no "your file has sections a C file does not make (${odd% }): inline assembly that places code or data of its own is not allowed"
if nm "$obj" | awk '$2 == "i"' | grep -q .; then
    no "your file defines an ifunc (a function resolved by code that runs before main): not allowed"
fi
if objdump -d --no-show-raw-insn "$obj" | grep -qE '[[:space:]](syscall|sysenter|int[[:space:]]+\$0x80|svc)([[:space:]]|$)'; then
    no "your file makes system calls directly (inline assembly): not allowed in a graded answer"
fi
exit 0
