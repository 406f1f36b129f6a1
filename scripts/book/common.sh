# common.sh — shell functions shared by the scripts that read the course's
# sources (assemble.sh, coursemap.sh, scripts/web/web.sh); sourced, not run.

# conf FILE KEY: the value of KEY in an exercise.conf, comments and blanks trimmed.
conf() { awk -v k="$2" -F= '{ sub(/#.*/, "") } { key = $1; gsub(/[ \t]/, "", key) }
    key == k { v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit }' "$1"; }

# title_of FILE: the text of its first level-1 heading, without its {#id}.
title_of() { awk '/^# / { sub(/^# /, ""); sub(/[ \t]*\{#[^}]*\}[ \t]*$/, ""); print; exit }' "$1"; }
