/* check_gpt2_bench.c — chapter 12's bench rows (code/gpt2/bench_rows.h):
 * every row agrees with its double reference on GPT-2's shapes and on
 * ragged ones (rows not a multiple of the 4-row tile, outputs not of 16,
 * inputs past one 256-deep block); a planted wrong FlashNorm fails the
 * check the bench runs before it times anything; `normlab bench --gpt2`
 * and `--flashnorm` produce their rows, checked, in the CSV.  No timing
 * is judged here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpt2/bench_rows.h"
#include "gpt2/kernels.h"
#include "harness.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define TOL 1e-5 /* what bench_gpt2.c states for every row */

static const nl_shape shapes[] = {{1, 2}, {9, 37}, {6, 300}, {16, 768}};

static double validate(const nl_gpt2_bench_impl *im, nl_shape s, int *rc)
{
    nl_bench_data b;
    ck_assert_int_eq(nl_bench_data_new(&b, s.rows, s.d, 7), 0);
    nl_gpt2_bench p;
    *rc = nl_gpt2_bench_new(&p, im, &b);
    double err = *rc == NL_OK ? nl_gpt2_bench_validate(&p, rc) : NAN;
    nl_gpt2_bench_free(&p);
    nl_bench_data_free(&b);
    return err;
}

START_TEST(every_row_agrees_with_its_reference)
{
    size_t n;
    const nl_gpt2_bench_impl *im = &nl_gpt2_bench_impls(&n)[_i];
    for (size_t k = 0; k < COUNT(shapes); k++) {
        int rc;
        double err = validate(im, shapes[k], &rc);
        ck_assert_msg(rc == NL_OK, "%s on %zux%zu returned %d: %s", im->name, shapes[k].rows,
                      shapes[k].d, rc, nl_last_error());
        ck_assert_msg(err <= TOL, "%s on %zux%zu: max |y - ref| / max |ref| = %.3g, expected "
                      "<= %g (a ragged tile or a block edge dropped or counted twice?)",
                      im->name, shapes[k].rows, shapes[k].d, err, TOL);
    }
}
END_TEST

/* FlashNorm's classic mistake: the bias inside the scale, rstd (x w + b). */
static int scaled_bias(const nl_gpt2_bench *p)
{
    nl_gpt2_matmul_flashnorm(p->b->x, p->wt, NULL, p->b->eps, p->T, p->C, p->n, p->rstd, p->y);
    for (size_t t = 0; t < p->T; t++)
        for (size_t o = 0; o < p->n; o++)
            p->y[t * p->n + o] += p->rstd[t] * p->bias[o];
    return NL_OK;
}

/* The mean square over the outputs' count instead of the inputs'. */
static int wrong_width(const nl_gpt2_bench *p)
{
    nl_gpt2_matmul_flashnorm(p->b->x, p->wt, NULL, p->b->eps, p->T, p->C, p->n, p->rstd, p->y);
    for (size_t t = 0; t < p->T; t++) {
        float s = sqrtf((float)p->n / (float)p->C); /* undo /C, divide by n */
        for (size_t o = 0; o < p->n; o++)
            p->y[t * p->n + o] = p->y[t * p->n + o] * s + p->bias[o];
    }
    return NL_OK;
}

/* The matmul without the scale: what forgetting the deferred 1/rms gives. */
static int no_scale(const nl_gpt2_bench *p)
{
    nl_gpt2_matmul(p->b->x, p->wt, p->bias, p->T, p->C, p->n, p->y);
    return NL_OK;
}

