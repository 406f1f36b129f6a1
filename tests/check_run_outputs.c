/* check_run_outputs.c — what `normlab run` may do to the files it writes:
 * replace only a regular file (and only with --force), never a device
 * node, a pipe or a symbolic link; write all its outputs or none; and see
 * that two spellings of one path are one file. Each case runs the real
 * program in the suite's scratch folder. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define X "tests/fixtures/npy/x-2x4-f32.npy"
#define G "tests/fixtures/npy/gamma-4-f32.npy"

#define at nl_scratch_name

static void expect_refused(const nl_run_result *r, const char *what, const char *text)
{
    ck_assert_msg(r->exited && r->code == 2, "%s: expected exit 2, got %d\nstderr: %s", what,
                  r->code, r->err);
    ck_assert_msg(strstr(r->err, text), "%s: the message should say '%s'; stderr was:\n%s", what,
                  text, r->err);
}

/* rename() over /dev/null would make it a regular file (as root, the
 * system's node); run must refuse a device even with --force. The device
 * is a FIFO here, which a test can make; /dev/null is checked too but left
 * alone, since a non-root test cannot replace it anyway. */
START_TEST(device_and_fifo_are_not_replaced)
{
    const char *fifo = at("pipe.npy");
    ck_assert_msg(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    nl_run_result r;
    const char *args[] = {"run", "rmsnorm_naive", "--x", X, "--gamma", G, "--out", fifo, "--force", NULL};
    nl_run_normlab(&r, args, NULL);
    expect_refused(&r, "--out FIFO --force", "is a pipe (FIFO); only a regular file");
    struct stat st;
    ck_assert_msg(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    const char *dev[] = {"run", "rmsnorm_naive", "--x", X, "--gamma", G, "--out", "/dev/null",
                         "--force", NULL};
    nl_run_normlab(&r, dev, NULL);
    expect_refused(&r, "--out /dev/null --force", "/dev/null is a character device");
}
END_TEST

/* A symbolic link is refused, not replaced by a regular file (its target
 * would silently stay as it was), and a dangling one is named as such, not
 * as a file that "appeared while writing". */
START_TEST(symlinks_are_refused_with_what_they_are)
{
    const char *target = at("target.npy"), *link_ = at("link.npy"), *dang = at("dangling.npy");
    FILE *f = fopen(target, "w");
    ck_assert_msg(f && fputs("keep", f) >= 0 && fclose(f) == 0, "cannot write %s", target);
    ck_assert_msg(symlink(target, link_) == 0 && symlink(at("nothing-here"), dang) == 0,
                  "symlink: %s", strerror(errno));
    nl_run_result r;
    const char *args[] = {"run", "rmsnorm_naive", "--x", X, "--gamma", G, "--out", link_, "--force", NULL};
    nl_run_normlab(&r, args, NULL);
    expect_refused(&r, "--out SYMLINK --force", "is a symbolic link; only a regular file");
    struct stat st;
    ck_assert_msg(lstat(link_, &st) == 0 && S_ISLNK(st.st_mode), "the symbolic link was replaced");
    const char *d[] = {"run", "rmsnorm_naive", "--x", X, "--gamma", G, "--out", dang, NULL};
    nl_run_normlab(&r, d, NULL);
    expect_refused(&r, "--out DANGLING", "is a symbolic link to nothing");
    ck_assert_msg(!strstr(r.err, "appeared while writing"), "a dangling link did not appear "
                  "while writing: %s", r.err);
}
END_TEST

/* The help says "nothing written" on exit 2: a second output that cannot
 * be made must not leave the first one behind. */
START_TEST(failed_second_output_writes_nothing)
{
    nl_run_result r;
    const char *y = at("y1.npy"), *dx = at("dx1.npy");
    const char *fused[] = {"run", "fused_add_rmsnorm", "--x", X, "--residual", X, "--gamma", G,
                           "--out", y, "--residual-out", "/nonexistent-folder/r2.npy", NULL};
    nl_run_normlab(&r, fused, NULL);
    expect_refused(&r, "fused, --residual-out in a missing folder", "/nonexistent-folder/r2.npy");
    ck_assert_msg(access(y, F_OK) != 0, "exit 2, yet --out %s was written", y);
    const char *bwd[] = {"run", "rmsnorm_bwd_fused", "--x", X, "--gamma", G, "--dy", X,
                         "--out-dx", dx, "--out-dgamma", "/nonexistent-folder/dg.npy", NULL};
    nl_run_normlab(&r, bwd, NULL);
    expect_refused(&r, "backward, --out-dgamma in a missing folder", "/nonexistent-folder/dg.npy");
    ck_assert_msg(access(dx, F_OK) != 0, "exit 2, yet --out-dx %s was written", dx);
    DIR *dir = opendir(nl_scratch_dir());
    ck_assert(dir);
    for (struct dirent *e; (e = readdir(dir));)
        ck_assert_msg(!strstr(e->d_name, ".tmp"), "a temporary file was left behind: %s", e->d_name);
    closedir(dir);
}
END_TEST

/* "same.npy" and "./same.npy" (or a hard link) are one file: the second
 * output would silently replace the first. */
START_TEST(one_file_under_two_names_is_refused)
{
    char dot[PATH_MAX];
    const char *same = at("same.npy"), *hard = at("hard.npy");
    snprintf(dot, sizeof dot, "%s/./same.npy", nl_scratch_dir());
    nl_run_result r;
    const char *args[] = {"run", "fused_add_rmsnorm", "--x", X, "--residual", X, "--gamma", G,
                          "--out", same, "--residual-out", dot, "--force", NULL};
    nl_run_normlab(&r, args, NULL);
    expect_refused(&r, "--out same.npy --residual-out ./same.npy", "name the same file");
    ck_assert_msg(access(same, F_OK) != 0, "refused, yet %s was written", same);
    /* existing files: a hard link is the same inode under another name */
    FILE *f = fopen(same, "w");
    ck_assert_msg(f && fclose(f) == 0 && link(same, hard) == 0, "cannot make a hard link");
    const char *hl[] = {"run", "fused_add_rmsnorm", "--x", X, "--residual", X, "--gamma", G,
                        "--out", same, "--residual-out", hard, "--force", NULL};
    nl_run_normlab(&r, hl, NULL);
    expect_refused(&r, "--out FILE --residual-out HARDLINK", "name the same file");
}
END_TEST

/* --out belongs to the forward mode as much as to the fused one. */
START_TEST(misplaced_output_names_every_mode_it_belongs_to)
{
    nl_run_result r;
    const char *args[] = {"run", "rmsnorm_bwd_fused", "--x", X, "--gamma", G, "--dy", X,
                          "--out", at("y.npy"), NULL};
    nl_run_normlab(&r, args, NULL);
    expect_refused(&r, "--dy with --out", "--out belongs to the fused add + norm and forward modes");
    ck_assert_msg(strstr(r.err, "backward mode (selected by --dy)"),
                  "the message should say which mode --dy selected: %s", r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("run_outputs");
    TCase *tc = tcase_create("outputs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, device_and_fifo_are_not_replaced);
    tcase_add_test(tc, symlinks_are_refused_with_what_they_are);
    tcase_add_test(tc, failed_second_output_writes_nothing);
    tcase_add_test(tc, one_file_under_two_names_is_refused);
    tcase_add_test(tc, misplaced_output_names_every_mode_it_belongs_to);
    suite_add_tcase(s, tc);
    return s;
}
