/* train-report.c — chapter 13's numbers and figure, drawn from the CSV
 * `make train-experiment` writes (book/data/train-reference.csv;
 * $NORMLAB_TRAIN_CSV names another): the rows of every `normlab train`
 * run, LayerNorm and RMSNorm for each seed, after `# key: name=value`
 * comment lines (the runs' model, data and optimizer, and the conversion
 * check the experiment ends with).
 *
 *   train-report [numbers]        `key value` lines for the book ({{key}})
 *   train-report figure           gnuplot data: one block per run (norm,
 *                                 seed) of step, validation loss, seconds
 *                                 of training so far
 *   train-report compare A B      max |a - b| / max |a| of two .npy files
 *                                 (the logits of a model and its
 *                                 conversion), as logits_rel_error=E
 *
 * A run's speed is the median of its steps' ms (steps 2 on: the first
 * pays for touching its memory), its final loss the validation loss of
 * its last step; across seeds, the mean, the spread (sample standard
 * deviation) and the range.  A file without both norms' runs for the same
 * seeds stops with a message, never with numbers made up. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normlab.h"

enum { MAX_ROWS = 200000, MAX_RUNS = 64, LINE = 4096 };

typedef struct {
    int ln; /* 1 LayerNorm, 0 RMSNorm */
    unsigned seed, threads, step;
    double loss, val, ms, norms, train_ms;
} row;

static row rows[MAX_ROWS];
static size_t nrows;
static char comments[64][LINE];
static size_t ncomments;
static const char *path;

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "train-report: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    exit(1);
}

static void load(void)
{
    path = getenv("NORMLAB_TRAIN_CSV");
    if (!path || !*path)
        path = "book/data/train-reference.csv";
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot read %s (make train-experiment writes it)", path);
    static char line[LINE];
    int header = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#') {
            if (ncomments < 64)
                snprintf(comments[ncomments++], LINE, "%s", line);
            continue;
        }
        if (!header) {
            if (strncmp(line, "norm,seed,threads,step,train_loss,val_loss,ms_step,ms_norms,"
                              "train_ms", 70))
                die("%s: the header is not normlab train's", path);
            header = 1;
            continue;
        }
        char norm[32];
        row r;
        if (nrows == MAX_ROWS ||
            sscanf(line, "%31[^,],%u,%u,%u,%lf,%lf,%lf,%lf,%lf", norm, &r.seed, &r.threads,
                   &r.step, &r.loss, &r.val, &r.ms, &r.norms, &r.train_ms) != 9)
            die("%s: a row that is not normlab train's, or too many rows", path);
        if (strcmp(norm, "layernorm") && strcmp(norm, "rmsnorm"))
            die("%s: a run of a norm other than layernorm and rmsnorm", path);
        r.ln = !strcmp(norm, "layernorm");
        rows[nrows++] = r;
    }
    fclose(f);
    if (!nrows)
        die("%s: no rows", path);
}

/* The value of `name=` in the first comment line that starts with
 * `# kind:` and holds it, or NULL. */
static const char *field(const char *kind, const char *name, char *out, size_t n)
{
    char prefix[64], key[64];
    snprintf(prefix, sizeof prefix, "# %s:", kind);
    snprintf(key, sizeof key, " %s=", name);
    for (size_t i = 0; i < ncomments; i++) {
        if (strncmp(comments[i], prefix, strlen(prefix)))
            continue;
        const char *p = strstr(comments[i], key);
        if (!p)
            continue;
        p += strlen(key);
        size_t len = strcspn(p, " ");
        snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
        return out;
    }
    return NULL;
}

/* ----------------------------------------------------------------- runs */
typedef struct {
    int ln;
    unsigned seed;
    double final_val, first_val, ms, norms, minutes;
    unsigned steps;
} run;

