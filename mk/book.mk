# book.mk — the book, from chapters/*.md with listings pulled out of code/,
# program output from build/normlab, and numbers from build/book-numbers.

BOOK_PDF := $(BUILD)/book$(if $(filter 1,$(SOLUTIONS)),-solutions).pdf
BOOK_HTML := $(BUILD)/book$(if $(filter 1,$(SOLUTIONS)),-solutions).html
BOOK_FLAGS := $(if $(filter 1,$(SOLUTIONS)),--solutions)
BOOK_NUMBERS := $(BUILD)/book-numbers
BOOK_ENV = BOOK_NUMBERS='$(BOOK_NUMBERS)' NORMLAB=$(NORMLAB) BUILD=$(BUILD)
# Figures a chapter shows (`![...](fig-bench.pdf)`, looked up in $(BUILD)/)
# are made first: another fragment adds its target here, and the benchmark
# figure is added whenever mk/bench.mk (make figures) is present.
BOOK_PREREQS += $(if $(wildcard mk/bench.mk),figures)
BOOK_DEPS := base book

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
