# nav.awk — the navigation of one page of the web edition, from the page
# list scripts/web/web.sh writes ("SOURCE PAGE KIND LABEL|TITLE" lines, in
# reading order). Variables: cur, the page being made; mode, "toc" (the
# course contents, this page marked) or "pager" (previous and next page).
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
{
    page[NR] = $2; kind[NR] = $3
    rest = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", rest)
    label[NR] = rest; sub(/\|.*/, "", label[NR])
    title[NR] = rest; sub(/^[^|]*\|/, "", title[NR])
    if ($2 == cur) at = NR
}
function name(i) {
    if (kind[i] == "index") return "Contents"
    if (kind[i] == "chapter") return label[i] ". " title[i]
    return (kind[i] == "exercise" ? "Exercise " : "Solution ") label[i] ": " title[i]
}
function mark(i) { return page[i] == cur ? " class=\"current\" aria-current=\"page\"" : "" }
END {
    if (mode == "pager") {
        print "<nav class=\"pager\" aria-label=\"Previous and next page\">"
        if (at > 1) printf "<a class=\"prev\" rel=\"prev\" href=\"%s\"><span>Previous</span>%s</a>\n", page[at - 1], esc(name(at - 1))
        else print "<span></span>"
        if (at < NR) printf "<a class=\"next\" rel=\"next\" href=\"%s\"><span>Next</span>%s</a>\n", page[at + 1], esc(name(at + 1))
        print "</nav>"
        exit
    }
    print "<nav id=\"toc\" class=\"toc\" aria-label=\"Course contents\">"
    print "<p class=\"toc-title\"><a href=\"index.html\">One Word Less</a></p>"
    print "<ol>"
    open = 0; started = 0
    for (i = 1; i <= NR; i++) {
        if (kind[i] == "index") continue
        if (kind[i] == "chapter") {
            if (open) print "</ol></li>"; else if (started) print "</li>"
            printf "<li><a href=\"%s\"%s><span class=\"num\">%s</span> %s</a>\n", page[i], mark(i), label[i], esc(title[i])
            started = 1; open = 0
            continue
        }
        if (!open) { print "<ol class=\"sub\">"; open = 1 }
        printf "<li><a href=\"%s\"%s>%s</a></li>\n", page[i], mark(i), esc(name(i))
    }
    if (open) print "</ol></li>"; else if (started) print "</li>"
    print "</ol>"
    print "</nav>"
}
