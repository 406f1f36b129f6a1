/* bench.c — `normlab bench`: every implementation, on shapes from in-cache
 * to far beyond the last-level cache, on one and on all cores, measured
 * against a copy of the same bytes taken in the same run. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/bench.h"
#include "commands.h"
#include "normlab.h"

#define MAX_LIST 32
#define MIB (1024.0 * 1024.0)

/* Full run: one shape that fits in cache, the two common LLM activations
 * (hidden 4096 at 4096 tokens, hidden 1024 at 16384 tokens), and two far
 * beyond any last-level cache: 256 MiB and 512 MiB of input, because some
 * virtual machines report an L3 of several hundred MiB. */
static const nl_shape full_shapes[] = {
    {256, 1024}, {4096, 4096}, {16384, 1024}, {8192, 8192}, {16384, 8192},
};
/* Quick run (under a minute): the in-cache shape and one LLM shape. */
static const nl_shape quick_shapes[] = {{256, 1024}, {4096, 4096}};
#define FULL_SAMPLES 21  /* odd, so the median is one measured sample */
#define QUICK_SAMPLES 7

typedef struct {
    nl_shape shapes[MAX_LIST];
    size_t nshapes;
    size_t threads[MAX_LIST];
    size_t nthreads;
    size_t samples;
    int quick, force, no_peer;
    const char *csv;
    const char *impls; /* comma list or NULL for all */
    const char *notes[MAX_LIST];
    size_t nnotes;
    int show;            /* --show: print a CSV's table instead of measuring */
    const char *show_csv;
} options;

/* One thing to time: a registry entry or the oneDNN peer. */
typedef struct {
    const char *name;
    nl_norm norm;
    nl_forward_fn fn;
    double tol;
    int threaded, peer;
    const char *unavailable;
} entry;

static void usage(FILE *to)
{
    fprintf(to,
        "usage: normlab bench [OPTIONS]\n"
        "\n"
        "Checks every implementation against the double reference, then times it.\n"
        "Each kernel sample is paired with samples of three copies of the same bytes\n"
        "(memcpy, a plain loop, non-temporal stores) on the same threads; the fastest\n"
        "copy is the roof, and 'of copy' = copy time / kernel time is the headline.\n"
        "\n"
        "  --quick            fewer shapes (256x1024, 4096x4096) and %d samples: < 1 minute\n"
        "  --shape RxD[,RxD]  shapes to run (repeatable); default 256x1024, 4096x4096,\n"
        "                     16384x1024, 8192x8192, 16384x8192\n"
        "  --threads N[,N]    OpenMP thread counts; default 1 and every core\n"
        "                     (single-threaded implementations run at the first count only)\n"
        "  --samples N        timed samples per measurement (default %d)\n"
        "  --impl NAME[,NAME] only these implementations ('onednn' is the peer); OpenCL\n"
        "                     ones run only when named here (see --opencl)\n"
        "  --no-peer          leave out the oneDNN peer\n"
        "  --csv FILE         also write one CSV row per measurement; an existing FILE\n"
        "                     is never overwritten unless --force is given\n"
        "  --force            allow --csv to replace FILE\n"
        "  --note TEXT        add '# TEXT' to the CSV's header comments (repeatable)\n"
        "  --show [FILE]      measure nothing: print the table of an earlier run's CSV\n"
        "                     (default $NORMLAB_BENCH_CSV, else book/data/bench-reference.csv),\n"
        "                     narrowed by --shape, --threads and --impl\n"
        "  --opencl           run the OpenCL benchmark instead (its own options)\n"
        "  --fused            fused add + norm against the unfused pair (chapter 9; own options)\n"
        "  --help             this text\n"
        "\n"
        "Exit status: 0 all measured, 1 an implementation failed its check or a run,\n"
        "2 bad arguments.\n",
        QUICK_SAMPLES, FULL_SAMPLES);
}

/* "--opt VALUE" or "--opt=VALUE"; advances *i past what it used. */
static const char *value_of(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "normlab bench: %s needs a value (try --help)\n", opt);
        exit(2);
    }
    return argv[++*i];
}

