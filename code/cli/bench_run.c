/* bench_run.c — a benchmark run: for each shape and thread count, every
 * entry is checked against the double reference, then timed (nothing
 * wrong is ever timed), printed, and written to the CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/options.h"
#include "simd/simd.h"

#define MAX_ENTRIES 256

/* The naive implementation of a norm is the yardstick for speed-up. */
static int is_naive(const bench_entry *e)
{
    size_t n = strlen(e->name);
    return !e->peer && n > 6 && !strcmp(e->name + n - 6, "_naive");
}

/* The CSV is opened before anything runs: a refusal to overwrite should
 * cost the user nothing, not a twenty-minute run. */
static FILE *open_csv(const bench_options *o, int opencl_rows)
{
    char lines[BENCH_MAX_LIST][512];
    size_t n = bench_provenance(o, opencl_rows, lines, BENCH_MAX_LIST);
    const char *notes[BENCH_MAX_LIST * 2];
    for (size_t i = 0; i < n; i++)
        notes[i] = lines[i];
    for (size_t i = 0; i < o->nnotes; i++)
        notes[n + i] = o->notes[i];
    FILE *f = nl_csv_open(o->csv, o->force, notes, n + o->nnotes);
    if (!f)
        fprintf(stderr, "normlab bench: --csv: %s\n", nl_last_error());
    return f;
}

static void announce(const bench_options *o, const bench_entry *e, size_t n)
{
    printf("normlab bench: %zu implementation%s, %zu shape%s, threads", n, n == 1 ? "" : "s",
           o->nshapes, o->nshapes == 1 ? "" : "s");
    for (size_t t = 0; t < o->nthreads; t++)
        printf("%s%zu", t ? "," : " ", o->threads[t]);
    printf(", %zu sample%s%s\n", o->samples, o->samples == 1 ? "" : "s",
           o->quick ? " (--quick)" : "");
    int peer_runs = 0;
    for (size_t i = 0; i < n; i++) {
        peer_runs |= e[i].peer && !e[i].unavailable;
        if (!e[i].unavailable)
            continue;
        if (e[i].peer)
            printf("  %s: peer skipped (libdnnl-dev and a rebuild add it)\n", e[i].unavailable);
        else
            printf("  skipped %s: %s\n", e[i].name, e[i].unavailable);
    }
    if (peer_runs)
        printf("  peer: %s layer normalization (oneDNN 2.x has no RMSNorm)\n",
               nl_onednn_version());
}

/* Checks, then times, one entry on one problem; fills row and returns 0,
 * or 1 when it failed its check or a run (why says how). */
static int measure(const bench_entry *e, const nl_bench_data *data, size_t samples,
                   nl_bench_row *row, char *why, size_t nwhy)
{
    int rc;
    row->max_err = e->check ? e->check(e, data, &rc) : nl_bench_validate(e->norm, e->fn, data, &rc);
    if (rc == 0 && !(row->max_err <= e->tol)) {
        row->status = "invalid";
        return 1;
    }
    if (rc == 0)
        rc = e->time ? e->time(e, data, samples, row) : nl_bench_time(e->fn, e->norm, data,
                                                                       samples, row);
    if (rc != 0) {
        row->status = "error";
        snprintf(why, nwhy, "code %d: %s", rc, nl_last_error());
        return 1;
    }
    return 0;
}

