/* check_backward_run.c — `normlab run IMPL --dy ...`: a backward pass on
 * arrays in .npy files (chapter 10 on chapter 8's run command).  The
 * gradients that come back must be the bits a direct call gives; bad
 * inputs are refused with exit 2, a message, and nothing written. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grad.h"

enum { ROWS = 5, D = 33 };
static char dir[64];

static const char *at(const char *name)
{
    static char bufs[8][128];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

/* x, gamma, beta and dy of a small problem, as .npy files in a new folder. */
static nl_bwd_problem setup(nl_norm norm)
{
    snprintf(dir, sizeof dir, "/tmp/normlab-bwd-XXXXXX");
    ck_assert_msg(mkdtemp(dir), "cannot make a temporary folder");
    nl_bwd_problem p = nl_bwd_problem_new(norm, ROWS, D, NL_TEST_EPS, 31);
    struct { const char *name; size_t ndim; const float *data; } files[] = {
        {"x.npy", 2, p.x}, {"dy.npy", 2, p.dy}, {"gamma.npy", 1, p.gamma}, {"dy_short.npy", 1, p.dy},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        nl_array a = {.elem = NL_ELEM_F32, .ndim = files[i].ndim,
                      .shape = {files[i].ndim == 2 ? ROWS : D, D}, .data = (void *)files[i].data};
        ck_assert_msg(nl_npy_write(at(files[i].name), &a, 0, 1) == NL_OK, "writing %s: %s",
                      files[i].name, nl_last_error());
    }
    return p;
}

static void teardown(nl_bwd_problem *p)
{
    const char *names[] = {"x.npy", "dy.npy", "gamma.npy", "dy_short.npy", "dx.npy", "dg.npy", "db.npy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(at(names[i]));
    rmdir(dir);
    nl_bwd_problem_free(p);
}

static void same_bits(const char *file, const float *want, size_t n)
{
    nl_array a;
    ck_assert_msg(nl_npy_read(at(file), &a) == NL_OK, "reading %s: %s", file, nl_last_error());
    ck_assert_msg(a.elem == NL_ELEM_F32 && a.count == n, "%s: %zu values, expected %zu float32",
                  file, a.count, n);
    ck_assert_msg(memcmp(a.data, want, n * sizeof(float)) == 0,
                  "%s differs from what a direct call of the kernel gives", file);
    nl_array_free(&a);
}

START_TEST(run_backward_gives_the_direct_call_bits)
{
    nl_norm norm = _i ? NL_RMSNORM : NL_LAYERNORM;
    const char *impl = _i ? "rmsnorm_bwd_fused" : "layernorm_bwd_fused";
    nl_bwd_problem p = setup(norm);
    nl_bwd_run(nl_find_bwd_impl(impl), &p);
    nl_run_result r;
    const char *args[] = {"run", impl, "--x", at("x.npy"), "--gamma", at("gamma.npy"), "--dy",
                          at("dy.npy"), "--out-dx", at("dx.npy"), "--out-dgamma", at("dg.npy"),
                          _i ? NULL : "--out-dbeta", at("db.npy"), NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "normlab run %s --dy ... exited %d: %s", impl, r.code, r.err);
    same_bits("dx.npy", p.dx, ROWS * D);
    same_bits("dg.npy", p.dgamma, D);
    if (!_i)
        same_bits("db.npy", p.dbeta, D);
    teardown(&p);
}
END_TEST

static const struct { const char *impl, *extra_flag, *extra_file, *dy, *says; } bad[] = {
    {"rmsnorm_fused", NULL, NULL, "dy.npy", "not a backward implementation"},
    {"rmsnorm_bwd_fused", "--out-dbeta", "db.npy", "dy.npy", "no beta"},
    {"rmsnorm_bwd_fused", NULL, NULL, "dy_short.npy", "must have x's shape"},
    {"rmsnorm_bwd_fused", "--out-dgamma", NULL, "dy.npy", "--out-dgamma"},
};

START_TEST(run_backward_refuses_bad_input)
{
    nl_bwd_problem p = setup(NL_RMSNORM);
    nl_run_result r;
    /* the last case leaves --out-dgamma out: its flag slot ends the list */
    int no_dg = bad[_i].extra_file == NULL && bad[_i].extra_flag != NULL;
    const char *args[] = {"run", bad[_i].impl, "--x", at("x.npy"), "--gamma", at("gamma.npy"),
                          "--dy", at(bad[_i].dy), "--out-dx", at("dx.npy"),
                          no_dg ? NULL : "--out-dgamma", at("dg.npy"),
                          bad[_i].extra_flag, bad[_i].extra_file ? at(bad[_i].extra_file) : NULL,
                          NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 2, "case %d: exit %d, expected 2; stderr: %s", _i, r.code, r.err);
    ck_assert_msg(strstr(r.err, bad[_i].says), "case %d: the message should say '%s': %s", _i,
                  bad[_i].says, r.err);
    ck_assert_msg(access(at("dx.npy"), F_OK) != 0, "case %d: dx.npy was written although the "
                  "input was refused", _i);
    teardown(&p);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("backward_run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, run_backward_gives_the_direct_call_bits, 0, 2);
    tcase_add_loop_test(tc, run_backward_refuses_bad_input, 0, sizeof bad / sizeof bad[0]);
    suite_add_tcase(s, tc);
    return s;
}
