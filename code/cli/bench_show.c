/* bench_show.c — `normlab bench --show [FILE]`: an earlier run's CSV as
 * the table a run prints.  The book quotes the reference run this way, so
 * its numbers are re-read from whichever CSV the book is built with,
 * never typed in by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench.h"

static int wanted(const bench_options *o, const nl_bench_row *r)
{
    int shape = o->nshapes == 0, threads = o->nthreads == 0;
    for (size_t i = 0; i < o->nshapes; i++)
        shape |= o->shapes[i].rows == r->rows && o->shapes[i].d == r->d;
    for (size_t i = 0; i < o->nthreads; i++)
        threads |= o->threads[i] == r->threads;
    return shape && threads && bench_listed(o->impls, r->impl);
}

/* Where the numbers came from travels with them: the provenance lines,
 * cut to a page's 80 columns (the CSV keeps the whole line). */
static void print_provenance(const char *line)
{
    static const char *const keep[] = {"# cpu:", "# compiler:", "# date:", "# commit:",
                                       "# peer:", "# opencl device:", "# opencl settings:", "# caches:", "# rungs:",
                                       "# peers:", "# load:", "# normlab bench"};
    for (size_t k = 0; k < sizeof keep / sizeof *keep; k++)
        if (!strncmp(line, keep[k], strlen(keep[k]))) {
            int n = (int)strcspn(line + 2, "\n");
            if (n > 78)
                printf("%.75s...\n", line + 2);
            else
                printf("%.*s\n", n, line + 2);
            return;
        }
}

int bench_show(const bench_options *o)
{
    const char *path = *o->show ? o->show : getenv("NORMLAB_BENCH_CSV");
    if (!path || !*path)
        path = "book/data/bench-reference.csv";
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "normlab bench --show: cannot read %s\n", path);
        return 2;
    }
    char line[4096];
    nl_csv_layout layout;
    int have_header = 0, printed = 0;
    nl_bench_row last = {0};
    char last_dtype[16] = "";
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            print_provenance(line);
            continue;
        }
        if (!have_header) {
            if (!nl_csv_read_header(line, &layout)) {
                fprintf(stderr, "normlab bench --show: %s: %s\n", path, nl_last_error());
                fclose(f);
                return 2;
            }
            have_header = 1;
            continue;
        }
        nl_bench_row r;
        if (!nl_csv_read_row(line, &layout, &r) || !wanted(o, &r))
            continue;
        if (!printed++ || r.rows != last.rows || r.d != last.d || r.threads != last.threads ||
            bench_block_changes(r.dtype, last_dtype))
            bench_print_block((nl_shape){r.rows, r.d}, r.threads, r.regime, r.dtype, 0);
        last = r; /* its strings point into line: only the numbers are kept */
        snprintf(last_dtype, sizeof last_dtype, "%s", r.dtype);
        bench_print_row(&r, NULL, 0);
    }
    fclose(f);
    if (!have_header) {
        fprintf(stderr, "normlab bench --show: %s has no CSV header\n", path);
        return 2;
    }
    printf("\n(from %s)\n", path);
    return 0;
}
