/* check_fused_cli.c — `normlab bench --fused` (chapter 9): it measures
 * what it is asked, checks before it times, and refuses bad input with a
 * message and exit status 2.  (No timing is asserted: speed is the
 * bench's output, not a test's.) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

START_TEST(measures_a_small_shape)
{
    nl_run_result r;
    const char *args[] = {"bench", "--fused", "--shape", "64x96", "--samples", "1", "--impl",
                          "add_rmsnorm_unfused,fused_add_rmsnorm", NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "bench --fused exited %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "fused_add_rmsnorm ") && strstr(r.out, "add_rmsnorm_unfused "),
                  "both entries should have a row:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "of copy"), "the table should say 'of copy':\n%s", r.out);
}
END_TEST

START_TEST(unknown_impl_is_refused)
{
    nl_run_result r;
    const char *args[] = {"bench", "--fused", "--impl", "fused_add_nope", NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 2, "exit %d, expected 2", r.code);
    ck_assert_msg(strstr(r.err, "fused_add_nope"), "the message should name the bad name: %s",
                  r.err);
}
END_TEST

/* `normlab run` with --residual: the residual stream comes back as
 * residual + x, and y as the same bits the fused kernel gives in memory. */
START_TEST(run_residual_mode)
{
    const char *x = "tests/fixtures/npy/x-2x4-f32.npy", *g = "tests/fixtures/npy/gamma-4-f32.npy";
    char y[PATH_MAX], r2[PATH_MAX];
    nl_scratch_path(y, sizeof y, "run-y.npy");
    nl_scratch_path(r2, sizeof r2, "run-r.npy");
    nl_run_result r;
    const char *args[] = {"run", "fused_add_rmsnorm", "--x", x, "--residual", x, "--gamma", g,
                          "--out", y, "--residual-out", r2, "--force", NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "run --residual exited %d: %s", r.code, r.err);
    nl_array ax, ag, ay, ar;
    ck_assert_msg(nl_npy_read(x, &ax) == NL_OK && nl_npy_read(g, &ag) == NL_OK &&
                  nl_npy_read(y, &ay) == NL_OK && nl_npy_read(r2, &ar) == NL_OK, "%s", nl_last_error());
    size_t rows = ax.shape[0], d = ax.shape[1];
    float res[8], want[8];
    memcpy(res, ax.data, sizeof res);
    ck_assert(rows * d == 8 && ay.count == 8 && ar.count == 8);
    const nl_fused_impl *im = nl_find_fused("fused_add_rmsnorm");
    ck_assert_int_eq(im->fn(ax.data, res, ag.data, NULL, 1e-5f, rows, d, want), NL_OK);
    ck_assert_msg(!memcmp(res, ar.data, sizeof res), "--residual-out is not residual + x");
    ck_assert_msg(!memcmp(want, ay.data, sizeof want), "--out is not the fused kernel's y");
    nl_array_free(&ax), nl_array_free(&ag), nl_array_free(&ay), nl_array_free(&ar);
    const char *bad[] = {"run", "rmsnorm_naive", "--x", x, "--residual", x, "--gamma", g,
                         "--out", y, "--residual-out", r2, "--force", NULL};
    nl_run_normlab(&r, bad, NULL);
    ck_assert_msg(r.exited && r.code == 2 && strstr(r.err, "rmsnorm_naive"),
                  "a forward kernel with --residual: expected exit 2 naming it, got %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "normlab impls lists them"),
                  "the message should send the reader to `normlab impls`: %s", r.err);
}
END_TEST

START_TEST(csv_is_not_overwritten)
{
    char path[] = "/tmp/normlab-fused-csv-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert(write(fd, "keep\n", 5) == 5);
    close(fd);
    nl_run_result r;
    const char *args[] = {"bench", "--fused", "--shape", "8x8", "--samples", "1", "--impl",
                          "fused_add_rmsnorm", "--csv", path, NULL};
    nl_run_normlab(&r, args, NULL);
    char buf[16] = {0};
    FILE *f = fopen(path, "r");
    ck_assert(f && fread(buf, 1, sizeof buf - 1, f) > 0);
    fclose(f);
    unlink(path);
    ck_assert_msg(r.code == 2 && strcmp(buf, "keep\n") == 0,
                  "an existing --csv file must be left alone without --force (exit %d, file "
                  "now starts '%s')", r.code, buf);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("fused_cli");
    TCase *tc = tcase_create("fused_cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, measures_a_small_shape);
    tcase_add_test(tc, unknown_impl_is_refused);
    tcase_add_test(tc, csv_is_not_overwritten);
    tcase_add_test(tc, run_residual_mode);
    suite_add_tcase(s, tc);
    return s;
}
