/* demo.c — `normlab demo`, what plain `make` runs.
 *
 * Part 1 reproduces the seed article's Python experiment digit for digit
 * (code/experiment/seed_experiment.c) and shows that its LayerNorm figure is rounding
 * noise. Part 2 runs the ladder: every registered implementation is first
 * checked against the double reference and only then timed, so no speed is
 * ever reported for a wrong answer. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/sizes.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: normlab demo [--rows N] [--d N] [--runs N] [--no-ladder | --no-experiment]\n"
            "\n"
            "Part 1 reproduces the seed article's experiment (random.seed(7), 512 tokens of\n"
            "1024 gauss(0, 3) values, LayerNorm and RMSNorm in double) and its three figures.\n"
            "Part 2 checks every registered implementation against the double reference,\n"
            "then times those that pass and prints the ladder table.\n"
            "\n"
            "  --rows N          rows of the ladder's problem (default 1024)\n"
            "  --d N             values per row (default 1024)\n"
            "  --runs N          timed runs at least, after one warm-up (default 7)\n"
            "  --no-ladder       part 1 only (alias: --only-experiment)\n"
            "  --no-experiment   part 2 only (alias: --only-ladder)\n"
            "\n"
            "Exit status: 0, or 1 when an implementation fails its check, 2 on bad usage.\n");
}

/* ------------------------------------------------------------- part 1 */

static const char *same_digits(double got, const char *article)
{
    char text[32];
    snprintf(text, sizeof text, "%.6f", got);
    return strcmp(text, article) == 0 ? "same" : "DIFFERS";
}

static int run_experiment(void)
{
    nl_seed_figures ll, le, el, ee, nn;
    if (nl_seed_experiment(NL_SUM_LEFT, NL_SUM_LEFT, &ll) != NL_OK ||
        nl_seed_experiment(NL_SUM_LEFT, NL_SUM_EXACT, &le) != NL_OK ||
        nl_seed_experiment(NL_SUM_EXACT, NL_SUM_LEFT, &el) != NL_OK ||
        nl_seed_experiment(NL_SUM_EXACT, NL_SUM_EXACT, &ee) != NL_OK ||
        nl_seed_experiment(NL_SUM_NEUMAIER, NL_SUM_NEUMAIER, &nn) != NL_OK) {
        fprintf(stderr, "normlab demo: the experiment failed: %s\n", nl_last_error());
        return 1;
    }

    printf("Part 1. The seed article's experiment, in C\n\n");
    printf("  random.seed(7); %d tokens x %d values of random.gauss(0.0, 3.0); w = 1, b = 0,\n"
           "  eps = 1e-6; LayerNorm and RMSNorm in double. code/experiment/pyrandom.c draws exactly\n"
           "  Python's numbers and the norms keep the article's order of operations.\n"
           "  Each figure is the article's \"mean per token\": the LARGEST |mean| over the\n"
           "  %d tokens, max(abs(sum(v) / D) for v in rows), not the mean of one token.\n\n",
           NL_SEED_TOKENS, NL_SEED_D, NL_SEED_TOKENS);
    printf("  %-14s %10s %10s\n", "figure", "this run", "article");
    printf("  %-14s %10.6f %10s   %s\n", "input x", ll.input, "0.268950",
           same_digits(ll.input, "0.268950"));
    printf("  %-14s %10.2e %10s   %s\n", "LayerNorm(x)", ll.layernorm, "3.75e-17",
           "rounding noise: see below");
    printf("  %-14s %10.6f %10s   %s\n\n", "RMSNorm(x)", ll.rmsnorm, "0.087061",
           same_digits(ll.rmsnorm, "0.087061"));
    printf("  input x       tokens are not centred: a mean of 1024 draws of sigma 3 strays by\n"
           "                about 3 / sqrt(1024) = 0.094; the largest of 512 such means is 0.27.\n"
           "  LayerNorm(x)  zero but for rounding: LayerNorm subtracts each token's mean.\n"
           "  RMSNorm(x)    not zero: RMSNorm only divides each token by its RMS (about 3),\n"
           "                so the means shrink (0.269 / 0.087 = %.2f) but stay.\n\n",
           ll.input / ll.rmsnorm);

    printf("  The LayerNorm figure is rounding noise. It moves with how the sums are taken,\n"
           "  inside the norm (mean, variance) and when measuring the output's mean:\n\n");
    printf("    %-30s %15s %15s\n", "", "measured", "measured");
    printf("    %-30s %15s %15s\n", "", "left to right", "exactly");
    printf("    %-30s %15.2e %15.2e\n", "norm's sums left to right", ll.layernorm, le.layernorm);
    printf("    %-30s %15.2e %15.2e\n", "norm's sums exact", el.layernorm, ee.layernorm);
    printf("    %-30s %15s %15.2e\n\n", "every sum Neumaier-compensated", "", nn.layernorm);
    printf("  Python 3.11 and older add left to right (top left: the figure above).\n"
           "  Python 3.12 made sum() of floats Neumaier-compensated (last row); Pythons 3.12\n"
           "  and 3.13 print 3.74e-17 on the machine this was written on, none the article's\n"
           "  3.75e-17. Each is about one rounding step of the outputs (doubles near 1 are\n"
           "  2.2e-16 apart), 15 orders of magnitude below the input's figure: noise, not a\n"
           "  mean left behind. The input and RMSNorm figures keep their six digits under\n"
           "  every one of these sums.\n\n");
    return 0;
}

