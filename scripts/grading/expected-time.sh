#!/bin/sh
# expected-time.sh [ID...] — "ID MINUTES LINES" for each exercise (all
# without IDs): the time to plan for it, by the rule the lab sheet and the
# READMEs state: 30 minutes (reading the README and the chapter's section,
# building, running make grade) plus 3 minutes per line of the course's own
# answer (LINES: the lines of its @exercise regions).  A rule of thumb for
# planning, not a measurement of students.
set -eu
here=$(dirname "$0")
"$here/exercises.sh" list code | while read -r id file; do
    awk -v mode=list -f "$here/../book/snippets.awk" "$file" |
        awk -v id="$id" '$1 == "exercise" && $2 == id { n += $5 - $4 + 1 } END { print id, n + 0 }'
done | awk '{ n[$1] += $2 } END { for (id in n) print id, 30 + 3 * n[id], n[id] }' | LC_ALL=C sort |
    if [ $# -gt 0 ]; then grep -E "^($(printf '%s|' "$@" | sed 's/|$//'))[ -]"; else cat; fi
