#!/usr/bin/env bash
# make-zip.sh OUT.zip — the Gradescope autograder: setup.sh and
# run_autograder at the root (as Gradescope requires), beside the course's
# tree without solutions/ (the grader needs code/, tests/, exercises/ and
# scripts/; the answers it grades against are the tests, not solutions/).
set -eu
out=${1:-build/gradescope.zip}
here=$(cd "$(dirname "$0")" && pwd)
command -v zip >/dev/null || { echo "gradescope: zip is not installed (scripts/setup/deps.sh grading)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
git ls-files --cached --others --exclude-standard | grep -v -e '^solutions/' -e '^build' |
    while IFS= read -r f; do
        [ -f "$f" ] || continue
        mkdir -p "$tmp/$(dirname "$f")" && cp -p "$f" "$tmp/$f"
    done
# A lab's autograder (LAB=09,10) grades that lab's exercises alone.
[ -z "${LAB:-}" ] || printf '%s\n' "$LAB" >"$tmp/lab.txt"
cp "$here/setup.sh" "$here/run_autograder" "$tmp/"
chmod +x "$tmp/setup.sh" "$tmp/run_autograder"
mkdir -p "$(dirname "$out")"; rm -f "$out"
abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
(cd "$tmp" && zip -qr "$abs" .)
unzip -l "$out" | grep -q ' setup.sh$' && unzip -l "$out" | grep -q ' run_autograder$' ||
    { echo "gradescope: setup.sh or run_autograder missing from $out" >&2; exit 1; }
! unzip -l "$out" | grep -q ' solutions/' || { echo "gradescope: solutions/ is in $out" >&2; exit 1; }
echo "gradescope: $out ($(unzip -l "$out" | tail -n1 | awk '{ print $2 }') files; upload it as the autograder)"
