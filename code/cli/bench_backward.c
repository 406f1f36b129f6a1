/* bench_backward.c — the backward kernels of chapter 10 as rows of
 * `normlab bench` (they run when --impl names them).
 *
 * Bytes: a backward pass reads x and dy and writes dx, 12 bytes per
 * element; gamma, the saved mean and rstd, and dgamma/dbeta are vectors of
 * d or rows floats, nothing next to that.  The threaded kernels also write
 * and read their chunk partials, 8 bytes per 256 rows per column and
 * parameter tensor (0.3% more for RMSNorm): that traffic is theirs to pay and
 * is not counted as work.  The roof is chapter 6's copy, timed in the same
 * run: fraction of copy = (12 n / kernel time) / (8 n / copy time). */
#include <math.h>
#include <string.h>

#include "cli/bench.h"


/* What a backward call needs beyond nl_bench_data: dy, the statistics the
 * forward saved, and the parameter gradients. */
typedef struct {
    const nl_bwd_impl *im;
    float *dy, *mean, *rstd, *dgamma, *dbeta;
} job;

static int job_new(job *j, const bench_entry *e, const nl_bench_data *b, size_t rows)
{
    size_t n = rows * b->d;
    j->im = e->impl;
    j->dy = nl_alloc((n + 2 * rows + 2 * b->d) * sizeof(float));
    if (!j->dy)
        return NL_ENOMEM;
    j->mean = j->dy + n, j->rstd = j->mean + rows, j->dgamma = j->rstd + rows;
    j->dbeta = j->dgamma + b->d;
    /* dy: x one row further on, so that dy is not x (which would make
     * mean(g x) large on every row) and costs no generator */
    size_t shift = rows > 1 ? b->d : 0;
    memcpy(j->dy, b->x + shift, (n - shift) * sizeof(float));
    memcpy(j->dy + n - shift, b->x, shift * sizeof(float));
    memset(j->dgamma, 0, 2 * b->d * sizeof(float));
    return nl_forward_stats(j->im->norm, b->x, b->eps, rows, b->d, j->mean, j->rstd);
}

static int run(const job *j, const nl_bench_data *b, size_t rows, float *dx)
{
    int ln = j->im->norm == NL_LAYERNORM;
    return j->im->fn(b->x, b->gamma, ln ? j->mean : NULL, j->rstd, j->dy, rows, b->d, dx,
                     j->dgamma, ln ? j->dbeta : NULL);
}

/* The worst relative error of dx, dgamma and dbeta against the double
 * reference, on the first 256 rows (the reference of a 16384 x 8192 batch
 * would need 1 GiB of doubles). */
static double check(const bench_entry *e, const nl_bench_data *b, int *rc)
{
    size_t rows = b->rows < 256 ? b->rows : 256, n = rows * b->d;
    job j;
    double worst = NAN, *ref = nl_alloc((n + 2 * b->d) * sizeof(double));
    if (!ref || (*rc = job_new(&j, e, b, rows)) != NL_OK) {
        nl_free(ref);
        *rc = NL_ENOMEM;
        return NAN;
    }
    if ((*rc = run(&j, b, rows, b->y)) == NL_OK &&
        (*rc = nl_backward_reference(e->norm, b->x, b->gamma, j.dy, b->eps, 0, rows, b->d, ref,
                                     ref + n, ref + n + b->d)) == NL_OK) {
        worst = nl_grad_rel_err(b->y, ref, n);
        double g = nl_grad_rel_err(j.dgamma, ref + n, b->d);
        double bb = e->norm == NL_LAYERNORM ? nl_grad_rel_err(j.dbeta, ref + n + b->d, b->d) : 0.0;
        worst = worst > g ? worst : g;
        worst = worst > bb ? worst : bb;
    }
    nl_free(j.dy);
    nl_free(ref);
    return worst;
}

/* nl_bench_time times an nl_forward_fn; this one runs the backward job
 * instead, writing dx where the forward would write y. */
static const job *timed;
static const nl_bench_data *timed_data;

static int as_forward(const float *x, const float *gamma, const float *beta, float eps,
                      size_t rows, size_t d, float *y)
{
    (void)x, (void)gamma, (void)beta, (void)eps, (void)d;
    return run(timed, timed_data, rows, y);
}

static int time_backward(const bench_entry *e, const nl_bench_data *b, size_t samples,
                         nl_bench_row *row)
{
    job j;
    int rc = job_new(&j, e, b, b->rows);
    if (rc == NL_OK) {
        timed = &j, timed_data = b;
        rc = nl_bench_time(as_forward, e->norm, b, samples, row);
        timed = NULL, timed_data = NULL;
    }
    nl_free(j.dy);
    if (rc != NL_OK)
        return rc;
    /* nl_bench_time counted a forward's 8 bytes per element */
    double more = e->bytes_per_elem / 8.0;
    row->gbps *= more;
    row->frac_copy *= more;
    row->frac_p10 *= more;
    row->frac_p90 *= more;
    return NL_OK;
}

size_t bench_backward_entries(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    for (size_t i = 0; i < n && k < max; i++) {
        /* the OpenCL backward copies its buffers over on every call:
         * timing it would time PCIe (or memcpy), not the kernel */
        if (!o->impls || !bench_listed(o->impls, all[i].name) || (all[i].requires & NL_REQ_OPENCL) ||
            !bench_wants_dtype(o, NL_DT_F32))
            continue;
        out[k++] = (bench_entry){
            .name = all[i].name, .norm = all[i].norm, .device = "cpu", .dtype = "f32",
            .bytes_per_elem = 12, .tol = all[i].tol,
            .threaded = (all[i].requires & NL_REQ_OPENMP) != 0,
            .unavailable = nl_bwd_impl_unavailable(&all[i]), .impl = &all[i],
            .check = check, .time = time_backward};
    }
    return k;
}

int bench_backward_knows(const char *name)
{
    return nl_find_bwd_impl(name) != NULL;
}
