#!/usr/bin/env bash
# protected.sh — the checksums of a handout's protected files
# (protected-paths.txt), and a repository compared with them.
#
#   protected.sh write TREE        TREE/scripts/grading/protected.sha256:
#                                  "SHA256  PATH" for every protected file
#   protected.sh check TREE SUMS   one line per difference ("changed PATH",
#                                  "missing PATH", "added PATH": a new file
#                                  where only the handout's may be, such as
#                                  mk/*.mk, which the Makefile includes);
#                                  exit 1 if there is any
#
# The list a repository carries can be edited with the rest, so `check`
# takes SUMS from the instructor's side: the copy exercises-handout.sh
# leaves beside the tarball.  The checksum file itself is not protected
# by itself (it is the list), and neither is anything git ignores (build/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
patterns() { grep -v -e '^#' -e '^[[:space:]]*$' "$here/protected-paths.txt"; }
protected() {   # the protected files under TREE, relative, sorted
    local re
    re=$(patterns | sed -e 's/[.+?(){}|^$]/\\&/g' -e 's/\*\*/*/g' -e 's/\*/.*/g' -e 's/.*/^&$/' | paste -sd'|' -)
    (cd "$1" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||') |
        grep -Ex "$re" | grep -vx 'scripts/grading/protected\.sha256' | LC_ALL=C sort
}
case ${1:-} in
write)
    tree=$2
    list=$(protected "$tree") || exit 2
    printf '%s\n' "$list" | (cd "$tree" && tr '\n' '\0' | xargs -0 sha256sum --) >"$tree/scripts/grading/protected.sha256" ;;
check)
    tree=$2 sums=$3
    [ -f "$sums" ] || { echo "protected: no checksums in '$sums'" >&2; exit 2; }
    # Each side as "SHA256  PATH" lines, compared by path.
    cur=$(mktemp "${TMPDIR:-/tmp}/normlab-protected.XXXXXX") || exit 2
    protected "$tree" | (cd "$tree" && tr '\n' '\0' | xargs -0 -r sha256sum --) >"$cur"
    LC_ALL=C awk 'FNR == NR { want[substr($0, 67)] = $1; next }
        { have[substr($0, 67)] = $1 }
        END {
            for (f in want) if (!(f in have)) print "missing " f; else if (have[f] != want[f]) print "changed " f
            for (f in have) if (!(f in want)) print "added " f
        }' "$sums" "$cur" | LC_ALL=C sort -k2 >"$cur.diff"
    cat "$cur.diff"
    [ -s "$cur.diff" ] && bad=1 || bad=0
    rm -f "$cur" "$cur.diff"
    exit $bad ;;
*) echo "usage: protected.sh write TREE | check TREE SUMS" >&2; exit 2 ;;
esac
