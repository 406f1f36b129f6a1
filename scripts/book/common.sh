# common.sh — shell functions shared by the scripts that read the course's
# sources (assemble.sh, coursemap.sh, scripts/web/web.sh); sourced, not run.

# conf FILE KEY: the value of KEY in an exercise.conf, comments and blanks trimmed.
conf() { awk -v k="$2" -F= '{ sub(/#.*/, "") } { key = $1; gsub(/[ \t]/, "", key) }
    key == k { v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit }' "$1"; }

# title_of FILE: the text of its first level-1 heading, without its {#id}.
title_of() { awk '/^# / { sub(/^# /, ""); sub(/[ \t]*\{#[^}]*\}[ \t]*$/, ""); print; exit }' "$1"; }

# book_part chapters|appendices|notebook: the documents of that part of the
# book, in reading order, one a line (chapters: the preface, 00, first).
# Any part may be empty or missing.
book_part() {
    case $1 in
        chapters) ls chapters/[0-9][0-9]-*.md ;;
        appendices) ls appendices/*.md ;;
        notebook) ls notebook/*.md ;;
    esac 2>/dev/null | LC_ALL=C sort
}

# github_line: the line under every chapter's title that speaks to readers
# of the Markdown on GitHub (book/prose-rules.txt); the book drops it.
github_line() { sed -n 's/^github-line //p' book/prose-rules.txt 2>/dev/null; }
