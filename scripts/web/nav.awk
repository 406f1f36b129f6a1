# nav.awk — the navigation of one page of the web edition, from the page
# list scripts/web/web.sh writes ("SOURCE PAGE KIND LABEL|TITLE" lines, in
# reading order; KIND is index, preface, chapter, exercise, solution,
# appendix or notebook). Variables: cur, the page being made; mode, "toc"
# (the course contents, this page marked) or "pager" (previous and next
# page).
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
    if (kind[i] == "preface") return title[i]
    if (kind[i] == "chapter") return label[i] ". " title[i]
    if (kind[i] == "appendix") return "Appendix " label[i] ": " title[i]
    if (kind[i] == "notebook") return "Lab notebook: " title[i]
    return (kind[i] == "exercise" ? "Exercise " : "Solution ") label[i] ": " title[i]
}
function mark(i) { return page[i] == cur ? " class=\"current\" aria-current=\"page\"" : "" }
# A page of the contents' first level: the preface, a chapter, an
# appendix, a notebook page. Exercises and solutions go under their chapter.
function top(i) { return kind[i] != "exercise" && kind[i] != "solution" }
function close_item() {
    if (open) print "</ol></li>"; else if (started) print "</li>"
    open = 0; started = 0
}
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
    open = 0; started = 0; part = ""
    for (i = 1; i <= NR; i++) {
        if (kind[i] == "index") continue
        if (top(i)) {
            close_item()
            # the appendices and the notebook under a heading of their own
            if ((kind[i] == "appendix" || kind[i] == "notebook") && part != kind[i]) {
                printf "<li class=\"part\" role=\"presentation\">%s</li>\n", kind[i] == "appendix" ? "Appendices" : "Lab notebook (optional)"
            }
            part = kind[i]
            num = kind[i] == "chapter" || kind[i] == "appendix" ? label[i] : ""
            printf "<li><a href=\"%s\"%s><span class=\"num\">%s</span> %s</a>\n", page[i], mark(i), num, esc(title[i])
            started = 1
            continue
        }
        if (!open) { print "<ol class=\"sub\">"; open = 1 }
        printf "<li><a href=\"%s\"%s>%s</a></li>\n", page[i], mark(i), esc(name(i))
    }
    close_item()
    print "</ol>"
    print "</nav>"
}
