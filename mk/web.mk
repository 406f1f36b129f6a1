# web.mk — the web edition: build/web/, one page per chapter and exercise,
# from the same chapters, snippets, numbers and command output as the book
# (mk/book.mk), and its test in a real browser.

WEB_DIR := $(BUILD)/web$(if $(filter 1,$(SOLUTIONS)),-solutions)
WEB_SHOTS := $(BUILD)/web-shots$(if $(filter 1,$(SOLUTIONS)),-solutions)
WEB_DEPS := base web

.PHONY: web web-only web-test web-test-only

## web — build/web/index.html: the course as web pages (chapters, exercises, course map, search), offline; SOLUTIONS=1: build/web-solutions/ with the answers
web:
	@scripts/setup/deps.sh $(WEB_DEPS)
	@$(MAKE) --no-print-directory web-only
web-only: $(BOOK_NUMBERS) $(NORMLAB) $(BOOK_PREREQS)
	@$(BOOK_ENV) scripts/web/web.sh $(WEB_DIR) $(BOOK_FLAGS)

# Chromium is not installed for you here (it is large): the test says how
# to install it and skips when it is missing; CI installs it (deps group
# webtest) and sets NL_REQUIRE_CHROMIUM=1, so that a skip there fails.
## web-test — build the web edition, open every page in headless Chromium at 1100 and 400 px; fails on sideways scrolling, broken links or anchors, missing images, unrendered math, any network fetch; screenshots in build/web-shots/
web-test: web
	@$(MAKE) --no-print-directory web-test-only
web-test-only:
	@/usr/bin/env python3 scripts/web/check-web.py $(WEB_DIR) --shots $(WEB_SHOTS)
