/* bench_fused.c — `normlab bench --fused`: chapter 9's fused add + norm
 * kernels against their unfused pairs, on chapter 6's measuring.
 *
 * Every entry is first checked bit for bit against its unfused pair (a
 * fast wrong answer is not a result), then timed with paired copy
 * samples; its GB/s and fraction of copy count the bytes it must move:
 * 4 floats per element fused, 5 for the pair (nl_fused_values). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block/fused_bench.h"
#include "commands.h"

enum { MAX_SHAPES = 16, DEFAULT_SAMPLES = 11 };

/* The threaded pairs and their fused rungs: what a model would run. */
static const char *const default_impls =
    "add_rmsnorm_unfused_omp,fused_add_rmsnorm_omp,"
    "add_rmsnorm_gemma_unfused_omp,fused_add_rmsnorm_gemma_omp,"
    "add_layernorm_unfused_omp,fused_add_layernorm_omp";
/* Out of cache at LLM widths, then QK-norm's rows (d = head_dim). */
static const char *const default_shapes = "4096x4096,16384x1024,262144x64,131072x128,65536x256";

static void usage(FILE *to)
{
    fprintf(to,
        "usage: normlab bench --fused [OPTIONS]\n"
        "\n"
        "Fused residual add + norm (chapter 9) against the unfused pair: each entry is\n"
        "checked bit for bit against its pair, then timed against copies of the same\n"
        "data; 'of copy' counts the bytes each must move (4 floats per element fused,\n"
        "5 unfused: read x and r, write r, read r, write y).\n"
        "\n"
        "  --shape RxD[,RxD]  default %s\n"
        "  --impl NAME[,NAME] fused registry entries (normlab impls lists the forward ones);\n"
        "                     default the threaded pairs and fused rungs\n"
        "  --threads N        OpenMP threads (default: every core)\n"
        "  --samples N        timed samples per measurement (default %d)\n"
        "  --csv FILE         also write one CSV row per measurement (--force to replace)\n"
        "\n"
        "Exit status: 0 all measured, 1 a kernel failed its check or a run, 2 bad arguments.\n",
        default_shapes, DEFAULT_SAMPLES);
}

typedef struct {
    nl_shape shapes[MAX_SHAPES];
    size_t nshapes, threads, samples;
    char impls[1024];
    const char *csv;
    int force;
} options;

static int parse_shapes(const char *list, options *o)
{
    char buf[512];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "normlab bench --fused: --shape list too long\n");
        return 0;
    }
    strcpy(buf, list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nshapes == MAX_SHAPES) {
            fprintf(stderr, "normlab bench --fused: at most %d shapes\n", MAX_SHAPES);
            return 0;
        }
        if (!nl_parse_shape(tok, &o->shapes[o->nshapes++]))
            return 0;
    }
    return 1;
}

static int parse(int argc, char **argv, options *o)
{
    o->threads = (size_t)omp_get_num_procs();
    o->samples = DEFAULT_SAMPLES;
    snprintf(o->impls, sizeof o->impls, "%s", default_impls);
    const char *shapes = default_shapes;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t one;
        if (!strcmp(a, "--fused"))
            continue;
        if (!strcmp(a, "--force")) {
            o->force = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "normlab bench --fused: unknown option or missing value: %s\n", a);
            return 0;
        }
        i++;
        if (!strcmp(a, "--shape"))
            shapes = v;
        else if (!strcmp(a, "--impl"))
            snprintf(o->impls, sizeof o->impls, "%s", v);
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else if (!strcmp(a, "--threads") && nl_parse_count_list(v, "--threads", &one, 1))
            o->threads = one;
        else if (!strcmp(a, "--samples") && nl_parse_count_list(v, "--samples", &one, 1))
            o->samples = one;
        else {
            fprintf(stderr, "normlab bench --fused: bad option %s %s (see --fused --help)\n", a, v);
            return 0;
        }
    }
    return parse_shapes(shapes, o);
}

