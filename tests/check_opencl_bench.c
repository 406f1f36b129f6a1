/* check_opencl_bench.c — `normlab bench --opencl` under bad settings: what
 * it times must first be right, and every setting it is given must be one
 * it uses.
 *   - a kernel override that compiles but computes the wrong thing is
 *     reported "invalid" and not timed, and the run exits 1;
 *   - NORMLAB_CL_KERNELS naming a folder that does not exist, or a kernel
 *     "file" that is a folder, is an error that says so (no silent fallback
 *     to the built-in kernels);
 *   - NORMLAB_CL_MAX_LOCAL=abc and NORMLAB_CL_PER_ITEM=0 are refused, not
 *     ignored while the run claims them;
 *   - the CSV of an OpenCL run has the CPU bench's columns, device "opencl".
 * The program runs as a subprocess; without an OpenCL device (as `normlab
 * devices` reports) the tests skip with its reason, unless
 * NORMLAB_REQUIRE_OPENCL=1 (CI), which makes them fail. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

/* 1 if `normlab devices` finds a device; else the skip is recorded (or,
 * where OpenCL is required, the test fails) and the caller returns. */
static int opencl_here(void)
{
    static nl_run_result r;
    const char *const args[] = {"devices", NULL};
    nl_run_normlab(&r, args, NULL);
    if (r.exited && r.code == 0)
        return 1;
    if (nl_opencl_required())
        ck_abort_msg("NORMLAB_REQUIRE_OPENCL=1 but `normlab devices` failed: %s", r.err);
    static char why[512];
    snprintf(why, sizeof why, "no OpenCL device: %.400s", r.err);
    nl_record_skip("need_opencl", why);
    return 0;
}
#define NEED_OPENCL()        \
    do {                     \
        if (!opencl_here())  \
            return;          \
    } while (0)

/* A small, quick run of both OpenCL kernels with `env` added. */
static void bench(nl_run_result *r, const char *const *env)
{
    const char *const args[] = {"bench", "--opencl", "--shape", "4x64", "--samples=1",
                                "--threads=1", NULL};
    nl_run_normlab(r, args, env);
    ck_assert_msg(r->exited, "`normlab bench --opencl` was killed by signal %d\nstderr: %s",
                  r->code, r->err);
}

static char tmp[64];

static const char *make_dir(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/normlab-clbench-XXXXXX");
    ck_assert_msg(mkdtemp(tmp), "mkdtemp: %s", strerror(errno));
    return tmp;
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert(system(cmd) == 0);
}

/* rmsnorm.cl with the output scaled by 2: it compiles and runs, and only a
 * check against the reference can tell. */
START_TEST(a_wrong_kernel_is_not_timed)
{
    NEED_OPENCL();
    const char *dir = make_dir();
    char path[128], cmd[512];
    snprintf(path, sizeof path, "%s/rmsnorm.cl", dir);
    snprintf(cmd, sizeof cmd,
             "sed 's/\\* inv \\* load4(gamma, i, true)/* inv * 2.0f * load4(gamma, i, true)/' "
             "code/opencl/kernels/rmsnorm.cl > '%s' && grep -q '2.0f' '%s'", path, path);
    ck_assert_msg(system(cmd) == 0, "could not make the broken kernel from "
                  "code/opencl/kernels/rmsnorm.cl (has its output line changed? update this "
                  "test's sed)");
    char env0[160];
    snprintf(env0, sizeof env0, "NORMLAB_CL_KERNELS=%s", dir);
    const char *const env[] = {env0, NULL};
    static nl_run_result r;
    bench(&r, env);
    remove_dir();
    ck_assert_msg(r.code == 1, "a kernel that computes twice the right answer must fail the "
                  "run (exit 1), got exit %d\nstdout:\n%s", r.code, r.out);
    const char *row = strstr(r.out, "rmsnorm_opencl");
    ck_assert_msg(row && strstr(row, "invalid") && strstr(row, "not timed"),
                  "the broken rmsnorm_opencl should be reported 'invalid ... not timed'; "
                  "stdout:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "layernorm_opencl") && !strstr(strstr(r.out, "layernorm_opencl"),
                                                              "invalid\n"),
                  "layernorm_opencl was not replaced and should still be timed; stdout:\n%s",
                  r.out);
}
END_TEST

START_TEST(a_missing_kernel_folder_is_an_error)
{
    NEED_OPENCL();
    const char *const env[] = {"NORMLAB_CL_KERNELS=/nonexistent/normlab-kernels", NULL};
    static nl_run_result r;
    bench(&r, env);
    ck_assert_msg(r.code != 0, "NORMLAB_CL_KERNELS naming a missing folder must not fall back "
                  "to the built-in kernels silently (exit 0)\nstdout:\n%s", r.out);
    ck_assert_msg(strstr(r.err, "NORMLAB_CL_KERNELS=/nonexistent/normlab-kernels") &&
                  strstr(r.err, "No such file"),
                  "the message should name NORMLAB_CL_KERNELS, the folder and why; stderr:\n%s",
                  r.err);
}
END_TEST

