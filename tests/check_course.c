/* check_course.c — the course's derived files agree with the code:
 * every snippet a chapter, appendix, notebook page or solution names
 * exists (and removing one is caught by name), the exercise starters are
 * what the marked regions generate, the README's course map and the
 * preface's times are current, the handout holds no solution, each
 * benchmark figure draws only its own kind of row, the book drops the
 * line that speaks to readers on GitHub, and a figure no make rule draws
 * stops the build by the name of the document and line that show it.
 * Each test runs one of the shell tools from scripts/ and shows its output
 * when it fails. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* Runs `cmd` through the shell; returns its exit status and leaves the
 * end of its output (stdout and stderr) in `out`. */
static int run(const char *cmd, char *out, size_t n)
{
    char path[] = "/tmp/normlab-course-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot make a temporary file for the output of %s", cmd);
    close(fd);
    char full[1024];
    snprintf(full, sizeof full, "(%s) >%s 2>&1", cmd, path);
    int st = system(full);
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        /* Keep the last n - 1 bytes: the verdict is at the end. */
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, size > (long)n - 1 ? size - ((long)n - 1) : 0, SEEK_SET);
        size_t len = fread(out, 1, n - 1, f);
        out[len] = '\0';
        fclose(f);
    }
    unlink(path);
    return st;
}

#define NEED_ROOT()                                                         \
    do {                                                                    \
        if (access("scripts/book/snippets.sh", X_OK) != 0)                       \
            NL_SKIP("not run from the repository root (scripts/ not found)"); \
    } while (0)

static void expect_ok(const char *cmd, const char *what, const char *fix)
{
    char out[8192];
    int st = run(cmd, out, sizeof out);
    ck_assert_msg(st == 0, "%s: `%s` failed:\n%s\n%s", what, cmd, out, fix);
}

START_TEST(markers_parse)
{
    NEED_ROOT();
    expect_ok("scripts/book/snippets.sh list", "snippet and exercise markers",
              "Every @snippet and @exercise needs its @end (CONTRIBUTING.md).");
}
END_TEST

START_TEST(every_named_snippet_exists)
{
    NEED_ROOT();
    expect_ok("scripts/book/snippets.sh check chapters/*.md $(ls appendices/*.md notebook/*.md "
              "solutions/*.md 2>/dev/null)",
              "snippets named by chapters, appendices, the notebook and solutions",
              "Name a region that exists, or mark it in the source: // @snippet NAME ... // @end");
}
END_TEST

START_TEST(removing_a_snippet_marker_is_caught_by_name)
{
    NEED_ROOT();
    expect_ok("tests/grader/snippet-removed.sh", "deleting a snippet marker",
              "The check must fail and name the snippet and the chapter.");
}
END_TEST

START_TEST(exercise_starters_are_current)
{
    NEED_ROOT();
    expect_ok("scripts/grading/exercises.sh check exercises code", "exercises/ starters",
              "Regenerate them from the marked regions: make exercises");
}
END_TEST

START_TEST(course_map_is_current)
{
    NEED_ROOT();
    expect_ok("scripts/book/coursemap.sh check", "README.md's course map and the preface's times",
              "Regenerate them: make coursemap");
}
END_TEST

START_TEST(handout_holds_no_solution)
{
    NEED_ROOT();
    /* The script checks its own tarball: no solutions/, and every exercise
     * region in code/ reduced to its TODO and stub. */
    expect_ok("t=$(mktemp -d) && scripts/grading/exercises-handout.sh \"$t/h.tar.gz\"; s=$?; rm -rf \"$t\"; exit $s",
              "make handout", "The handout must leave out solutions/ and the answers in code/.");
}
END_TEST

/* Each chapter's benchmark figure keeps its own kind of row, ours and the
 * peers': a backward peer in chapter 6's f32 figure would be compared with
 * a forward kernel. The names in the fixture say each row's kind. */
