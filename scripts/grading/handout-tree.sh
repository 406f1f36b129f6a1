#!/usr/bin/env bash
# handout-tree.sh DIR — turn a staged copy of the course (DIR, made by
# exercises-handout.sh, solutions already out) into the students' tree:
#
#   mk/zz-handout.mk   builds each exercise's code/ file from the student's
#                      exercises/NN-slug/<file> (and embeds their .cl), so
#                      make, make test and make book run THEIR code; `make`
#                      builds and lists the exercises done and left
#                      (handout-status.sh) instead of running the demo on
#                      stubs; "zz": included after mk/opencl.mk
#   Makefile           make test ends with that list (handout-test.sh)
#   README.md          the instructors' section and solutions/ taken out,
#                      a "Your handout" section put in
#   .github/workflows/classroom.yml   GitHub Classroom: each push graded in
#                      the sandbox, one autograding test per exercise
# Every edit is checked: a Makefile or README that no longer has the text
# replaced fails the handout rather than shipping a half-made one.
set -eu
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
cd "$dir"

mk=mk/zz-handout.mk
case ${SEED:-} in *[!0-9]*) echo "handout: SEED must be a number (got '$SEED')" >&2; exit 2 ;; esac
{
    echo '# zz-handout.mk — only in the students'"'"' handout (scripts/grading/handout-tree.sh).'
    echo '# Each exercise'"'"'s code is compiled from your file in exercises/, so that'
    echo '# make, make test, make book and normlab run your code.'
    echo
    "$here/exercises.sh" list code | while read -r id file; do
        base=${file##*/}
        case $file in
        *.c)
            printf '$(BUILD)/obj/%s: exercises/%s/%s $(FLAGS_STAMP)\n' "${file%.c}.o" "$id" "$base"
            printf '\t@mkdir -p $(@D)\n\t$(call say,CC,$<)\n'
            printf '\t$(Q)$(CC) $(ALL_CFLAGS) $(ISA_FLAGS) -I%s -MMD -MP -c $< -o $@\n\n' "$(dirname "$file")" ;;
        *.cl)
            printf 'CL_KERNELS := $(filter-out %s,$(CL_KERNELS)) exercises/%s/%s\n' "$file" "$id" "$base"
            printf '$(CL_EMBED_C): exercises/%s/%s\n\n' "$id" "$base" ;;
        esac
    done
    # make handout SEED=N: this handout's make test draws its random inputs
    # from another seed (tests/harness/harness.c, NL_TEST_SEED), so one
    # semester's memorised outputs are not the next one's.
    if [ -n "${SEED:-}" ]; then
        printf '# make handout SEED=%s: the visible tests'"'"' random inputs, this semester'"'"'s draw\nexport NL_TEST_SEED := %s\n' "$SEED" "$SEED"
    fi
    cat <<'MK'
# The book and the web edition build whatever is done: a `normlab` run
# they embed that fails on an unfinished exercise is shown, marked, not
# fatal (book/snippets.lua).
export NORMLAB_BOOK_PARTIAL := 1
.DEFAULT_GOAL := handout-all
.PHONY: handout-all handout-status
## handout-all — (the handout's `make`) build your code and list the exercises done and left
handout-all: deps
	@$(MAKE) --no-print-directory build
	@$(GRADE_ENV) scripts/grading/handout-status.sh $(BUILD)
## handout-status — which exercises are done, in progress, not started
handout-status: build
	@$(GRADE_ENV) scripts/grading/handout-status.sh $(BUILD)
MK
} >"$mk"

# A handout made from a handout (its `make handout`, check_course) is
# already edited: each edit is skipped when its result is there.
if ! grep -q 'scripts/grading/handout-test.sh' Makefile; then
    grep -q '^	@scripts/ci/run-tests.sh $(BUILD)/tests $(TESTS)$' Makefile
    sed -i 's|^	@scripts/ci/run-tests.sh $(BUILD)/tests $(TESTS)$|	@$(GRADE_ENV) scripts/grading/handout-test.sh $(BUILD)/tests $(TESTS)|' Makefile
