/* check_fused_cli.c — `normlab bench --fused` (chapter 9): it measures
 * what it is asked, checks before it times, and refuses bad input with a
 * message and exit status 2.  (No timing is asserted: speed is the
 * bench's output, not a test's.) */
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
    suite_add_tcase(s, tc);
    return s;
}