/* One entry on one shape: check, time, print, and the CSV row. */
static int measure(const nl_fused_impl *impl, const nl_bench_data *b, float *residual,
                   const options *o, FILE *csv)
{
    nl_bench_row row = {0};
    row.impl = impl->name;
    row.norm = nl_fused_norm_name(impl->norm);
    row.rows = b->rows;
    row.d = b->d;
    row.threads = o->threads;
    row.tol = 0.0; /* bit for bit against the pair */
    row.status = "ok";
    row.speedup = NAN;
    int rc;
    row.max_err = nl_fused_bench_validate(impl, b, residual, &rc);
    if (rc == 0 && !(row.max_err == 0.0))
        row.status = "invalid";
    if (rc == 0 && !strcmp(row.status, "ok"))
        rc = nl_fused_bench_time(impl, b, residual, o->samples, &row);
    if (rc != 0) {
        printf("%-30s error (code %d): %s\n", impl->name, rc, nl_last_error());
        row.status = "error";
    } else if (strcmp(row.status, "ok") != 0) {
        printf("%-30s differs from its unfused pair by %g: not timed\n", impl->name, row.max_err);
    } else {
        printf("%-30s %-14s %9.3f %7.1f %5zu %7.2f   %.2f..%.2f\n", impl->name, row.norm,
               row.median_s * 1e3, row.gbps, nl_fused_values(impl), row.frac_copy, row.frac_p10,
               row.frac_p90);
    }
    if (csv)
        nl_csv_row(csv, &row);
    return rc != 0 || strcmp(row.status, "ok") != 0;
}

int nl_cli_bench_fused(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    options o = {0};
    if (!parse(argc, argv, &o))
        return 2;
    /* Every name must be a fused entry: a typo must not measure nothing. */
    char names[sizeof o.impls];
    strcpy(names, o.impls);
    for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ","))
        if (!nl_find_fused(tok)) {
            fprintf(stderr, "normlab bench --fused: no fused implementation '%s' "
                            "(code/block/registry.def lists them)\n", tok);
            return 2;
        }
    FILE *csv = NULL;
    if (o.csv) {
        const char *notes[] = {"normlab bench --fused: frac_copy and gbps count 4 floats per "
                               "element fused, 5 unfused; max_err is against the unfused pair"};
        if (!(csv = nl_csv_open(o.csv, o.force, notes, 1)))
            return 2;
    }
    omp_set_num_threads((int)o.threads);
    printf("normlab bench --fused: %zu thread%s, %zu samples\n", o.threads,
           o.threads == 1 ? "" : "s", o.samples);
    int status = 0;
    for (size_t s = 0; s < o.nshapes; s++) {
        nl_bench_data b;
        size_t n = o.shapes[s].rows * o.shapes[s].d;
        float *residual = nl_alloc(n * sizeof(float));
        if (!residual || nl_bench_data_new(&b, o.shapes[s].rows, o.shapes[s].d, 0x626c6f636bULL)) {
            fprintf(stderr, "normlab bench --fused: out of memory for %zux%zu; skipped\n",
                    o.shapes[s].rows, o.shapes[s].d);
            nl_free(residual);
            status = 1;
            continue;
        }
        memcpy(residual, b.x, n * sizeof(float));
        printf("\n== %zux%zu\n%-30s %-14s %9s %7s %5s %7s   %s\n", b.rows, b.d, "implementation",
               "norm", "ms", "GB/s", "vals", "of copy", "p10..p90");
        strcpy(names, o.impls);
        for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
            const nl_fused_impl *impl = nl_find_fused(tok);
            const char *why = nl_fused_unavailable(impl);
            if (why) {
                printf("%-30s skipped: %s\n", impl->name, why);
                continue;
            }
            status |= measure(impl, &b, residual, &o, csv);
        }
        nl_free(residual);
        nl_bench_data_free(&b);
    }
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "normlab bench --fused: writing %s failed\n", o.csv);
        status = 1;
    }
    return status;
}