static int add_shapes(options *o, const char *text)
{
    char buf[512];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "normlab bench: --shape list too long\n");
        return 0;
    }
    strcpy(buf, text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nshapes == MAX_LIST) {
            fprintf(stderr, "normlab bench: at most %d shapes\n", MAX_LIST);
            return 0;
        }
        if (!nl_parse_shape(tok, &o->shapes[o->nshapes]))
            return 0;
        o->nshapes++;
    }
    if (o->nshapes == 0) {
        fprintf(stderr, "normlab bench: --shape needs ROWSxD\n");
        return 0;
    }
    return 1;
}

static int parse(int argc, char **argv, options *o)
{
    const char *v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick"))
            o->quick = 1;
        else if (!strcmp(a, "--force"))
            o->force = 1;
        else if (!strcmp(a, "--no-peer"))
            o->no_peer = 1;
        else if (!strcmp(a, "--show")) {
            o->show = 1;
            if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
                o->show_csv = argv[++i];
        }
        else if ((v = value_of(argc, argv, &i, "--csv"))) {
            if (!*v) {
                fprintf(stderr, "normlab bench: --csv needs a file name\n");
                return 0;
            }
            o->csv = v;
        } else if ((v = value_of(argc, argv, &i, "--shape"))) {
            if (!add_shapes(o, v))
                return 0;
        } else if ((v = value_of(argc, argv, &i, "--threads"))) {
            if (!(o->nthreads = nl_parse_count_list(v, "--threads", o->threads, MAX_LIST)))
                return 0;
            for (size_t k = 0; k < o->nthreads; k++)
                if (o->threads[k] > 4096) {
                    fprintf(stderr, "normlab bench: --threads %zu is more than 4096\n", o->threads[k]);
                    return 0;
                }
        } else if ((v = value_of(argc, argv, &i, "--samples"))) {
            size_t n;
            if (nl_parse_count_list(v, "--samples", &n, 1) != 1)
                return 0;
            if (n > 100000) {
                fprintf(stderr, "normlab bench: --samples %zu is more than 100000\n", n);
                return 0;
            }
            o->samples = n;
        } else if ((v = value_of(argc, argv, &i, "--impl"))) {
            if (!*v) {
                fprintf(stderr, "normlab bench: --impl needs a name (see normlab impls)\n");
                return 0;
            }
            o->impls = v;
        } else if ((v = value_of(argc, argv, &i, "--note"))) {
            if (o->nnotes == MAX_LIST - 12) {
                fprintf(stderr, "normlab bench: too many --note\n");
                return 0;
            }
            o->notes[o->nnotes++] = v;
        } else {
            fprintf(stderr, "normlab bench: unknown argument '%s' (try --help)\n", a);
            return 0;
        }
    }
    return 1;
}

/* Is `name` in the comma list (or is there no list)? */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && !strncmp(p, name, n))
            return 1;
        p += n + (comma != NULL);
    }
    return 0;
}

/* Every name in --impl must exist: a typo would otherwise time nothing. */
static int check_impl_names(const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (strcmp(name, "onednn") != 0 && !nl_find_impl(name)) {
            fprintf(stderr, "normlab bench: no implementation '%s' (normlab impls lists them)\n",
                    name);
            return 0;
        }
        p += n + (comma != NULL);
    }
    return 1;
}

static size_t collect(const options *o, entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n && k < max; i++) {
        if (!listed(o->impls, all[i].name))
            continue;
        /* A device kernel against the host's copy roof compares unlike
         * things; `bench --opencl` measures those against the device's
         * own bandwidth.  Named with --impl, they run here too. */
        if ((all[i].requires & NL_REQ_OPENCL) && !o->impls)
            continue;
        out[k++] = (entry){all[i].name, all[i].norm, all[i].fn, all[i].tol,
                           (all[i].requires & NL_REQ_OPENMP) != 0, 0,
                           nl_impl_unavailable(&all[i])};
    }
    if (!o->no_peer && listed(o->impls, "onednn") && k < max) {
        /* The peer's bound: the same as our naive float LayerNorm's. */
        out[k++] = (entry){"onednn", NL_LAYERNORM, nl_onednn_layernorm, 2e-5, 1, 1,
                           nl_onednn_unavailable()};
    }
    return k;
}

/* The naive implementation of a norm is the yardstick for speed-up. */
static int is_naive(const entry *e)
{
    size_t n = strlen(e->name);
    return !e->peer && n > 6 && !strcmp(e->name + n - 6, "_naive");
}

