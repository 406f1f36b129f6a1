/* gpt2-bench.c — chapter 12's bench numbers and figure, drawn from the two
 * CSVs `normlab bench --gpt2` and `normlab bench --flashnorm` wrote
 * (book/data/gpt2-norms-reference.csv, book/data/flashnorm-reference.csv;
 * $NORMLAB_GPT2_NORMS_CSV and $NORMLAB_FLASHNORM_CSV name others).
 *
 *   gpt2-bench [numbers]   `key value` lines for the book ({{key}} in prose)
 *   gpt2-bench figure      gnuplot data: norm time per token per model; and
 *                          per matmul, the norm pass's share of it (what
 *                          FlashNorm can save at most) beside the matmul's
 *                          own p10..p90 spread and the measured difference
 *
 * A norm per token is the row's median over its T tokens; per model it is
 * that times 2L + 1 (two norms a layer and the final one), with L from
 * GPT-2's configurations (karpathy/llm.c train_gpt2.py, from_pretrained:
 * gpt2 12 layers at 768, gpt2-medium 24 at 1024, gpt2-xl 48 at 1600).
 * The figure and the savings use each row's p10 (the 10th percentile of
 * its samples): on a shared machine other work only ever adds time, and
 * the median moved by 20% between two runs minutes apart while the p10
 * held; the medians are printed beside them.  Only rows with status ok
 * count; a missing row stops with its name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "normlab.h"

enum { MAX_ROWS = 256, LINE = 8192 };

typedef struct {
    char impl[64];
    size_t rows, d;
    double median, p10, p90, frac, err;
} row;

static row norms[MAX_ROWS], flash[MAX_ROWS];
static size_t nnorms, nflash;

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "gpt2-bench: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

static size_t load(const char *path, row *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot read %s%s (make gpt2-bench-reference writes it)", path, "");
    static char line[LINE];
    nl_csv_layout layout;
    int header = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        if (!header) {
            if (!nl_csv_read_header(line, &layout))
                die("%s: %s", path, nl_last_error());
            header = 1;
            continue;
        }
        nl_bench_row r;
        if (!nl_csv_read_row(line, &layout, &r))
            die("%s: a line with too few fields%s", path, "");
        if (strcmp(r.status, "ok") || n == MAX_ROWS)
            continue;
        row *o = &out[n++];
        snprintf(o->impl, sizeof o->impl, "%s", r.impl);
        o->rows = r.rows, o->d = r.d, o->median = r.median_s, o->p10 = r.p10_s;
        o->p90 = r.p90_s, o->frac = r.frac_copy, o->err = r.max_err;
    }
    fclose(f);
    return n;
}

static const row *find(const row *rows, size_t n, const char *impl, size_t T, size_t d)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].impl, impl) && rows[i].rows == T && rows[i].d == d)
            return &rows[i];
    char shape[64];
    snprintf(shape, sizeof shape, "%zux%zu", T, d);
    die("no ok row of %s on %s in the CSV", impl, shape);
    return NULL;
}

static const struct { size_t C, L; const char *name; } models[] = {
    {768, 12, "124M"}, {1024, 24, "350M"}, {1600, 48, "1558M"},
};
static const char *const norm_rows[] = {
    "gpt2_layernorm_best", "gpt2_rmsnorm_best", "gpt2_layernorm_c", "gpt2_rmsnorm_c",
    "gpt2_crmsnorm_c",
};
static const size_t tokens[] = {64, 256, 1024};
static const char *const layers[] = {"qkv", "fc"};
enum { NT = 1024, FC = 768 }; /* the norm rows' tokens; the matmuls' channels */

static const row *mm(const char *layer, const char *what, size_t T)
{
    char name[64];
    snprintf(name, sizeof name, "gpt2_%s_%s", layer, what);
    return find(flash, nflash, name, T, FC);
}

/* 1 - a / b in percent: what a saves against b */
static double saved(double a, double b) { return 100.0 * (1.0 - a / b); }

