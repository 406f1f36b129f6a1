/* csv.c — one row per measurement, for gnuplot, spreadsheets and the book,
 * written by `normlab bench --csv` and read back by `bench --show`.
 *
 * Lines starting with '#' before the header say where the numbers came
 * from (CPU, compiler, flags, date, commit): a benchmark figure without
 * its machine is an anecdote.  gnuplot skips such lines by default.
 * Columns are found by the header's names, never by position, so a new
 * column goes at the end and old files still read. */
#define _POSIX_C_SOURCE 200809L
#include "bench/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { IMPL, NORM, ROWS, D, THREADS, PEER, STATUS, SAMPLES, REPS, MED, P10, P90, GBPS, COPY,
       ROOF, FRAC, FRAC_P10, FRAC_P90, SPEEDUP, ERR, TOL, MEMCPY, LOOP, STREAM, DEVICE, DTYPE,
       BYTES, H2D, D2H, REGIME, ISA, NCOLS };
static const char *const names[NCOLS] = {
    "impl", "norm", "rows", "d", "threads", "peer", "status", "samples", "reps", "median_s",
    "p10_s", "p90_s", "gbps", "copy_gbps", "roof", "frac_copy", "frac_p10", "frac_p90",
    "speedup", "max_err", "tol", "memcpy_gbps", "loop_gbps", "stream_gbps", "device", "dtype",
    "bytes_per_elem", "h2d_gbps", "d2h_gbps", "regime", "isa"};
/* What a file must have for its table to mean anything; the rest were
 * added over time and read as empty when absent. */
static const int required[] = {IMPL, NORM, ROWS, D, THREADS, PEER, STATUS, MED, P10, P90, GBPS,
                               COPY, FRAC, ERR};

_Static_assert(NCOLS <= (int)(sizeof((nl_csv_layout *)0)->col / sizeof(int)),
               "nl_csv_layout holds every column");

static const char columns[] =
    "impl,norm,rows,d,threads,peer,status,samples,reps,"
    "median_s,p10_s,p90_s,gbps,copy_gbps,roof,frac_copy,frac_p10,frac_p90,"
    "speedup,max_err,tol,memcpy_gbps,loop_gbps,stream_gbps,device,dtype,bytes_per_elem,"
    "h2d_gbps,d2h_gbps,regime,isa";

const char *nl_csv_columns(void) { return columns; }

