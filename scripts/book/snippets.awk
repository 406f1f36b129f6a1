# snippets.awk — the one parser of the region markers in source files
# (CONTRIBUTING.md, "Markers in source"). Every derived output goes through
# it: book listings, exercise starters, the student handout and the checks,
# so they cannot disagree about where a region starts or ends.
#
#   awk -v mode=list    FILE...   one line per region: KIND NAME FILE FIRST LAST
#                                 (FIRST..LAST = body lines, markers excluded)
#   awk -v mode=show -v name=N FILE...   body of snippet N, marker lines dropped
#   awk -v mode=starter FILE      the file for a student: every exercise
#                                 region becomes a TODO plus its @stub lines,
#                                 and no marker line is left
#   awk -v mode=handout FILE      like starter, but the markers stay, so the
#                                 stubbed file still carries its snippets and
#                                 regenerates the same starter
#
# Markers are comment lines: `// @snippet NAME`, `/* @snippet NAME */`,
# `# @snippet NAME`, then `@exercise NN-slug`, `@stub CODE`, `@end`.
# Regions nest (a snippet may hold an exercise); @end closes the innermost.
# Errors go to stderr as FILE:LINE: message, and the exit status is 1.

function marker(line,    m) {
    # Sets M_KIND, M_ARG, M_INDENT when `line` is a marker; returns 1 then.
    if (!match(line, /^[ \t]*(\/\/|\/\*|#)[ \t]*@(snippet|exercise|stub|end)([ \t]|\*\/|$)/))
        return 0
    M_INDENT = line; sub(/[^ \t].*$/, "", M_INDENT)
    m = line
    block = (m ~ /^[ \t]*\/\*/)
    sub(/^[ \t]*(\/\/|\/\*|#)[ \t]*@/, "", m)
    # Only a /* marker */ ends in a comment closer of its own; a // @stub
    # line may end in a comment that belongs to the stub code.
    if (block) sub(/[ \t]*\*\/[ \t]*$/, "", m)
    M_KIND = m; sub(/[ \t].*$/, "", M_KIND)
    M_ARG = m; sub(/^[^ \t]*[ \t]*/, "", M_ARG)
    if (M_KIND != "stub") sub(/[ \t]+$/, "", M_ARG)
    return 1
}
function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    bad = 1
}
function close_file(    k) {
    for (k = depth; k >= 1; k--)
        printf "%s:%d: @%s %s is never closed by @end\n", prevfile, open_line[k], kind[k], rname[k] > "/dev/stderr"
    if (depth) bad = 1
    depth = 0; in_ex = 0
}
function todo(id, indent) {
    return indent "/* TODO(" id "): your code here; see exercises/" id "/README.md */"
}
FNR == 1 { if (NR > 1) close_file(); prevfile = FILENAME }
{
    is_marker = marker($0)
    if (is_marker && M_KIND == "snippet" || is_marker && M_KIND == "exercise") {
        if (M_ARG == "" || M_ARG ~ /[ \t]/) { fail("@" M_KIND " needs one name, got '" M_ARG "'"); next }
        if (M_KIND == "exercise" && M_ARG !~ /^[0-9][0-9]-[a-z0-9-]+$/) { fail("exercise id '" M_ARG "' is not NN-slug"); next }
        if (M_KIND == "exercise" && in_ex) { fail("@exercise " M_ARG " inside another exercise region"); next }
        depth++; kind[depth] = M_KIND; rname[depth] = M_ARG; open_line[depth] = FNR
        if (M_KIND == "exercise") {
            in_ex = depth; ex_id = M_ARG
            if (mode == "starter") print todo(M_ARG, M_INDENT)
            if (mode == "handout") { print; print todo(M_ARG, M_INDENT) }
        } else if (mode == "handout" && !in_ex) print
        next
    }
    if (is_marker && M_KIND == "stub") {
        if (!in_ex) { fail("@stub outside an @exercise region"); next }
        if (mode == "starter") print M_INDENT M_ARG
        # The handout keeps the marker (so the starter regenerates) and the
        # stub code (so the file compiles and behaves as the starter does).
        if (mode == "handout") { print; print M_INDENT M_ARG }
        next
    }
    if (is_marker && M_KIND == "end") {
        if (!depth) { fail("@end without an open region"); next }
        if (mode == "list")
            print kind[depth], rname[depth], FILENAME, open_line[depth] + 1, FNR - 1
        if (kind[depth] == "snippet" && rname[depth] == name && mode == "show") showing = 0
        if (depth == in_ex) { in_ex = 0; if (mode == "handout") print }
        else if (mode == "handout" && !in_ex) print
        depth--
        next
    }
    if (mode == "show") {
        for (k = 1; k <= depth; k++)
            if (kind[k] == "snippet" && rname[k] == name) { print; found = 1; break }
        next
    }
    if ((mode == "starter" || mode == "handout") && !in_ex) print
}
END {
    if (NR > 0) close_file()
    if (mode == "show" && !found) {
        printf "snippet %s not found\n", name > "/dev/stderr"
        exit 3
    }
    exit bad
}