START_TEST(a_kernel_file_that_is_a_folder_says_so)
{
    NEED_OPENCL();
    const char *dir = make_dir();
    char sub[128], env0[160];
    snprintf(sub, sizeof sub, "%s/layernorm.cl", dir);
    ck_assert(mkdir(sub, 0700) == 0);
    snprintf(env0, sizeof env0, "NORMLAB_CL_KERNELS=%s", dir);
    const char *const env[] = {env0, NULL};
    static nl_run_result r;
    bench(&r, env);
    remove_dir();
    ck_assert_msg(r.code != 0 && strstr(r.err, "layernorm.cl is a folder"),
                  "a layernorm.cl that is a folder should fail the run naming it ('... "
                  "layernorm.cl is a folder ...'); exit %d, stderr:\n%s", r.code, r.err);
}
END_TEST

START_TEST(bad_knobs_are_refused)
{
    NEED_OPENCL();
    const char *const knobs[] = {"NORMLAB_CL_MAX_LOCAL=abc", "NORMLAB_CL_MAX_LOCAL=0",
                                 "NORMLAB_CL_PER_ITEM=0", "NORMLAB_CL_PER_ITEM=-4"};
    for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++) {
        const char *const env[] = {knobs[k], NULL};
        static nl_run_result r;
        bench(&r, env);
        ck_assert_msg(r.code != 0 && strstr(r.err, knobs[k]),
                      "%s must be refused with a message naming it, not ignored; exit %d, "
                      "stderr:\n%s", knobs[k], r.code, r.err);
    }
}
END_TEST

START_TEST(opencl_rows_share_the_csv)
{
    NEED_OPENCL();
    const char *dir = make_dir();
    char csv[128];
    snprintf(csv, sizeof csv, "%s/cl.csv", dir);
    const char *const args[] = {"bench", "--opencl", "--shape=4x64", "--samples", "1",
                                "--threads", "1", "--csv", csv, NULL};
    static nl_run_result r, s;
    nl_run_normlab(&r, args, NULL);
    const char *const show[] = {"bench", "--show", csv, NULL};
    nl_run_normlab(&s, show, NULL);
    char line[4096] = "", header[4096] = "";
    FILE *f = fopen(csv, "r");
    while (f && fgets(line, sizeof line, f) && line[0] == '#')
        ;
    snprintf(header, sizeof header, "%s", line);
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    remove_dir();
    ck_assert_msg(r.code == 0, "the OpenCL run failed (exit %d): %s", r.code, r.err);
    ck_assert_msg(!strncmp(header, "impl,norm,rows,d,threads,peer,status", 36) &&
                  strstr(header, ",device,dtype,bytes_per_elem"),
                  "an OpenCL CSV should have the CPU bench's header; got: %s", header);
    ck_assert_msg(!strncmp(line, "layernorm_opencl,LayerNorm,4,64,1,0,ok,", 39) &&
                  strstr(line, ",device,") && strstr(line, ",opencl,f32,8,"),
                  "the first row should be layernorm_opencl, ok, roof 'device', device "
                  "opencl, dtype f32, 8 bytes per element; got: %s", line);
    ck_assert_msg(s.code == 0 && strstr(s.out, "rmsnorm_opencl"),
                  "`normlab bench --show` should read the OpenCL CSV back (exit %d):\n%s%s",
                  s.code, s.out, s.err);
}
END_TEST

/* Runs everywhere, with or without a device: the ICD loader is pointed at
 * an empty folder, so the OpenCL rows cannot run, and a run that measured
 * nothing must say so and fail, not print an empty table and exit 0. */
START_TEST(no_platform_is_an_error)
{
    const char *dir = make_dir();
    char env0[160];
    snprintf(env0, sizeof env0, "OCL_ICD_VENDORS=%s", dir);
    const char *const env[] = {env0, NULL};
    static nl_run_result r;
    bench(&r, env);
    remove_dir();
    ck_assert_msg(r.code == 1 && strstr(r.err, "nothing to measure") &&
                      strstr(r.out, "no OpenCL platform"),
                  "`normlab bench --opencl` with no OpenCL platform should name it and exit 1 "
                  "(nothing was measured); exit %d\nstdout:\n%s\nstderr:\n%s",
                  r.code, r.out, r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("opencl_bench");
    TCase *tc = tcase_create("opencl_bench");
    tcase_set_timeout(tc, 600); /* kernel builds under valgrind */
    tcase_add_test(tc, a_wrong_kernel_is_not_timed);
    tcase_add_test(tc, a_missing_kernel_folder_is_an_error);
    tcase_add_test(tc, a_kernel_file_that_is_a_folder_says_so);
    tcase_add_test(tc, bad_knobs_are_refused);
    tcase_add_test(tc, opencl_rows_share_the_csv);
    tcase_add_test(tc, no_platform_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}
