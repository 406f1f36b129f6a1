# grade.mk — grading students' exercise files with the course's own suites,
# each submission built and run in a sandbox (scripts/grading/sandbox.sh).
# The grader reuses the library objects of $(BUILD) and compiles with the
# same flags, so a student's file is built exactly like the one it replaces.
# SUBMISSION, SUBMISSIONS and EX reach the scripts through the environment
# (make exports command-line variables), never pasted into a command line:
# a folder named `$(rm -rf ~)` or "Anne O'Neil" is just a name.

GRADE_ENV = CC='$(CC)' GRADE_CFLAGS='$(ALL_CFLAGS)' GRADE_LDLIBS='$(LDLIBS)' \
            GRADE_CHECK_LIBS='$(CHECK_LIBS)' GRADE_LDFLAGS='$(LDFLAGS)' GRADE_BUILD='$(BUILD)'
GRADE_ARGS = --build '$(BUILD)' $${EX:+--ex "$$EX"} $${SUBMISSION:+--submission "$$SUBMISSION"} $${GRADE_OUT:+--out "$$GRADE_OUT"}

.PHONY: grade grade-only grade-check grade-selftest grade-ci handout grade-class gradescope lab-sheet

## grade — grade exercises/ in a sandbox: a table and `Score: X/Y`, exit 1 below full (GRADE_EXIT0=1 keeps 0; EX=NN one exercise; SUBMISSION=dir a student's copy; results in build/grade/NAME.{txt,json,xml})
grade: deps
	@$(MAKE) --no-print-directory grade-only
grade-only: $(LIB)
	@$(GRADE_ENV) scripts/grading/grade.sh $(GRADE_ARGS)

# In a handout the course's answers and the grader's self-tests are not
# there to check with: these three say so instead of failing half-way.
COURSE_ONLY = @[ ! -f mk/zz-handout.mk ] || { echo "$@: checks the course's own answers and the grader's self-tests, which a handout does not hold" >&2; exit 2; }

## grade-check — CI: every untouched starter fails its suite, the real code (the solutions) scores full
grade-check: $(LIB)
	$(COURSE_ONLY)
	@$(GRADE_ENV) scripts/grading/grade-check.sh --build $(BUILD)

## grade-selftest — CI: the grader against every attack (includes of real code, library kernels with and without policy.sh, forged output, writes outside, orphans, fork bombs, hung compiles, hostile names, unfused and token-vector answers, a kernel probing the scratch and /proc), a handout holding no answer in any form, edited Classroom repositories flagged, the usual wrong answers, broken submissions, a class, Gradescope, and its JSON/XML
grade-selftest: $(LIB)
	$(COURSE_ONLY)
	@$(GRADE_ENV) tests/grader/run.sh

## grade-ci — CI: grade-check and grade-selftest in one pool of jobs on one stage of the course (on a 2-core VM 5m51, against 63 s + 5m34 for the two one after the other)
grade-ci: $(LIB)
	$(COURSE_ONLY)
	@$(GRADE_ENV) tests/grader/run.sh --grade-check

## lab-sheet — build/lab/lab.md (and .pdf with pandoc): the assignment sheet of LAB=09,10,... (all exercises without): goals, chapters, points per exercise and per test group as the grader gives them, estimated time, how to submit (LAB_NAME=title)
lab-sheet: $(LIB)
	@$(GRADE_ENV) scripts/grading/lab-sheet.sh build/lab/lab.md

## handout — build/normlab-handout.tar.gz for students: no solutions/, no answer in any form (handout-audit.sh), builds and tests the students' exercises/ files, lists what is left, GitHub Classroom workflow; build/normlab-handout.protected.sha256 for grade-class
# LAB=09,10 makes a lab's handout: lab.txt limits its grader, gradebook and
# Classroom workflow to those exercises, and its sheet (lab.md) is inside.
handout: $(if $(LAB),$(LIB))
	@$(GRADE_ENV) scripts/grading/exercises-handout.sh build/normlab-handout.tar.gz

## grade-class — grade every student folder in SUBMISSIONS=DIR (2 at a time, each sandboxed; a folder of Classroom clones too: ROSTER=classroom_roster.csv names them, and a repository whose protected files differ from the handout's, PROTECTED=checksums, default build/normlab-handout.protected.sha256, is flagged): build/grade-class/gradebook.csv, protected.txt and reports/NAME.{txt,json,xml} (JOBS=N)
grade-class: $(LIB)
	@[ -n "$$SUBMISSIONS" ] || { echo "grade-class: say which folder: make grade-class SUBMISSIONS=path/to/class" >&2; exit 2; }
	@$(GRADE_ENV) scripts/grading/grade-class.sh --build '$(BUILD)' --submissions "$$SUBMISSIONS" $${JOBS:+--jobs "$$JOBS"} $${GRADE_OUT:+--out "$$GRADE_OUT"} \
	    $${PROTECTED:+--protected "$$PROTECTED"} $${ROSTER:+--roster "$$ROSTER"}

## gradescope — build/gradescope.zip: a Gradescope autograder (setup.sh, run_autograder) that grades uploads with this grader
gradescope:
	@scripts/grading/gradescope/make-zip.sh build/gradescope.zip
