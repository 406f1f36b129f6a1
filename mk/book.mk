# book.mk — the book, from chapters/*.md with listings pulled out of code/,
# program output from build/normlab, and numbers from build/book-numbers.

BOOK_PDF := $(BUILD)/book$(if $(filter 1,$(SOLUTIONS)),-solutions).pdf
BOOK_HTML := $(BUILD)/book$(if $(filter 1,$(SOLUTIONS)),-solutions).html
BOOK_FLAGS := $(if $(filter 1,$(SOLUTIONS)),--solutions)
BOOK_NUMBERS := $(BUILD)/book-numbers
BOOK_ENV = BOOK_NUMBERS='$(BOOK_NUMBERS)' NORMLAB=$(NORMLAB) BUILD=$(BUILD)
BOOK_DEPS := base book

# The recipe of a figure gnuplot draws from a .dat: the rule's target is
# FIG.pdf, its first prerequisite the data, its second the script.  One
# recipe draws the PDF and the PNG, so a parallel make does not draw them
# twice (FIG.png depends on FIG.pdf with no recipe of its own).
define gnuplot_pdf_png
	@command -v gnuplot >/dev/null 2>&1 || { echo "$(notdir $(basename $@)): gnuplot is not installed; scripts/setup/deps.sh bench installs it" >&2; exit 1; }
	gnuplot -e "data='$<'; out='$(basename $@).pdf'; term='pdf'" $(word 2,$^)
	gnuplot -e "data='$<'; out='$(basename $@).png'; term='png'" $(word 2,$^)
endef

# Every figure drawn at build time that a document shows
# (`![...](fig-NAME.pdf)`, looked up in $(BUILD)/) is made before pandoc
# runs, by the rule that draws it (mk/bench.mk, mk/block.mk, ...): the
# PDF needs the file named, the HTML page and the web edition its PNG. A figure no rule
# draws stops the build, naming the document and line that show it (the
# two pattern rules below are the last resort make finds). Another
# fragment may still add a target of its own to BOOK_PREREQS.
ifneq ($(filter book-only html-only web-only,$(MAKECMDGOALS)),)
BOOK_FIGURES := $(shell scripts/book/figures.sh names)
endif
book-only: $(addprefix $(BUILD)/,$(BOOK_FIGURES))
html-only web-only: $(addprefix $(BUILD)/,$(addsuffix .png,$(basename $(BOOK_FIGURES))))
$(BUILD)/fig-%.pdf: $(BUILD)/fig-%.png
	@BUILD=$(BUILD) scripts/book/figures.sh missing $@
$(BUILD)/fig-%.png:
	@BUILD=$(BUILD) scripts/book/figures.sh missing $@

.PHONY: book html book-only html-only

$(BOOK_NUMBERS): $(BUILD)/obj/scripts/book/book-numbers.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Packages first, then a fresh make, as `all` does: pkg-config's flags are
# read when make starts.
## book — build/book.pdf with pandoc + xelatex (SOLUTIONS=1: build/book-solutions.pdf, with the answer key)
book:
	@scripts/setup/deps.sh $(BOOK_DEPS)
	@$(MAKE) --no-print-directory book-only
book-only: $(BOOK_NUMBERS) $(NORMLAB) $(BOOK_PREREQS)
	@$(BOOK_ENV) scripts/book/book.sh pdf $(BOOK_PDF) $(BOOK_FLAGS)

## html — build/book.html, one self-contained page (SOLUTIONS=1 as for book)
html:
	@scripts/setup/deps.sh $(BOOK_DEPS)
	@$(MAKE) --no-print-directory html-only
html-only: $(BOOK_NUMBERS) $(NORMLAB) $(BOOK_PREREQS)
	@$(BOOK_ENV) scripts/book/book.sh html $(BOOK_HTML) $(BOOK_FLAGS)

# The book's style alone, as the prose suite checks it in `make test`:
# every problem of chapters/, appendices/ and notebook/, one line each.
.PHONY: prose
## prose — check the book against book/STYLE.md (patterns and budgets: book/prose-rules.txt); prints FILE:LINE: RULE: what is wrong
prose: $(BUILD)/tests/check_prose $(NORMLAB)
	@CK_RUN_CASE=book NL_SUITE_NAME=prose $(BUILD)/tests/check_prose