fi
if ! grep -q '^## Your handout' README.md; then
    grep -q '<!-- instructors:begin -->' README.md
    sed -i '/<!-- instructors:begin -->/,/<!-- instructors:end -->/d' README.md
    sed -i '/^| `solutions\/` |/d; s/ (`SOLUTIONS=1` adds the answer key; / (/' README.md
    sed -i 's/^make          # installs missing packages (as root; otherwise prints the apt-get command), builds, runs `normlab demo`$/make          # installs missing packages (as root; otherwise prints the apt-get command), builds YOUR code, lists the exercises done and left/' README.md
    grep -q 'builds YOUR code' README.md
    awk '/^## Start here/ && !done { print "## Your handout\n\nThis is the course as a student gets it: the answers are not in it, in any\nform. Each exercise is a file in `exercises/NN-slug/` (its README says what to\ndo), and the build compiles YOUR file in place of the course'"'"'s own, so\neverything runs your code:\n\n- `make` builds and lists the exercises done, in progress and not started:\n  each one you edited is judged as `make grade EX=NN` judges it, so the\n  list and your grade agree (a verdict is kept until its files change);\n- `make test` runs every suite on your code and ends with the same list\n  (green once every exercise is done);\n- `make grade EX=NN` scores exercise NN as the course'"'"'s grader does, in a\n  sandbox, with feedback that names the likely mistake first. It grades\n  exercise NN on its own code: every other exercise is taken as its\n  untouched starter, and no test of NN needs another exercise'"'"'s answer, so\n  an exercise you have not done yet never costs points in another, and\n  the score here is the one your instructor'"'"'s grader gives. `make test`\n  runs YOUR code everywhere;\n- `make book` prints the book with your code in its listings (and numbers\n  computed by your code: a stub shows as nan until you write it).\n\nIf your course uses GitHub Classroom, each push is graded by\n`.github/workflows/classroom.yml`: one step per exercise, points per test,\nthe same score as `make grade`. That score is advisory, since it is\ncomputed in your own repository; your grade is your instructor'"'"'s regrade\nof the collected repositories (`make grade-class`), which reads only your\nexercise files. Edit nothing else: a repository whose workflow, build,\ngrader, library or suites differ from the handout'"'"'s\n(`scripts/grading/protected-paths.txt`) is flagged.\n"; done = 1 } { print }' README.md >README.md.tmp && mv README.md.tmp README.md
fi

mkdir -p .github/workflows
{
    cat <<'YML'
# GitHub Classroom autograding (written by scripts/grading/handout-tree.sh).
# One step per exercise: `make grade-only EX=NN` grades it in the sandbox
# and scripts/grading/classroom-result.sh hands its points per test to the
# reporter (classroom-resources/autograding-grading-reporter adds up the
# tests' scores), so partial credit is the same score as make grade.  The
# full report of every push is in the job log and in the uploaded
# artifact (build/grade: JSON, JUnit XML, text).  The grader runs each
# submission in bubblewrap, entered as root through sudo.
# This score is advisory: it runs the student's own repository, whose
# grader, build and suites the student could edit.  List the patterns of
# scripts/grading/protected-paths.txt as the assignment's protected paths,
# and grade with `make grade-class` on the collected repositories: it
# reads only their exercise files, and flags a repository whose protected
# files differ from the handout's.
name: Autograding Tests
'on':
- push
- repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
    - name: Checkout code
      uses: actions/checkout@v4
    - name: Install and build
      run: sudo scripts/setup/deps.sh base && make -j2 build
YML
    ids=()
    # The exercises the grader grades (lib.sh's exercise_confs: an
    # exercise.conf with `sandbox = no` is checked elsewhere, and joins
    # here once the grader takes it).
    for cfile in $(EXDIR=exercises EX_FILTER="" exercise_confs); do
        id=$(basename "$(dirname "$cfile")") n=${id%%-*}
        ids+=("ex$n")
        printf '    - name: %s (%s points)\n      id: ex%s\n      timeout-minutes: 10\n' "$id" "$(conf "$cfile" points)" "$n"
        printf '      run: |\n        sudo -E make --no-print-directory grade-only EX=%s GRADE_EXIT0=1 GRADE_OUT=build/grade/classroom\n' "$n"
        printf '        scripts/grading/classroom-result.sh build/grade/classroom/*-ex%s.json >>"$GITHUB_OUTPUT"\n' "$n"
    done
    printf '    - name: Autograding Reporter\n      uses: classroom-resources/autograding-grading-reporter@v1\n      env:\n'
    for i in "${ids[@]}"; do
        printf '        %s_RESULTS: "${{ steps.%s.outputs.result }}"\n' "$(tr a-z A-Z <<<"$i")" "$i"
    done
    printf '      with:\n        runners: %s\n' "$(IFS=,; echo "${ids[*]}")"
    printf '    - name: Reports\n      if: always()\n      uses: actions/upload-artifact@v4\n      with:\n        name: grade\n        path: build/grade\n'
} >.github/workflows/classroom.yml
