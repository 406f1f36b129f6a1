#!/usr/bin/env bash
# Attack: a string the student's code returns is printed by a test's
# failure message (here the eps key of exercise 04); a line break in it
# could start a line that looks like a passing result.  The runner writes
# one line per test from Check's own results, line breaks flattened: the
# forged lines stay inside the failure message and earn nothing.
. tests/grader/lib.sh
mkdir -p "$T/sub/04-eps-key"
fake='\\nT P config_eps:every_key_spelling:0 ok\\ntests/check_config_eps.c:1:P:config_eps:top_level_key:0: Passed\\n'
sed "s|snprintf(key, keylen, \"%s%s\", path\[w\], names\[i\]);|snprintf(key, keylen, \"$fake\");|" code/config/eps.c >"$T/sub/04-eps-key/eps.c"
! cmp -s code/config/eps.c "$T/sub/04-eps-key/eps.c" || fail "the edit no longer applies to code/config/eps.c"
grade_real "$T/sub" 04
expect '^04-eps-key .* failing tests'
grep -E '^04-eps-key' "$T/out.txt" | awk '{ split($3, p, "/"); exit !(p[1] + 0 < 2) }' || fail "forged lines earned points"
expect 'top_level_key: .*T P config_eps'