/* ------------------------------------------------------------- part 2 */

typedef enum { ROW_PASS, ROW_FAIL, ROW_SKIP } row_status;

typedef struct {
    row_status status;
    double max_err;
    double median_s;
    char why[160]; /* skip reason or failure message */
} ladder_row;

typedef struct {
    size_t rows, d, min_runs;
    float eps;
    float *x, *y, *gamma, *beta;
    double *ref_ln, *ref_rms;
} ladder_problem;

static void check_then_time(const nl_impl *im, const ladder_problem *p, ladder_row *row)
{
    memset(row, 0, sizeof *row);
    const char *why = nl_impl_unavailable(im);
    if (why) {
        row->status = ROW_SKIP;
        snprintf(row->why, sizeof row->why, "%s", why);
        return;
    }
    const float *beta = im->norm == NL_LAYERNORM ? p->beta : NULL;
    size_t n = p->rows * p->d;

    /* Poison y first: an implementation that leaves values unwritten
     * must fail the check rather than inherit the previous one's output. */
    for (size_t i = 0; i < n; i++)
        p->y[i] = NAN;
    int rc = im->fn(p->x, p->gamma, beta, p->eps, p->rows, p->d, p->y);
    if (rc == NL_EUNAVAIL) {
        row->status = ROW_SKIP;
        snprintf(row->why, sizeof row->why, "%s", nl_last_error());
        return;
    }
    if (rc != NL_OK) {
        row->status = ROW_FAIL;
        row->max_err = NAN;
        snprintf(row->why, sizeof row->why, "returned %d: %s", rc, nl_last_error());
        return;
    }
    row->max_err = nl_max_abs_diff(p->y, im->norm == NL_LAYERNORM ? p->ref_ln : p->ref_rms, n);
    if (isnan(row->max_err)) {
        row->status = ROW_FAIL;
        snprintf(row->why, sizeof row->why, "NaN in the output (or a value left unwritten)");
        return;
    }
    if (row->max_err > im->tol) {
        row->status = ROW_FAIL;
        snprintf(row->why, sizeof row->why, "error %.3g exceeds its stated bound %.0e", row->max_err,
                 im->tol);
        return;
    }

    /* Time: one warm-up (caches, page faults, OpenCL kernel builds), then
     * at least min_runs runs, more while they are cheap, so fast kernels
     * get enough samples for a steady median without slow ones taking
     * long. */
    enum { MAX_EXTRA = 50 };
    const double budget_s = 0.25;
    size_t cap = p->min_runs > MAX_EXTRA ? p->min_runs : MAX_EXTRA;
    double *t = malloc(cap * sizeof *t);
    if (!t) {
        row->status = ROW_FAIL;
        snprintf(row->why, sizeof row->why, "out of memory for timings");
        return;
    }
    im->fn(p->x, p->gamma, beta, p->eps, p->rows, p->d, p->y);
    double spent = 0.0;
    size_t k = 0;
    while (k < cap && (k < p->min_runs || spent < budget_s)) {
        double t0 = nl_now();
        im->fn(p->x, p->gamma, beta, p->eps, p->rows, p->d, p->y);
        t[k] = nl_now() - t0;
        spent += t[k++];
    }
    nl_stats st = nl_summarize(t, k);
    free(t);
    row->status = ROW_PASS;
    row->median_s = st.median;
}