static void numbers(void)
{
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        size_t C = models[m].C, per_model = 2 * models[m].L + 1;
        printf("gpt2bench.%zu.layers %zu\ngpt2bench.%zu.norms %zu\n", C, models[m].L, C, per_model);
        const row *r[5];
        for (size_t k = 0; k < 5; k++) {
            r[k] = find(norms, nnorms, norm_rows[k], NT, C);
            const char *s = norm_rows[k] + 5; /* without "gpt2_" */
            double us = r[k]->median / NT * 1e6, fast = r[k]->p10 / NT * 1e6;
            printf("gpt2bench.%zu.%s.us %.3f\n", C, s, us);
            printf("gpt2bench.%zu.%s.p10 %.3f\ngpt2bench.%zu.%s.p90 %.3f\n", C, s, fast, C, s,
                   r[k]->p90 / NT * 1e6);
            printf("gpt2bench.%zu.%s.model %.2f\n", C, s, fast * (double)per_model);
            printf("gpt2bench.%zu.%s.model_median %.2f\n", C, s, us * (double)per_model);
            printf("gpt2bench.%zu.%s.copy %.2f\n", C, s, r[k]->frac);
        }
        /* from the p10s: on a shared machine other work only adds time */
        printf("gpt2bench.%zu.saved.best %.0f\n", C, saved(r[1]->p10, r[0]->p10));
        printf("gpt2bench.%zu.saved.c %.0f\n", C, saved(r[3]->p10, r[2]->p10));
        printf("gpt2bench.%zu.saved.crms %.0f\n", C, saved(r[4]->p10, r[2]->p10));
        printf("gpt2bench.%zu.saved.best_median %.0f\n", C, saved(r[1]->median, r[0]->median));
        printf("gpt2bench.%zu.saved.c_median %.0f\n", C, saved(r[3]->median, r[2]->median));
        printf("gpt2bench.%zu.saved.crms_median %.0f\n", C, saved(r[4]->median, r[2]->median));
        printf("gpt2bench.%zu.saved.model_us %.2f\n", C,
               (r[0]->p10 - r[1]->p10) / NT * 1e6 * (double)per_model);
    }
    double worst = 0;
    for (size_t i = 0; i < nflash; i++)
        worst = flash[i].err > worst ? flash[i].err : worst;
    printf("flashbench.maxerr %.1e\n", worst);
    for (size_t t = 0; t < sizeof tokens / sizeof *tokens; t++) {
        size_t T = tokens[t];
        const row *norm = find(flash, nflash, "gpt2_rmsnorm_c", T, FC);
        printf("flashbench.%zu.norm_ms %.4f\n", T, norm->median * 1e3);
        for (size_t l = 0; l < 2; l++) {
            const row *a = mm(layers[l], "matmul", T), *b = mm(layers[l], "rmsnorm_matmul", T);
            const row *c = mm(layers[l], "flashnorm", T);
            const char *n = layers[l];
            printf("flashbench.%zu.%s.matmul_ms %.2f\n", T, n, a->median * 1e3);
            printf("flashbench.%zu.%s.spread %.2f..%.2f\n", T, n, a->p10 * 1e3, a->p90 * 1e3);
            printf("flashbench.%zu.%s.spread_pct %.0f\n", T, n, 100.0 * (a->p90 - a->p10) / a->median);
            printf("flashbench.%zu.%s.gflops %.1f\n", T, n,
                   2.0 * (double)T * FC * (l ? 4 : 3) * FC / a->median / 1e9);
            printf("flashbench.%zu.%s.norm_share %.2f\n", T, n, 100.0 * norm->median / a->median);
            printf("flashbench.%zu.%s.norm_matmul_ms %.2f\n", T, n, b->median * 1e3);
            printf("flashbench.%zu.%s.flash_ms %.2f\n", T, n, c->median * 1e3);
            printf("flashbench.%zu.%s.saved %.1f\n", T, n, saved(c->median, b->median));
        }
    }
}

static void figure(void)
{
    printf("# model  LayerNorm(best)  RMSNorm(best)  LayerNorm(C)  RMSNorm(C)  CRMSNorm(C)"
           "  (us per token, 2L+1 norms, from each row's p10)\n");
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        printf("\"GPT-2 %s (C=%zu)\"", models[m].name, models[m].C);
        for (size_t k = 0; k < 5; k++)
            printf(" %.3f", find(norms, nnorms, norm_rows[k], NT, models[m].C)->p10 / NT *
                                1e6 * (double)(2 * models[m].L + 1));
        printf("\n");
    }
    printf("\n\n# layer,T  norm-pass  matmul-spread  |FlashNorm - norm+matmul|"
           "  (%% of the matmul alone, or of norm+matmul)\n");
    for (size_t l = 0; l < 2; l++)
        for (size_t t = 0; t < sizeof tokens / sizeof *tokens; t++) {
            size_t T = tokens[t];
            const row *a = mm(layers[l], "matmul", T), *b = mm(layers[l], "rmsnorm_matmul", T);
            printf("\"%s T=%zu\" %.4f %.3f %.3f\n", layers[l], T,
                   100.0 * find(flash, nflash, "gpt2_rmsnorm_c", T, FC)->median / a->median,
                   100.0 * (a->p90 - a->p10) / a->median,
                   fabs(saved(mm(layers[l], "flashnorm", T)->median, b->median)));
        }
}

int main(int argc, char **argv)
{
    int fig = argc > 1 && !strcmp(argv[1], "figure");
    if (argc > 2 || (argc == 2 && !fig && strcmp(argv[1], "numbers"))) {
        fprintf(stderr, "usage: gpt2-bench [numbers|figure]\n");
        return 2;
    }
    const char *n = getenv("NORMLAB_GPT2_NORMS_CSV"), *f = getenv("NORMLAB_FLASHNORM_CSV");
    nnorms = load(n && *n ? n : "book/data/gpt2-norms-reference.csv", norms);
    nflash = load(f && *f ? f : "book/data/flashnorm-reference.csv", flash);
    if (fig)
        figure();
    else
        numbers();
    return 0;
}