START_TEST(figure_tables_keep_their_kind)
{
    NEED_ROOT();
    static const char *const want[][2] = {
        {"f32", "f32_fwd f32_peer"},
        {"half", "half_bf16 half_f16 half_bf16_peer"},
        {"backward", "backward_f32 backward_peer"},
        {"all", "f32_fwd half_bf16 half_f16 backward_f32 other_fused f32_peer half_bf16_peer backward_peer"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char cmd[1024], out[8192];
        snprintf(cmd, sizeof cmd,
                 "t=$(mktemp -d) && scripts/book/bench-tables.sh --rows %s "
                 "tests/fixtures/bench/kinds.csv \"$t/o\" > /dev/null && "
                 "cut -d'\"' -f2 \"$t/o.t1.dat\" | sed 's/ (peer)$//' | tr '\\n' ' '; "
                 "s=$?; rm -rf \"$t\"; exit $s",
                 want[k][0]);
        int st = run(cmd, out, sizeof out);
        ck_assert_msg(st == 0, "bench-tables --rows %s failed: %s", want[k][0], out);
        size_t n = strlen(out);
        while (n && out[n - 1] == ' ')
            out[--n] = '\0';
        ck_assert_msg(strcmp(out, want[k][1]) == 0, "--rows %s kept \"%s\", not \"%s\"",
                      want[k][0], out, want[k][1]);
    }
    char out[8192];
    int st = run("scripts/book/bench-tables.sh --rows fp8 tests/fixtures/bench/kinds.csv /dev/null",
                 out, sizeof out);
    ck_assert_msg(st != 0 && strstr(out, "fp8: not a kind of row"),
                  "an unknown kind must be refused by name: %s", out);
}
END_TEST

/* A figure can name the rows it draws (--impl, --shape): the chapters' figures
 * show the rungs their text reads. A pattern keeps every row it matches,
 * in both files, and one that matches nothing is refused by name: a typo
 * must not drop a rung from a figure unseen. */
START_TEST(figure_tables_keep_the_rows_named)
{
    NEED_ROOT();
    char out[8192];
    int st = run("t=$(mktemp -d) && scripts/book/bench-tables.sh --rows all --impl 'f32_*,half_bf16' "
                 "--shape 64x64 tests/fixtures/bench/kinds.csv \"$t/o\" tests/fixtures/bench/kinds.csv "
                 "> /dev/null && cut -d'\"' -f2 \"$t/o.t1.dat\" | tr '\\n' ' '; s=$?; rm -rf \"$t\"; exit $s",
                 out, sizeof out);
    ck_assert_msg(st == 0 && strcmp(out, "f32_fwd half_bf16 f32_peer (peer) ") == 0,
                  "--impl 'f32_*,half_bf16' kept \"%s\" (exit %d), not \"f32_fwd half_bf16 f32_peer (peer) \"",
                  out, st);
    st = run("scripts/book/bench-tables.sh --rows f32 --impl f32_fwd,f32_fdw "
             "tests/fixtures/bench/kinds.csv /dev/null", out, sizeof out);
    ck_assert_msg(st != 0 && strstr(out, "--impl f32_fdw"), "a pattern that keeps no row must be refused by name: %s",
                  out);
}
END_TEST

/* The line under a chapter's title for readers of the Markdown on GitHub
 * (github-line in book/prose-rules.txt) is in the file, and not in what
 * pandoc reads; the rest of the chapter is. */
START_TEST(the_book_drops_the_github_line)
{
    NEED_ROOT();
    char out[8192];
    int st = run("t=$(mktemp -d) && line=$(sed -n 's/^github-line //p' book/prose-rules.txt) && "
                 "printf '# A {#ch-a}\n\n%s\n\nThe text.\n' \"$line\" >\"$t/01-a.md\" && "
                 "grep -qxF \"$line\" \"$t/01-a.md\" && scripts/book/assemble.sh \"$t/01-a.md\" >\"$t/out\" && "
                 "! grep -qF 'On GitHub' \"$t/out\" && grep -q 'The text.' \"$t/out\"; s=$?; rm -rf \"$t\"; exit $s",
                 out, sizeof out);
    ck_assert_msg(st == 0, "scripts/book/assemble.sh kept the GitHub line, or lost the text: %s", out);
}
END_TEST

/* A figure drawn at build time (fig-NAME) that no make rule draws: make
 * stops with the document and line that show it, before pandoc runs. */
START_TEST(a_figure_no_rule_draws_is_named_by_its_line)
{
    NEED_ROOT();
    char out[8192];
    int st = run("t=$(mktemp -d) && mkdir -p \"$t/chapters\" \"$t/build\" && cp -r scripts book \"$t/\" && "
                 "printf '# A {#ch-a}\n\nText.\n\n![Nothing draws it.](fig-nothing.pdf)\n' >\"$t/chapters/01-a.md\" && "
                 "cd \"$t\" && BUILD=build scripts/book/figures.sh names && "
                 "BUILD=build scripts/book/figures.sh missing build/fig-nothing.pdf; s=$?; rm -rf \"$t\"; exit $s",
                 out, sizeof out);
    ck_assert_msg(st != 0 && strstr(out, "fig-nothing.pdf\n") &&
                      strstr(out, "chapters/01-a.md:5: figure fig-nothing.pdf: no make rule draws build/fig-nothing.pdf"),
                  "a figure no rule draws must be named with its document and line:\n%s", out);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("course");
    TCase *tc = tcase_create("course");
    /* Shell tools over the whole tree: allow them more than Check's 4 s. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, markers_parse);
    tcase_add_test(tc, every_named_snippet_exists);
    tcase_add_test(tc, removing_a_snippet_marker_is_caught_by_name);
    tcase_add_test(tc, exercise_starters_are_current);
    tcase_add_test(tc, course_map_is_current);
    tcase_add_test(tc, handout_holds_no_solution);
    tcase_add_test(tc, figure_tables_keep_their_kind);
    tcase_add_test(tc, figure_tables_keep_the_rows_named);
    tcase_add_test(tc, the_book_drops_the_github_line);
    tcase_add_test(tc, a_figure_no_rule_draws_is_named_by_its_line);
    suite_add_tcase(s, tc);
    return s;
}
