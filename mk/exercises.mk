# exercises.mk — starter files generated from the marked regions of code/.

.PHONY: exercises exercises-check snippets-check snippets-unused course-check

## exercises — regenerate exercises/NN-slug/<file> from the @exercise regions in code/
exercises:
	@PROTECT_EDITS=$(if $(FORCE),,1) scripts/grading/exercises.sh generate exercises code

## exercises-check — fail when exercises/ is stale (also part of make test, suite course)
exercises-check:
	@scripts/grading/exercises.sh check exercises code

## snippets-check — every snippet a chapter or solution names exists in the source
snippets-check:
	@scripts/book/snippets.sh check $(wildcard chapters/*.md appendices/*.md notebook/*.md solutions/*.md)

## snippets-unused — list the snippets in the source that no chapter or solution uses
snippets-unused:
	@scripts/book/snippets.sh unused $(wildcard chapters/*.md appendices/*.md notebook/*.md solutions/*.md)

## course-check — CI: snippets, exercises, course map, grader self-tests, starters vs solutions
course-check: snippets-check exercises-check coursemap-check grade-ci

.PHONY: coursemap coursemap-check
## coursemap — regenerate the course map in README.md (chapter, code, exercise, check command)
coursemap:
	@scripts/book/coursemap.sh update
coursemap-check:
	@scripts/book/coursemap.sh check
