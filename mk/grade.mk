# grade.mk — grading students' exercise files with the course's own suites.
# The grader reuses the library objects of $(BUILD) and compiles with the
# same flags, so a student's file is built exactly like the one it replaces.

GRADE_ENV = CC='$(CC)' GRADE_CFLAGS='$(ALL_CFLAGS)' GRADE_LDLIBS='$(LDLIBS)' \
            GRADE_CHECK_LIBS='$(CHECK_LIBS)' GRADE_LDFLAGS='$(LDFLAGS)'
GRADE_ARGS = --build $(BUILD) $(if $(EX),--ex $(EX)) \
             $(if $(SUBMISSION),--submission $(SUBMISSION))

.PHONY: grade grade-only grade-check grade-selftest handout

## grade — grade exercises/: a table and `Score: X/Y` (EX=NN one exercise; SUBMISSION=dir a student's copy, results in build/grade/NAME.json|.xml)
grade: deps
	@$(MAKE) --no-print-directory grade-only
grade-only: $(LIB)
	@$(GRADE_ENV) scripts/grading/grade.sh $(GRADE_ARGS)

## grade-check — CI: every untouched starter fails its suite, the real code (the solutions) scores full
grade-check: $(LIB)
	@$(GRADE_ENV) scripts/grading/grade-check.sh --build $(BUILD)

## grade-selftest — CI: the grader on broken submissions (no compile, endless loop or output, crash, missing file, partial answer; submission left untouched)
grade-selftest: $(LIB)
	@$(GRADE_ENV) tests/grader/run.sh

## handout — build/normlab-handout.tar.gz for students: no solutions/, exercise regions in code/ stubbed
handout:
	@scripts/grading/exercises-handout.sh build/normlab-handout.tar.gz