START_TEST(a_wrong_flashnorm_fails_the_check)
{
    const nl_gpt2_bench_impl *right = nl_find_gpt2_bench("gpt2_qkv_flashnorm");
    ck_assert(right);
    const struct { int (*run)(const nl_gpt2_bench *); const char *what; } wrong[] = {
        {scaled_bias, "the bias scaled by 1/rms"},
        {wrong_width, "the mean square over 3C outputs instead of C inputs"},
        {no_scale, "the 1/rms never applied"},
    };
    for (size_t k = 0; k < COUNT(wrong); k++) {
        nl_gpt2_bench_impl planted = *right;
        planted.run = wrong[k].run;
        int rc;
        double err = validate(&planted, (nl_shape){16, 768}, &rc);
        ck_assert_int_eq(rc, NL_OK);
        ck_assert_msg(err > 100 * TOL, "a FlashNorm with %s passed the bench's check: error "
                      "%.3g, expected far above the tolerance %g", wrong[k].what, err, TOL);
    }
}
END_TEST

START_TEST(crmsnorm_needs_two_channels)
{
    int rc;
    double err = validate(nl_find_gpt2_bench("gpt2_crmsnorm_c"), (nl_shape){3, 1}, &rc);
    ck_assert_msg(rc == NL_EARG && isnan(err), "Pre-CRMSNorm of 1 channel keeps 0 values: "
                  "expected NL_EARG, got %d", rc);
    ck_assert_msg(strstr(nl_last_error(), "d >= 2"), "message: %s", nl_last_error());
}
END_TEST

/* `normlab bench FLAG --shape S --samples 1 --csv F`: every row of the
 * kind in the CSV, status ok, its error within its tolerance. */
static void rows_in_csv(const char *flag, const char *shape, const char *prefix, size_t want)
{
    nl_scratch_clear();
    const char *csv = nl_scratch_name("gpt2-bench.csv");
    const char *args[] = {"bench", flag, "--shape", shape, "--samples", "1", "--threads", "1",
                          "--csv", csv, NULL};
    nl_run_result *r = malloc(sizeof *r);
    ck_assert(r);
    nl_run_normlab(r, args, NULL);
    ck_assert_msg(r->exited && r->code == 0, "normlab bench %s exited %d\nstderr: %s", flag,
                  r->code, r->err);
    FILE *f = fopen(csv, "r");
    ck_assert_msg(f, "no CSV at %s", csv);
    char line[4096];
    nl_csv_layout layout;
    int header = 0;
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = 0;
        if (!header) {
            ck_assert_msg(nl_csv_read_header(line, &layout), "%s", nl_last_error());
            header = 1;
            continue;
        }
        nl_bench_row row;
        ck_assert(nl_csv_read_row(line, &layout, &row));
        ck_assert_msg(!strncmp(row.impl, prefix, strlen(prefix)), "bench %s wrote a row of %s, "
                      "not one of chapter 12's", flag, row.impl);
        ck_assert_msg(!strcmp(row.status, "ok") && row.max_err <= row.tol && row.median_s > 0,
                      "%s: status %s, error %g (tol %g), median %g s", row.impl, row.status,
                      row.max_err, row.tol, row.median_s);
        rows++;
    }
    fclose(f);
    ck_assert_msg(rows == want, "bench %s wrote %zu rows, expected %zu", flag, rows, want);
    free(r);
    nl_scratch_clear();
}

START_TEST(bench_gpt2_writes_its_rows)
{
    rows_in_csv("--gpt2", "8x96", "gpt2_", 5);
}
END_TEST

START_TEST(bench_flashnorm_writes_its_rows)
{
    rows_in_csv("--flashnorm", "8x64", "gpt2_", 7); /* 6 matmuls, the norm alone */
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("gpt2_bench");
    TCase *tc = tcase_create("rows");
    size_t n;
    nl_gpt2_bench_impls(&n);
    tcase_add_loop_test(tc, every_row_agrees_with_its_reference, 0, (int)n);
    tcase_add_test(tc, a_wrong_flashnorm_fails_the_check);
    tcase_add_test(tc, crmsnorm_needs_two_channels);
    suite_add_tcase(s, tc);
    TCase *cli = tcase_create("command line");
    tcase_set_timeout(cli, 120); /* starts the real binary; sanitizer builds start slowly */
    tcase_add_test(cli, bench_gpt2_writes_its_rows);
    tcase_add_test(cli, bench_flashnorm_writes_its_rows);
    suite_add_tcase(s, cli);
    return s;
}