static int cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

static void set_threads(size_t t)
{
#ifdef _OPENMP
    omp_set_num_threads((int)t);
#else
    (void)t;
#endif
}

/* ----------------------------------------------------------- provenance */

static void cpu_name(char *buf, size_t n)
{
    struct utsname u;
    snprintf(buf, n, "%s", uname(&u) == 0 ? u.machine : "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && !strncmp(line, "model name", 10)) {
            colon++;
            colon += strspn(colon, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, n, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static size_t provenance(const options *o, int argc, char **argv, char lines[][512], size_t max)
{
    size_t k = 0;
    char cpu[256];
    cpu_name(cpu, sizeof cpu);
    time_t now = time(NULL);
    struct tm tm;
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    snprintf(lines[k++], 512, "normlab bench%s",
             o->quick ? " --quick: a smoke test, not numbers to quote" : "");
    snprintf(lines[k++], 512, "cpu: %s, %d cores online, %.1f GiB memory", cpu, cores(),
             nl_phys_memory() / (1024.0 * MIB));
#if defined(__clang__)
    snprintf(lines[k++], 512, "compiler: clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(lines[k++], 512, "compiler: gcc %s", __VERSION__);
#else
    snprintf(lines[k++], 512, "compiler: unknown");
#endif
    snprintf(lines[k++], 512, "date: %s", date);
    snprintf(lines[k++], 512, "peer: %s", nl_onednn_unavailable() ? nl_onednn_unavailable()
                                                                  : nl_onednn_version());
    int len = snprintf(lines[k], 512, "command: normlab");
    for (int i = 0; i < argc && len < 500; i++) {
        /* Quote what the shell would split, so the line can be pasted back. */
        const char *q = strpbrk(argv[i], " \t\"$") ? "'" : "";
        len += snprintf(lines[k] + len, (size_t)(512 - len), " %s%s%s", q, argv[i], q);
    }
    k++;
    snprintf(lines[k++], 512, "columns: times in seconds per call; gbps counts bytes read + "
             "written (8 per element); frac_copy = copy time / kernel time, median of paired "
             "samples; roof = the fastest copy of the same bytes in the same run");
    (void)max;
    return k;
}

/* ---------------------------------------------------------------- table */

static const char *human_bytes(double bytes, char *buf, size_t n)
{
    if (bytes >= MIB)
        snprintf(buf, n, "%.1f MiB", bytes / MIB);
    else if (bytes >= 1024.0)
        snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
    else
        snprintf(buf, n, "%.0f B", bytes);
    return buf;
}

static void block_header(nl_shape s, size_t t)
{
    char size[32];
    human_bytes(nl_shape_bytes(s) / 2, size, sizeof size);
    printf("\n== %zux%zu (%s in, as much out), %zu thread%s\n", s.rows, s.d, size, t,
           t == 1 ? "" : "s");
    printf("%-28s %-9s %9s %19s %7s %7s %7s %-6s %8s %9s\n", "implementation", "norm", "ms",
           "p10..p90 ms", "GB/s", "of copy", "copy", "roof", "vs naive", "max err");
}

static void print_row(const nl_bench_row *r)
{
    char name[40];
    snprintf(name, sizeof name, "%s%s", r->impl, r->peer ? " (peer)" : "");
    if (strcmp(r->status, "ok") != 0) {
        printf("%-28s %-9s  %s: max err %.2e > tol %.1e; not timed\n", name, r->norm, r->status,
               r->max_err, r->tol);
        return;
    }
    char spread[40], speed[16];
    snprintf(spread, sizeof spread, "%.3f..%.3f", r->p10_s * 1e3, r->p90_s * 1e3);
    if (isfinite(r->speedup))
        snprintf(speed, sizeof speed, "%.2fx", r->speedup);
    else
        snprintf(speed, sizeof speed, "-");
    printf("%-28s %-9s %9.3f %19s %7.1f %7.2f %7.1f %-6s %8s %9.1e\n", name, r->norm,
           r->median_s * 1e3, spread, r->gbps, r->frac_copy, r->copy_gbps, r->roof, speed,
           r->max_err);
    fflush(stdout);
}

/* A narrower table for --show, which the book prints on a page: the
 * columns the chapter discusses, about 80 characters wide. */
static void show_header(nl_shape s, size_t t)
{
    char size[32];
    human_bytes(nl_shape_bytes(s) / 2, size, sizeof size);
    printf("\n== %zux%zu (%s in, as much out), %zu thread%s\n", s.rows, s.d, size, t,
           t == 1 ? "" : "s");
    printf("%-26s %9s %7s %7s %7s %-6s %8s\n", "implementation", "ms", "GB/s", "of copy", "copy",
           "roof", "vs naive");
}

static void show_row(const nl_bench_row *r)
{
    char name[40], speed[16];
    snprintf(name, sizeof name, "%s%s", r->impl, r->peer ? " (peer)" : "");
    if (strcmp(r->status, "ok") != 0) {
        printf("%-26s %s (max err %.1e): not timed\n", name, r->status, r->max_err);
        return;
    }
    if (isfinite(r->speedup))
        snprintf(speed, sizeof speed, "%.2fx", r->speedup);
    else
        snprintf(speed, sizeof speed, "-");
    printf("%-26s %9.3f %7.1f %7.2f %7.1f %-6s %8s\n", name, r->median_s * 1e3, r->gbps,
           r->frac_copy, r->copy_gbps, r->roof, speed);
}

/* ----------------------------------------------------------------- show */

/* Splits a CSV line in place into at most max fields (empty ones kept). */
static size_t split(char *line, char **field, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < max;) {
        field[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static double field_num(char **f, const int *col, int k)
{
    return col[k] >= 0 && *f[col[k]] ? strtod(f[col[k]], NULL) : NAN;
}

static int wanted_shape(const options *o, size_t rows, size_t d)
{
    if (o->nshapes == 0)
        return 1;
    for (size_t i = 0; i < o->nshapes; i++)
        if (o->shapes[i].rows == rows && o->shapes[i].d == d)
            return 1;
    return 0;
}

static int wanted_threads(const options *o, size_t t)
{
    if (o->nthreads == 0)
        return 1;
    for (size_t i = 0; i < o->nthreads; i++)
        if (o->threads[i] == t)
            return 1;
    return 0;
}

/* The book quotes the reference run this way, so its numbers are re-read
 * from whichever CSV the book is built with, never typed in by hand. */
static int show(const options *o)
{
    const char *path = o->show_csv ? o->show_csv : getenv("NORMLAB_BENCH_CSV");
    if (!path || !*path)
        path = "book/data/bench-reference.csv";
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "normlab bench --show: cannot read %s\n", path);
        return 2;
    }
    enum { IMPL, NORM, ROWS, D, THREADS, PEER, STATUS, MED, P10, P90, GBPS, COPY, ROOF,
           FRAC, SPEEDUP, ERR, TOL, NCOLS };
    static const char *const names[NCOLS] = {
        "impl", "norm", "rows", "d", "threads", "peer", "status", "median_s", "p10_s", "p90_s",
        "gbps", "copy_gbps", "roof", "frac_copy", "speedup", "max_err", "tol"};
    int col[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        col[k] = -1;
    char line[4096];
    char *fld[64];
    int have_header = 0, printed = 0;
    size_t last_rows = 0, last_d = 0, last_t = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            /* Where the numbers came from travels with them. */
            if (!strncmp(line, "# cpu:", 6) || !strncmp(line, "# compiler:", 11) ||
                !strncmp(line, "# date:", 7) || !strncmp(line, "# commit:", 9) ||
                !strncmp(line, "# peer:", 7) || !strncmp(line, "# normlab bench", 15)) {
                /* A page is about 80 columns; the CSV keeps the whole line. */
                line[strcspn(line, "\n")] = '\0';
                if (strlen(line + 2) > 78)
                    printf("%.75s...\n", line + 2);
                else
                    printf("%s\n", line + 2);
            }
            continue;
        }
        size_t n = split(line, fld, 64);
        if (!have_header) {
            for (int k = 0; k < NCOLS; k++)
                for (size_t i = 0; i < n; i++)
                    if (!strcmp(fld[i], names[k]))
                        col[k] = (int)i;
            for (int k = 0; k < NCOLS; k++)
                if (col[k] < 0 && k != SPEEDUP && k != ROOF && k != TOL) {
                    fprintf(stderr, "normlab bench --show: %s has no column '%s'\n", path, names[k]);
                    fclose(f);
                    return 2;
                }
            have_header = 1;
            continue;
        }
        int maxcol = 0;
        for (int k = 0; k < NCOLS; k++)
            maxcol = col[k] > maxcol ? col[k] : maxcol;
        if ((int)n <= maxcol)
            continue;
        nl_bench_row r = {0};
        r.impl = fld[col[IMPL]];
        r.norm = fld[col[NORM]];
        r.rows = (size_t)strtoull(fld[col[ROWS]], NULL, 10);
        r.d = (size_t)strtoull(fld[col[D]], NULL, 10);
        r.threads = (size_t)strtoull(fld[col[THREADS]], NULL, 10);
        r.peer = atoi(fld[col[PEER]]);
        r.status = fld[col[STATUS]];
        r.median_s = field_num(fld, col, MED);
        r.p10_s = field_num(fld, col, P10);
        r.p90_s = field_num(fld, col, P90);
        r.gbps = field_num(fld, col, GBPS);
        r.copy_gbps = field_num(fld, col, COPY);
        r.roof = col[ROOF] >= 0 ? fld[col[ROOF]] : "";
        r.frac_copy = field_num(fld, col, FRAC);
        r.speedup = field_num(fld, col, SPEEDUP);
        r.max_err = field_num(fld, col, ERR);
        r.tol = field_num(fld, col, TOL);
        if (!listed(o->impls, r.impl) || !wanted_shape(o, r.rows, r.d) ||
            !wanted_threads(o, r.threads))
            continue;
        if (!printed || r.rows != last_rows || r.d != last_d || r.threads != last_t)
            show_header((nl_shape){r.rows, r.d}, r.threads);
        last_rows = r.rows, last_d = r.d, last_t = r.threads;
        show_row(&r);
        printed++;
    }
    fclose(f);
    if (!have_header) {
        fprintf(stderr, "normlab bench --show: %s has no CSV header\n", path);
        return 2;
    }
    printf("\n(from %s)\n", path);
    return 0;
}

/* ----------------------------------------------------------------- main */

int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--opencl"))
            return nl_cl_bench_main(argc, argv);
        if (!strcmp(argv[i], "--fused")) /* chapter 9: bench_fused.c */
            return nl_cli_bench_fused(argc, argv);
    }

    options o = {0};
    if (!parse(argc, argv, &o))
        return 2;
    if (o.show)
        return show(&o);
    if (!check_impl_names(o.impls))
        return 2;
    if (o.nshapes == 0) {
        const nl_shape *src = o.quick ? quick_shapes : full_shapes;
        o.nshapes = o.quick ? sizeof quick_shapes / sizeof *quick_shapes
                            : sizeof full_shapes / sizeof *full_shapes;
        memcpy(o.shapes, src, o.nshapes * sizeof *src);
    }
    if (o.nthreads == 0) {
        o.threads[o.nthreads++] = 1;
        if (cores() > 1)
            o.threads[o.nthreads++] = (size_t)cores();
    }
    if (o.samples == 0)
        o.samples = o.quick ? QUICK_SAMPLES : FULL_SAMPLES;

    entry entries[256];
    size_t nentries = collect(&o, entries, 256);

    /* The CSV is opened first: a refusal to overwrite should cost the user
     * nothing, not a twenty-minute run. */
    FILE *csv = NULL;
    if (o.csv) {
        char lines[MAX_LIST][512];
        size_t n = provenance(&o, argc, argv, lines, MAX_LIST);
        const char *notes[MAX_LIST * 2];
        for (size_t i = 0; i < n; i++)
            notes[i] = lines[i];
        for (size_t i = 0; i < o.nnotes; i++)
            notes[n + i] = o.notes[i];
        csv = nl_csv_open(o.csv, o.force, notes, n + o.nnotes);
        if (!csv)
            return 2;
    }

    /* How many measurements, for the k/n progress line. */
    size_t total = 0;
    for (size_t e = 0; e < nentries; e++)
        if (!entries[e].unavailable)
            total += entries[e].threaded ? o.nthreads : 1;
    total *= o.nshapes;

    printf("normlab bench: %zu implementation%s, %zu shape%s, threads", nentries,
           nentries == 1 ? "" : "s", o.nshapes, o.nshapes == 1 ? "" : "s");
    for (size_t t = 0; t < o.nthreads; t++)
        printf("%s%zu", t ? "," : " ", o.threads[t]);
    printf(", %zu sample%s%s\n", o.samples, o.samples == 1 ? "" : "s",
           o.quick ? " (--quick)" : "");
    for (size_t e = 0; e < nentries; e++) {
        if (!entries[e].unavailable)
            continue;
        if (entries[e].peer)
            printf("  %s: peer skipped (libdnnl-dev and a rebuild add it)\n",
                   entries[e].unavailable);
        else
            printf("  skipped %s: %s\n", entries[e].name, entries[e].unavailable);
    }
    if (!o.no_peer && listed(o.impls, "onednn") && !nl_onednn_unavailable())
        printf("  peer: %s layer normalization (oneDNN 2.x has no RMSNorm)\n",
               nl_onednn_version());

    int status = 0;
    size_t done = 0;
    for (size_t si = 0; si < o.nshapes; si++) {
        nl_shape s = o.shapes[si];
        nl_bench_data data;
        set_threads((size_t)cores()); /* fill with every core: pages spread like the work */
        if (nl_bench_data_new(&data, s.rows, s.d, 0x6e6f726d6c6162ULL) != 0) {
            fprintf(stderr, "normlab bench: out of memory for shape %zux%zu (%.1f GiB); skipped\n",
                    s.rows, s.d, nl_shape_bytes(s) / (1024.0 * MIB));
            status = 1;
            continue;
        }
        double naive_s[2] = {NAN, NAN}; /* per norm, at the first thread count */
        for (size_t ti = 0; ti < o.nthreads; ti++) {
            size_t t = o.threads[ti];
            set_threads(t);
            int shown = 0; /* a block's header, printed with its first row */
            for (size_t ei = 0; ei < nentries; ei++) {
                const entry *e = &entries[ei];
                if (e->unavailable || (!e->threaded && ti > 0))
                    continue;
                done++;
                fprintf(stderr, "[%zu/%zu] %s %zux%zu, %zu thread%s\n", done, total, e->name,
                        s.rows, s.d, t, t == 1 ? "" : "s");
                nl_bench_row row = {0};
                row.impl = e->name;
                row.norm = nl_norm_name(e->norm);
                row.rows = s.rows;
                row.d = s.d;
                row.threads = e->threaded ? t : 1;
                row.peer = e->peer;
                row.tol = e->tol;
                row.status = "ok";
                row.median_s = row.p10_s = row.p90_s = row.gbps = row.copy_gbps = NAN;
                row.frac_copy = row.frac_p10 = row.frac_p90 = row.speedup = NAN;
                for (int c = 0; c < NL_COPY_KINDS; c++)
                    row.copy_gbps_by_kind[c] = NAN;

                if (!shown)
                    block_header(s, t), shown = 1;
                int rc;
                row.max_err = nl_bench_validate(e->norm, e->fn, &data, &rc);
                if (rc == 0 && !(row.max_err <= e->tol))
                    row.status = "invalid";
                if (rc == 0 && !strcmp(row.status, "ok"))
                    rc = nl_bench_time(e->fn, e->norm, &data, o.samples, &row);
                if (rc != 0) {
                    row.status = "error";
                    fprintf(stderr, "normlab bench: %s failed on %zux%zu (code %d): %s\n", e->name,
                            s.rows, s.d, rc, nl_last_error());
                    printf("%-28s %-9s  error (code %d): %s\n", e->name, row.norm, rc,
                           nl_last_error());
                    status = 1;
                } else {
                    if (strcmp(row.status, "ok") != 0)
                        status = 1;
                    else if (is_naive(e) && ti == 0)
                        naive_s[e->norm] = row.median_s;
                    row.speedup = naive_s[e->norm] / row.median_s;
                    print_row(&row);
                }
                if (csv)
                    nl_csv_row(csv, &row);
            }
        }
        nl_onednn_release();
        nl_bench_data_free(&data);
    }
    if (csv) {
        if (fclose(csv) != 0) {
            fprintf(stderr, "normlab bench: writing %s failed\n", o.csv);
            status = 1;
        } else {
            printf("\nwrote %s\n", o.csv);
        }
    }
    return status;
}