/* The yardstick for speed-ups: the naive implementation of the same norm
 * (by name, else the first one of that norm, which ladder order makes
 * the simplest). */
static size_t baseline_of(const nl_impl *all, size_t n, nl_norm norm)
{
    size_t first = n;
    for (size_t i = 0; i < n; i++) {
        if (all[i].norm != norm)
            continue;
        if (first == n)
            first = i;
        size_t len = strlen(all[i].name);
        if (len >= 6 && strcmp(all[i].name + len - 6, "_naive") == 0)
            return i;
    }
    return first;
}

static int run_ladder(size_t rows, size_t d, size_t min_runs)
{
    size_t n_impls;
    const nl_impl *all = nl_impls(&n_impls);

    if (d > ((size_t)-1) / sizeof(double) / rows) {
        fprintf(stderr, "normlab demo: %zu x %zu is too large\n", rows, d);
        return 1;
    }
    size_t n = rows * d;
    ladder_problem p = {rows, d, min_runs, 1e-5f, NULL, NULL, NULL, NULL, NULL, NULL};
    p.x = nl_alloc(n * sizeof(float));
    p.y = nl_alloc(n * sizeof(float));
    p.gamma = nl_alloc(d * sizeof(float));
    p.beta = nl_alloc(d * sizeof(float));
    p.ref_ln = nl_alloc(n * sizeof(double));
    p.ref_rms = nl_alloc(n * sizeof(double));
    ladder_row *res = calloc(n_impls ? n_impls : 1, sizeof *res);
    int status = 0;
    if (!p.x || !p.y || !p.gamma || !p.beta || !p.ref_ln || !p.ref_rms || !res) {
        fprintf(stderr, "normlab demo: not enough memory for %zu x %zu (try smaller --rows/--d)\n",
                rows, d);
        status = 1;
        goto out;
    }

    /* Unit-scale data, the scale the stated bounds are for. gamma and beta
     * are not 1 and 0, so a kernel that drops them fails; |gamma| <= 1
     * keeps the error no larger than with gamma = 1. */
    nl_pyrandom rng;
    nl_pyrandom_seed(&rng, 7);
    for (size_t i = 0; i < n; i++)
        p.x[i] = (float)nl_pyrandom_gauss(&rng, 0.0, 1.0);
    for (size_t i = 0; i < d; i++) {
        p.gamma[i] = (float)(0.5 + 0.5 * nl_pyrandom_random(&rng));
        p.beta[i] = (float)(nl_pyrandom_random(&rng) - 0.5);
    }
    nl_reference(NL_LAYERNORM, p.x, p.gamma, p.beta, p.eps, rows, d, p.ref_ln);
    nl_reference(NL_RMSNORM, p.x, p.gamma, NULL, p.eps, rows, d, p.ref_rms);

    size_t name_w = strlen("implementation");
    for (size_t i = 0; i < n_impls; i++)
        if (strlen(all[i].name) > name_w)
            name_w = strlen(all[i].name);

    printf("Part 2. The verified ladder: every registered implementation, checked, then timed\n\n");
    printf("  Problem: %zu rows x %zu float32 values, x from gauss(0, 1), gamma in [0.5, 1],\n"
           "  beta in [-0.5, 0.5], eps = 1e-5. Each implementation is first compared with the\n"
           "  double-precision reference: its max |y - reference| must be within the bound it\n"
           "  states (tol) or it FAILs and is not timed. Then 1 warm-up and at least %zu timed\n"
           "  runs; the median is shown. GB/s counts x read and y written, 8 bytes per value\n"
           "  (gamma and beta, %zu values each, are negligible). Speed-up is over the naive\n"
           "  implementation of the same norm.\n\n",
           rows, d, min_runs, d);
    printf("  (checking and timing %zu implementations...)\n\n", n_impls);
    fflush(stdout);

    for (size_t i = 0; i < n_impls; i++)
        check_then_time(&all[i], &p, &res[i]);

    int iw = (int)name_w;
    printf("  %-*s  %-9s  %9s  %7s  %-5s  %9s  %7s  %8s\n", iw, "implementation", "norm",
           "max error", "tol", "check", "median ms", "GB/s", "speed-up");
    size_t passed = 0, failed = 0, skipped = 0;
    double bytes = 2.0 * (double)n * sizeof(float);
    for (size_t i = 0; i < n_impls; i++) {
        const nl_impl *im = &all[i];
        const ladder_row *r = &res[i];
        if (r->status == ROW_SKIP) {
            skipped++;
            printf("  %-*s  %-9s  skipped: %s\n", iw, im->name, nl_norm_name(im->norm), r->why);
            continue;
        }
        if (r->status == ROW_FAIL) {
            failed++;
            status = 1;
            char err[16] = "-";
            if (!isnan(r->max_err))
                snprintf(err, sizeof err, "%.2e", r->max_err);
            printf("  %-*s  %-9s  %9s  %7.0e  %-5s  %s\n", iw, im->name, nl_norm_name(im->norm),
                   err, im->tol, "FAIL", r->why);
            continue;
        }
        passed++;
        size_t b = baseline_of(all, n_impls, im->norm);
        char speedup[32] = "-";
        if (b < n_impls && res[b].status == ROW_PASS && r->median_s > 0)
            snprintf(speedup, sizeof speedup, "%.2fx", res[b].median_s / r->median_s);
        printf("  %-*s  %-9s  %9.2e  %7.0e  %-5s  %9.4g  %7.2f  %8s\n", iw, im->name,
               nl_norm_name(im->norm), r->max_err, im->tol, "PASS", r->median_s * 1e3,
               r->median_s > 0 ? bytes / r->median_s / 1e9 : 0.0, speedup);
    }
    printf("\n  %zu passed, %zu failed, %zu skipped (not runnable here).\n", passed, failed,
           skipped);
    if (failed)
        printf("  A FAIL is an implementation that errs or computes a wrong output here;\n"
               "  `make test` runs the property suites, whose messages say more.\n");
    printf("  For shapes, spread and the copy-bandwidth ceiling: normlab bench.\n");

out:
    nl_free(p.x);
    nl_free(p.y);
    nl_free(p.gamma);
    nl_free(p.beta);
    nl_free(p.ref_ln);
    nl_free(p.ref_rms);
    free(res);
    return status;
}

