/* csv.c — one row per measurement, for gnuplot, spreadsheets and the book.
 *
 * Lines starting with '#' before the header say where the numbers came
 * from (CPU, compiler, flags, date, commit): a benchmark figure without
 * its machine is an anecdote.  gnuplot skips such lines by default. */
#define _POSIX_C_SOURCE 200809L
#include "bench/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static const char columns[] =
    "impl,norm,rows,d,threads,peer,status,samples,reps,"
    "median_s,p10_s,p90_s,gbps,copy_gbps,roof,frac_copy,frac_p10,frac_p90,"
    "speedup,max_err,tol,memcpy_gbps,loop_gbps,stream_gbps,dtype";

const char *nl_csv_columns(void) { return columns; }

FILE *nl_csv_open(const char *path, int force, const char *const *notes, size_t nnotes)
{
    /* O_EXCL makes "does it exist?" and "create it" one step, so a file
     * that appears between the two is never clobbered either. */
    int flags = O_WRONLY | O_CREAT | (force ? O_TRUNC : O_EXCL);
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            fprintf(stderr, "normlab bench: %s already exists; not overwriting it "
                    "(choose another name, or add --force)\n", path);
        else
            fprintf(stderr, "normlab bench: cannot create %s: %s\n", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        fprintf(stderr, "normlab bench: cannot write %s: %s\n", path, strerror(errno));
        return NULL;
    }
    for (size_t i = 0; i < nnotes; i++)
        fprintf(f, "# %s\n", notes[i]);
    nl_csv_header(f);
    return f;
}

void nl_csv_header(FILE *f) { fprintf(f, "%s\n", columns); }

/* Empty field for "not measured", so no spreadsheet mistakes it for 0. */
static void num(FILE *f, const char *fmt, double v)
{
    fputc(',', f);
    if (isfinite(v))
        fprintf(f, fmt, v);
}

void nl_csv_row(FILE *f, const nl_bench_row *r)
{
    /* Names come from the registry and never contain commas or quotes. */
    fprintf(f, "%s,%s,%zu,%zu,%zu,%d,%s,%zu,%zu", r->impl, r->norm, r->rows, r->d,
            r->threads, r->peer, r->status, r->samples, r->reps);
    num(f, "%.6e", r->median_s);
    num(f, "%.6e", r->p10_s);
    num(f, "%.6e", r->p90_s);
    num(f, "%.3f", r->gbps);
    num(f, "%.3f", r->copy_gbps);
    fprintf(f, ",%s", r->roof ? r->roof : "");
    num(f, "%.4f", r->frac_copy);
    num(f, "%.4f", r->frac_p10);
    num(f, "%.4f", r->frac_p90);
    num(f, "%.3f", r->speedup);
    num(f, "%.3e", r->max_err);
    num(f, "%.1e", r->tol);
    for (int k = 0; k < NL_COPY_KINDS; k++)
        num(f, "%.3f", r->copy_gbps_by_kind[k]);
    /* last, so that readers by position keep working; max_err and tol of
     * a bf16/fp16 row are in ulps of its dtype, from its scalar order */
    fprintf(f, ",%s\n", r->dtype ? r->dtype : "f32");
}