int bench_run(const bench_options *o)
{
    static bench_entry entries[MAX_ENTRIES];
    size_t nentries = bench_collect(o, entries, MAX_ENTRIES);
    int opencl_rows = 0;
    size_t total = 0; /* measurements, for the k/n progress line */
    for (size_t e = 0; e < nentries; e++) {
        opencl_rows |= !strcmp(entries[e].device, "opencl");
        if (!entries[e].unavailable)
            total += entries[e].threaded ? o->nthreads : 1;
    }
    total *= o->nshapes;

    if (nentries == 0 && o->impls) {
        /* Every name is known (bench_select checked), but none in a dtype
         * that --dtype asked for: the usual case is a 16-bit kernel named
         * without --dtype, whose default is f32 alone. */
        char asked[32] = "";
        static const struct { int dt; const char *name; } dts[] = {
            {NL_DT_F32, "f32"}, {NL_DT_BF16, "bf16"}, {NL_DT_F16, "f16"}};
        for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
            if (bench_wants_dtype(o, dts[k].dt))
                snprintf(asked + strlen(asked), sizeof asked - strlen(asked), "%s%s",
                         *asked ? "," : "", dts[k].name);
        fprintf(stderr, "normlab bench: nothing to measure: none of the implementations "
                        "asked for runs in the dtypes asked for (%s%s); the bf16 and fp16 "
                        "kernels need --dtype bf16, f16 or both\n",
                asked, o->dtypes ? "" : ", the default");
        return 1;
    }
    if (total == 0) {
        /* Asked for, nothing can run (no OpenCL platform, an ISA this CPU
         * lacks): a run that measured nothing must not look like a result. */
        announce(o, entries, nentries);
        fprintf(stderr, "normlab bench: nothing to measure: every implementation asked for "
                        "cannot run here (the reasons are above)\n");
        return 1;
    }
    FILE *csv = o->csv ? open_csv(o, opencl_rows) : NULL;
    if (o->csv && !csv)
        return 2;
    announce(o, entries, nentries);

    int status = 0;
    size_t done = 0;
    for (size_t si = 0; si < o->nshapes; si++) {
        nl_shape s = o->shapes[si];
        nl_bench_data data;
        bench_set_threads((size_t)bench_cores()); /* fill with every core: pages spread like the work */
        if (nl_bench_data_new(&data, s.rows, s.d, 0x6e6f726d6c6162ULL) != 0) {
            fprintf(stderr, "normlab bench: out of memory for shape %zux%zu (%.1f GiB); skipped\n",
                    s.rows, s.d, nl_shape_bytes(s) / (1024.0 * 1024.0 * 1024.0));
            status = 1;
            continue;
        }
        double naive_s[2] = {NAN, NAN}; /* per norm, at the first thread count */
        for (size_t ti = 0; ti < o->nthreads; ti++) {
            size_t t = o->threads[ti];
            bench_set_threads(t);
            const char *shown = NULL; /* the dtype of the block's header, printed with
                                         its first row and again when the bytes change */
            for (size_t ei = 0; ei < nentries; ei++) {
                const bench_entry *e = &entries[ei];
                if (e->unavailable || (!e->threaded && ti > 0))
                    continue;
                fprintf(stderr, "[%zu/%zu] %s %zux%zu, %zu thread%s\n", ++done, total, e->name,
                        s.rows, s.d, t, t == 1 ? "" : "s");
                nl_bench_row row = {
                    .impl = e->name, .norm = nl_norm_name(e->norm), .device = e->device,
                    .dtype = e->dtype, .bytes_per_elem = e->bytes_per_elem, .rows = s.rows,
                    .d = s.d, .threads = e->threaded ? t : 1, .peer = e->peer, .tol = e->tol,
                    .status = "ok", .median_s = NAN, .p10_s = NAN, .p90_s = NAN, .gbps = NAN,
                    .copy_gbps = NAN, .frac_copy = NAN, .frac_p10 = NAN, .frac_p90 = NAN,
                    .speedup = NAN, .h2d_gbps = NAN, .d2h_gbps = NAN};
                for (int c = 0; c < NL_COPY_KINDS; c++)
                    row.copy_gbps_by_kind[c] = NAN;
                /* the bytes this row moves: a 16-bit block half its f32 shape's */
                double moved = (double)s.rows * (double)s.d * (double)e->bytes_per_elem;
                if (!strcmp(e->device, "cpu")) {
                    row.regime = nl_bytes_regime(moved, row.threads);
                    row.isa = nl_isa_name(nl_isa_active());
                }
                if (!shown || bench_block_changes(e->dtype, shown))
                    bench_print_block(s, t, nl_bytes_regime(moved, t), e->dtype, 1), shown = e->dtype;
                char why[512] = "";
                if (measure(e, &data, o->samples, &row, why, sizeof why)) {
                    status = 1;
                    if (*why)
                        fprintf(stderr, "normlab bench: %s failed on %zux%zu (%s)\n", e->name,
                                s.rows, s.d, why);
                } else {
                    if (is_naive(e) && ti == 0)
                        naive_s[e->norm] = row.median_s;
                    row.speedup = naive_s[e->norm] / row.median_s;
                }
                bench_print_row(&row, why, 1);
                if (csv)
                    nl_csv_row(csv, &row);
            }
        }
        nl_onednn_release();
        nl_bench_data_free(&data);
    }
    if (opencl_rows)
        nl_opencl_shutdown();
    if (csv) {
        if (ferror(csv) | fclose(csv)) {
            fprintf(stderr, "normlab bench: writing %s failed\n", o->csv);
            status = 1;
        } else {
            printf("\nwrote %s\n", o->csv);
        }
    }
    return status;
}
