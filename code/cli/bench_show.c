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

/* Where the numbers came from travels with them: the machine, compiler,
 * date and peers, cut to a page's 80 columns (the CSV keeps the whole
 * line). The build's commit and the load average stay in the CSV, for
 * whoever reruns it: the book prints these tables, and a reader of the
 * book has no use for our commits. */
static void print_provenance(const char *line, void *unused)
{
    (void)unused;
    static const char *const keep[] = {"# cpu:", "# compiler:", "# date:",
                                       "# peer:", "# opencl device:", "# opencl settings:", "# caches:", "# rungs:", "# isa:",
                                       "# peers:", "# normlab bench"};
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

/* What one row needs of the rows before it: whether it starts a block. */
typedef struct {
    const bench_options *o;
    int printed;
    nl_bench_row last; /* its strings pointed into a line since read: only the numbers are kept */
    char last_dtype[16];
} show_state;

static int show_row(const nl_bench_row *r, void *ctx)
{
    show_state *s = ctx;
    if (!wanted(s->o, r))
        return 1;
    if (!s->printed++ || r->rows != s->last.rows || r->d != s->last.d || r->threads != s->last.threads ||
        bench_block_changes(r->dtype, s->last_dtype))
        bench_print_block((nl_shape){r->rows, r->d}, r->threads, r->regime, r->dtype, 0);
    s->last = *r;
    snprintf(s->last_dtype, sizeof s->last_dtype, "%s", r->dtype);
    bench_print_row(r, NULL, 0);
    return 1;
}

int bench_show(const bench_options *o)
{
    const char *path = *o->show ? o->show : getenv("NORMLAB_BENCH_CSV");
    if (!path || !*path)
        path = "book/data/bench-reference.csv";
    show_state s = {.o = o};
    if (!nl_csv_read_file(path, print_provenance, show_row, &s)) {
        fprintf(stderr, "normlab bench --show: %s\n", nl_last_error());
        return 2;
    }
    printf("\n(from %s)\n", path);
    return 0;
}