static run runs[MAX_RUNS];
static size_t nruns;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void collect(void)
{
    static double ms[MAX_ROWS], norms[MAX_ROWS];
    for (size_t i = 0; i < nrows; i++) {
        size_t k = 0;
        while (k < nruns && !(runs[k].ln == rows[i].ln && runs[k].seed == rows[i].seed))
            k++;
        if (k == nruns) {
            if (nruns == MAX_RUNS)
                die("%s: more runs than this report reads", path);
            runs[nruns++] = (run){.ln = rows[i].ln, .seed = rows[i].seed, .final_val = NAN,
                                  .first_val = NAN};
        }
    }
    for (size_t k = 0; k < nruns; k++) {
        run *r = &runs[k];
        size_t n = 0;
        for (size_t i = 0; i < nrows; i++) {
            const row *w = &rows[i];
            if (w->ln != r->ln || w->seed != r->seed)
                continue;
            if (w->step == 0)
                r->first_val = w->val;
            if (w->step >= r->steps && !isnan(w->val)) {
                r->steps = w->step;
                r->final_val = w->val;
                r->minutes = w->train_ms / 60e3;
            }
            if (w->step >= 2) {
                ms[n] = w->ms;
                norms[n++] = w->norms;
            }
        }
        if (!n || isnan(r->final_val) || isnan(r->first_val))
            die("%s: a run without steps beyond the first or without validation losses", path);
        r->ms = median(ms, n);
        r->norms = median(norms, n);
    }
    /* the comparison is paired: every seed has both norms' runs */
    for (size_t k = 0; k < nruns; k++) {
        size_t pair = 0;
        for (size_t j = 0; j < nruns; j++)
            pair += runs[j].seed == runs[k].seed && runs[j].ln != runs[k].ln &&
                    runs[j].steps == runs[k].steps;
        if (pair != 1)
            die("%s: a seed without one run of each norm of the same length", path);
    }
}

typedef struct {
    double mean, sd, min, max;
    size_t n;
} spread;

/* Over one norm's runs, of the value `get` picks. */
static spread over(int ln, double (*get)(const run *))
{
    spread s = {0, 0, INFINITY, -INFINITY, 0};
    for (size_t k = 0; k < nruns; k++)
        if (runs[k].ln == ln) {
            double v = get(&runs[k]);
            s.mean += v;
            s.min = fmin(s.min, v);
            s.max = fmax(s.max, v);
            s.n++;
        }
    s.mean /= (double)s.n;
    for (size_t k = 0; k < nruns; k++)
        if (runs[k].ln == ln)
            s.sd += (get(&runs[k]) - s.mean) * (get(&runs[k]) - s.mean);
    s.sd = s.n > 1 ? sqrt(s.sd / (double)(s.n - 1)) : 0;
    return s;
}

static double final_val(const run *r) { return r->final_val; }
static double first_val(const run *r) { return r->first_val; }
static double ms_of(const run *r) { return r->ms; }
static double norms_of(const run *r) { return r->norms; }
static double minutes_of(const run *r) { return r->minutes; }

/* The RMSNorm run's final loss minus the LayerNorm run's of its seed. */
static spread paired_difference(void)
{
    spread s = {0, 0, INFINITY, -INFINITY, 0};
    double d[MAX_RUNS];
    for (size_t k = 0; k < nruns; k++) {
        if (runs[k].ln)
            continue;
        for (size_t j = 0; j < nruns; j++)
            if (runs[j].ln && runs[j].seed == runs[k].seed)
                d[s.n++] = runs[k].final_val - runs[j].final_val;
    }
    for (size_t i = 0; i < s.n; i++) {
        s.mean += d[i] / (double)s.n;
        s.min = fmin(s.min, d[i]);
        s.max = fmax(s.max, d[i]);
    }
    for (size_t i = 0; i < s.n; i++)
        s.sd += (d[i] - s.mean) * (d[i] - s.mean);
    s.sd = s.n > 1 ? sqrt(s.sd / (double)(s.n - 1)) : 0;
    return s;
}

