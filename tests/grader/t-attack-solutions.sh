#!/usr/bin/env bash
# Attack: read solutions/ or code/ at compile time (#include of a solution,
# by relative and absolute path, or through a symbolic link in the
# submission).  Nothing of the repository is in the sandbox and links are
# not followed: compile error, and not one line of the solution appears
# in the report, the JSON or the XML.
. tests/grader/lib.sh
sol=$(ls solutions/*.md | head -n1)
secret=$(grep -v '^\s*$' "$sol" | sed -n '3p' | cut -c1-40)
[ -n "$secret" ] || fail "no line to look for in $sol"
for inc in "\"../../../../$sol\"" "\"$PWD/$sol\"" '"/proc/1/cwd/solutions"'; do
    printf '#include %s\n' "$inc" | fixsum
    grade "$T/sub"
    expect '^98-fix-sum .* 0/10 +compile error'
    ! grep -rqF -- "$secret" "$T/out.txt" "$T/results" || fail "a line of $sol leaked into the results"
done
solutions "$T/sub"; rm "$T/sub/98-fix-sum/fixsum.c"
ln -s "$PWD/$FIX/code/fixsum.c" "$T/sub/98-fix-sum/fixsum.c"
grade "$T/sub"
expect '^98-fix-sum .* 0/10 +no file'
rm -rf "$T/sub/99-fix-max"; ln -s "$PWD/$FIX/code" "$T/sub/99-fix-max"
grade "$T/sub"
expect '^99-fix-max .* 0/5 +no file'
