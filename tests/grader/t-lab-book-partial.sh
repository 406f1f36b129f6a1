#!/usr/bin/env bash
# A student's book builds whatever is done (make web and
# make book stopped at chapter 10 of a fresh handout, where the embedded
# `normlab gradcheck` exits 1 until 08 and 13 are done).  In the handout
# (its mk/zz-handout.mk sets NORMLAB_BOOK_PARTIAL=1) a failing embedded run
# is shown with what it printed and a note; in the course it still stops
# the book.
. tests/grader/lib.sh
command -v pandoc >/dev/null || { echo "skip: no pandoc here"; exit 0; }
printf '#!/bin/sh\necho "rows checked: 3"\nexit 1\n' >"$T/normlab" && chmod +x "$T/normlab"
printf '# A chapter\n\n```{.text command="normlab gradcheck --rows 16"}\n```\n' >"$T/c.md"
NORMLAB=$T/normlab NORMLAB_BOOK_PARTIAL=1 pandoc --lua-filter book/snippets.lua -t html "$T/c.md" -o "$T/c.html" 2>"$T/out.txt" ||
    fail "the handout's book stopped at a failing run"
grep -q 'rows checked: 3' "$T/c.html" || fail "the run's output is not in the page"
grep -q 'exits 1 on your code' "$T/c.html" || fail "the page does not say the run failed"
expect 'exits 1 on your code'
! NORMLAB=$T/normlab pandoc --lua-filter book/snippets.lua -t html "$T/c.md" -o "$T/c2.html" 2>/dev/null ||
    fail "in the course a failing run no longer stops the book"
mkdir -p "$T/tree" && cp -R Makefile README.md mk scripts exercises code "$T/tree/"
scripts/grading/handout-tree.sh "$T/tree" || fail "handout-tree.sh failed"
grep -q '^export NORMLAB_BOOK_PARTIAL := 1$' "$T/tree/mk/zz-handout.mk" || fail "the handout does not set NORMLAB_BOOK_PARTIAL"
echo "the handout's book shows a failing run, marked; the course's still stops"