/* key.mean, key.sd, key.min, key.max; signed: with a sign but for sd. */
static void print_spread(const char *key, spread s, int decimals, int sign)
{
    const char *plus = sign ? "+" : "";
    printf("%s.mean %s%.*f\n", key, s.mean >= 0 ? plus : "", decimals, s.mean);
    printf("%s.sd %.*f\n", key, decimals, s.sd);
    printf("%s.min %s%.*f\n", key, s.min >= 0 ? plus : "", decimals, s.min);
    printf("%s.max %s%.*f\n", key, s.max >= 0 ? plus : "", decimals, s.max);
}

static void numbers(void)
{
    collect();
    char v[256];
    static const char *const model[] = {"layers", "channels", "heads", "context", "vocab"};
    for (size_t i = 0; i < sizeof model / sizeof model[0]; i++)
        if (field("model", model[i], v, sizeof v))
            printf("train.%s %s\n", model[i], v);
    static const char *const data[] = {"train_tokens", "val_tokens", "batch", "seq",
                                       "val_every", "val_batches"};
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        if (field("data", data[i], v, sizeof v))
            printf("train.%s %s\n", data[i], v);
    if (field("optimizer", "lr", v, sizeof v))
        printf("train.lr %s\n", v);
    if (field("convert", "logits_rel_error", v, sizeof v))
        printf("train.convert.logits_rel_error %s\n", v);
    if (field("convert", "sample_bytes", v, sizeof v))
        printf("train.convert.sample_bytes %s\n", v);
    if (field("convert", "sample_identical", v, sizeof v))
        printf("train.convert.sample_identical %s\n", atoi(v) ? "identical" : "different");
    if (field("model", "layers", v, sizeof v)) { /* per step: 2L + 1 norms, 4L + 1 linear layers */
        printf("train.norm_calls %d\n", 2 * atoi(v) + 1);
        printf("train.linear_layers %d\n", 4 * atoi(v) + 1);
    }
    if (field("model", "params", v, sizeof v))
        printf("train.params %s\n", v);
    printf("train.steps %u\n", runs[0].steps);
    printf("train.threads %u thread%s\n", rows[0].threads, rows[0].threads == 1 ? "" : "s");
    printf("train.seeds %zu\n", nruns / 2);
    double tokens = field("data", "batch", v, sizeof v) ? atof(v) : NAN;
    tokens *= field("data", "seq", v, sizeof v) ? atof(v) : NAN;
    static const char *const name[2] = {"rms", "ln"};
    double ms[2], norms[2], ms_sd = 0;
    for (int ln = 0; ln < 2; ln++) {
        char key[64];
        snprintf(key, sizeof key, "train.%s.val", name[ln]);
        print_spread(key, over(ln, final_val), 3, 0);
        printf("train.%s.val0 %.3f\n", name[ln], over(ln, first_val).mean);
        spread t = over(ln, ms_of), n = over(ln, norms_of);
        ms[ln] = t.mean, norms[ln] = n.mean, ms_sd = fmax(ms_sd, t.sd);
        snprintf(key, sizeof key, "train.%s.ms", name[ln]);
        print_spread(key, t, 1, 0);
        printf("train.%s.norms_ms %.2f\n", name[ln], n.mean);
        printf("train.%s.norms_pct %.1f\n", name[ln], 100 * n.mean / t.mean);
        printf("train.%s.tokens_per_s %.0f\n", name[ln], tokens / t.mean * 1e3);
        printf("train.%s.minutes %.1f\n", name[ln], over(ln, minutes_of).mean);
    }
    for (size_t k = 0; k < nruns; k++) { /* every run, for the lab notebook */
        const run *r = &runs[k];
        printf("train.run.%s.%u.val %.3f\n", name[r->ln], r->seed, r->final_val);
        printf("train.run.%s.%u.ms %.1f\n", name[r->ln], r->seed, r->ms);
        printf("train.run.%s.%u.norms_ms %.2f\n", name[r->ln], r->seed, r->norms);
        printf("train.run.%s.%u.minutes %.1f\n", name[r->ln], r->seed, r->minutes);
    }
    spread d = paired_difference();
    print_spread("train.diff", d, 3, 1);
    /* The paired difference's 95% interval by Student's t, with n - 1
     * degrees of freedom: three seeds make a wide one, and whether it
     * holds zero is the chapter's sentence on quality. */
    static const double t975[] = {12.706, 4.303, 3.182, 2.776, 2.571,
                                  2.447,  2.365, 2.306, 2.262, 2.228};
    double t = d.n >= 2 && d.n - 1 <= 10 ? t975[d.n - 2] : 2.0; /* 2.0: df > 10, close enough */
    double half = d.n >= 2 ? t * d.sd / sqrt((double)d.n) : INFINITY;
    double lo = d.mean - half, hi = d.mean + half;
    printf("train.diff.lo %+.3f\ntrain.diff.hi %+.3f\n", lo, hi);
    int holds = lo <= 0 && hi >= 0;
    printf("train.diff.zero %s\n", holds ? "holds" : "leaves out");
    printf("train.diff.verdict %s\n",
           holds           ? "these seeds cannot tell the two norms apart"
           : d.mean > 0    ? "RMSNorm ends higher than LayerNorm, beyond these seeds' noise"
                           : "RMSNorm ends lower than LayerNorm, beyond these seeds' noise");
    printf("train.norms_saved_pct %.0f\n", 100 * (1 - norms[0] / norms[1]));
    printf("train.norms_saved_ms %.2f\n", norms[1] - norms[0]);
    /* what the norms saved, as a share of a step, and the steps' own
     * difference against their spread over the seeds: on a busy machine
     * the second can swamp the first, and the chapter says which */
    printf("train.norms_saved_step_pct %.2f\n", 100 * (norms[1] - norms[0]) / ms[1]);
    printf("train.step_diff_ms %+.1f\n", ms[0] - ms[1]);
    printf("train.step_sd %.1f\n", ms_sd);
    printf("train.step_compared %s\n", fabs(ms[0] - ms[1]) < ms_sd ? "smaller than" : "larger than");
}