int cmd_demo(int argc, char **argv)
{
    size_t rows = 1024, d = 1024, runs = 7;
    int no_experiment = 0, no_ladder = 0;
    /* Every size has a bound, so that 2^62 runs is refused, not attempted;
     * rows and d are bounded together by nl_check_shape below. */
    const nl_option opts[] = {
        {"--rows", NL_OPT_SIZE, &rows, SIZE_MAX, NULL, NULL},
        {"--d", NL_OPT_SIZE, &d, SIZE_MAX, NULL, NULL},
        {"--runs", NL_OPT_SIZE, &runs, 100000, NULL, NULL},
        {"--no-ladder", NL_OPT_FLAG, &no_ladder, 0, NULL, "--only-experiment"},
        {"--no-experiment", NL_OPT_FLAG, &no_experiment, 0, NULL, "--only-ladder"},
    };
    int code;
    if (!nl_options_parse("demo", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    int experiment = !no_experiment, ladder = !no_ladder;
    if (!experiment && !ladder)
        return nl_usage_error("demo", "--no-ladder and --no-experiment leave nothing to run");

    /* x, y, gamma, beta and the double reference: checked before Part 1
     * runs, so a bad shape fails at once and names --rows and --d. */
    if (ladder && !nl_check_shape(rows, d, 6))
        return nl_usage_error("demo", "--rows %zu --d %zu: %s", rows, d, nl_last_error());

    printf("normlab demo: One Word Less, from LayerNorm to RMSNorm\n\n");
    int status = 0;
    if (experiment)
        status |= run_experiment();
    if (ladder)
        status |= run_ladder(rows, d, runs);
    return status ? 1 : 0;
}