FILE *nl_csv_open(const char *path, int force, const char *const *notes, size_t nnotes)
{
    for (size_t i = 0; i < nnotes; i++)
        if (strpbrk(notes[i], "\r\n")) {
            nl_set_error("a note holds a line break, which would end its '#' comment and "
                         "corrupt the CSV: '%s'", notes[i]);
            return NULL;
        }
    /* O_EXCL makes "does it exist?" and "create it" one step, so a file
     * that appears between the two is never clobbered either. */
    int flags = O_WRONLY | O_CREAT | (force ? O_TRUNC : O_EXCL);
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            nl_set_error("%s already exists; not overwriting it (choose another name, or add "
                         "--force)", path);
        else
            nl_set_error("cannot create %s: %s", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        nl_set_error("cannot write %s: %s", path, strerror(errno));
        close(fd);
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

static const char *or_empty(const char *s) { return s ? s : ""; }

void nl_csv_row(FILE *f, const nl_bench_row *r)
{
    /* Names come from registries and never contain commas or quotes. */
    fprintf(f, "%s,%s,%zu,%zu,%zu,%d,%s,%zu,%zu", r->impl, r->norm, r->rows, r->d,
            r->threads, r->peer, r->status, r->samples, r->reps);
    num(f, "%.6e", r->median_s);
    num(f, "%.6e", r->p10_s);
    num(f, "%.6e", r->p90_s);
    num(f, "%.3f", r->gbps);
    num(f, "%.3f", r->copy_gbps);
    fprintf(f, ",%s", or_empty(r->roof));
    num(f, "%.4f", r->frac_copy);
    num(f, "%.4f", r->frac_p10);
    num(f, "%.4f", r->frac_p90);
    num(f, "%.3f", r->speedup);
    num(f, "%.3e", r->max_err);
    num(f, "%.1e", r->tol);
    for (int k = 0; k < NL_COPY_KINDS; k++)
        num(f, "%.3f", r->copy_gbps_by_kind[k]);
    fprintf(f, ",%s,%s", or_empty(r->device), or_empty(r->dtype));
    num(f, "%g", r->bytes_per_elem);
    num(f, "%.3f", r->h2d_gbps);
    num(f, "%.3f", r->d2h_gbps);
    fprintf(f, ",%s,%s", or_empty(r->regime), or_empty(r->isa));
    fputc('\n', f);
}

/* ------------------------------------------------------------- reading */

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

int nl_csv_read_header(char *line, nl_csv_layout *layout)
{
    char *field[64];
    size_t n = split(line, field, 64);
    layout->ncols = (int)n;
    for (int k = 0; k < NCOLS; k++) {
        layout->col[k] = -1;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(field[i], names[k]))
                layout->col[k] = (int)i;
    }
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (layout->col[required[i]] < 0) {
            nl_set_error("no column '%s' in the header", names[required[i]]);
            return 0;
        }
    return 1;
}

static const char *text(char **f, const nl_csv_layout *l, int k, const char *absent)
{
    return l->col[k] >= 0 ? f[l->col[k]] : absent;
}

static double number(char **f, const nl_csv_layout *l, int k)
{
    const char *t = text(f, l, k, "");
    return *t ? strtod(t, NULL) : NAN;
}

static size_t count(char **f, const nl_csv_layout *l, int k)
{
    return (size_t)strtoull(text(f, l, k, "0"), NULL, 10);
}

int nl_csv_read_row(char *line, const nl_csv_layout *l, nl_bench_row *r)
{
    char *f[64];
    int n = (int)split(line, f, 64);
    for (int k = 0; k < NCOLS; k++)
        if (l->col[k] >= n)
            return 0;
    memset(r, 0, sizeof *r);
    r->impl = text(f, l, IMPL, "");
    r->norm = text(f, l, NORM, "");
    r->device = *text(f, l, DEVICE, "") ? text(f, l, DEVICE, "") : "cpu";
    r->dtype = *text(f, l, DTYPE, "") ? text(f, l, DTYPE, "") : "f32";
    r->bytes_per_elem = isfinite(number(f, l, BYTES)) ? number(f, l, BYTES) : 8.0;
    r->rows = count(f, l, ROWS);
    r->d = count(f, l, D);
    r->threads = count(f, l, THREADS);
    r->peer = atoi(text(f, l, PEER, "0"));
    r->status = text(f, l, STATUS, "");
    r->samples = count(f, l, SAMPLES);
    r->reps = count(f, l, REPS);
    r->median_s = number(f, l, MED);
    r->p10_s = number(f, l, P10);
    r->p90_s = number(f, l, P90);
    r->gbps = number(f, l, GBPS);
    r->copy_gbps = number(f, l, COPY);
    r->roof = text(f, l, ROOF, "");
    r->frac_copy = number(f, l, FRAC);
    r->frac_p10 = number(f, l, FRAC_P10);
    r->frac_p90 = number(f, l, FRAC_P90);
    r->speedup = number(f, l, SPEEDUP);
    r->max_err = number(f, l, ERR);
    r->tol = number(f, l, TOL);
    r->copy_gbps_by_kind[NL_COPY_MEMCPY] = number(f, l, MEMCPY);
    r->copy_gbps_by_kind[NL_COPY_LOOP] = number(f, l, LOOP);
    r->copy_gbps_by_kind[NL_COPY_STREAM] = number(f, l, STREAM);
    r->h2d_gbps = number(f, l, H2D);
    r->d2h_gbps = number(f, l, D2H);
    r->regime = text(f, l, REGIME, "");
    r->isa = text(f, l, ISA, "");
    return 1;
}

int nl_csv_read_file(const char *path, void (*comment)(const char *line, void *ctx),
                     int (*row)(const nl_bench_row *r, void *ctx), void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        nl_set_error("cannot read %s", path);
        return 0;
    }
    char line[4096];
    nl_csv_layout layout;
    int have_header = 0, ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            if (comment)
                comment(line, ctx);
        } else if (!have_header) {
            if (!nl_csv_read_header(line, &layout)) {
                char why[256]; /* nl_set_error writes where nl_last_error() points */
                snprintf(why, sizeof why, "%s", nl_last_error());
                nl_set_error("%s: %s", path, why);
                ok = 0;
            }
            have_header = 1;
        } else {
            nl_bench_row r;
            ok = !nl_csv_read_row(line, &layout, &r) || row(&r, ctx);
        }
    }
    fclose(f);
    if (ok && !have_header) {
        nl_set_error("%s has no CSV header (is it a bench CSV?)", path);
        ok = 0;
    }
    return ok;
}