static void figure(void)
{
    collect();
    printf("# chapter 13: one block per run: step, validation loss, seconds of training\n");
    for (size_t k = 0; k < nruns; k++) {
        printf("%s# %s seed %u\n", k ? "\n\n" : "", runs[k].ln ? "LayerNorm" : "RMSNorm",
               runs[k].seed);
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].ln == runs[k].ln && rows[i].seed == runs[k].seed && !isnan(rows[i].val))
                printf("%u %.5f %.3f %d\n", rows[i].step, rows[i].val, rows[i].train_ms / 1e3,
                       runs[k].ln);
    }
}

static int compare(const char *a, const char *b)
{
    nl_array x, y;
    if (nl_npy_read(a, &x) != NL_OK || nl_npy_read(b, &y) != NL_OK)
        die("%s", nl_last_error());
    if (x.elem != NL_ELEM_F32 || y.elem != NL_ELEM_F32 || x.count != y.count)
        die("%s: two float32 arrays of the same size are compared", b);
    double diff = 0, scale = 0;
    for (size_t i = 0; i < x.count; i++) {
        double p = ((float *)x.data)[i], q = ((float *)y.data)[i];
        diff = isnan(p - q) ? NAN : fmax(diff, fabs(p - q));
        scale = fmax(scale, fabs(p));
    }
    printf("logits_rel_error=%.2g\n", diff / scale);
    nl_array_free(&x);
    nl_array_free(&y);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "compare"))
        return compare(argv[2], argv[3]);
    load();
    if (argc == 1 || (argc == 2 && !strcmp(argv[1], "numbers")))
        numbers();
    else if (argc == 2 && !strcmp(argv[1], "figure"))
        figure();
    else
        die("usage: train-report [numbers | figure | compare A.npy B.npy]%s", "");
    return 0;
}
