/* main.c — normlab-mpi: one norm step over rows split across MPI ranks,
 * checked against the serial double reference and timed.
 *
 *   mpirun -np 4 build/normlab-mpi --norm ln --shard hidden --rows 64 --d 4099
 *
 * Every rank draws the same data from the seed (as if the layer before had
 * left each rank its slice) and keeps its own part; rank 0 gathers the
 * output after the timed steps, only to check it.
 *
 * --dtype bf16 stores x and y in bf16, as a model's activations are: x is
 * the same float data rounded to bf16, and each rank holds its slice as
 * bf16 bits. A step widens the slice to float (exact) and from there runs
 * exactly the f32 step: the same statistics in the same precision, the
 * same collective with the same bytes, the same output in float; then it
 * rounds y to bf16, once, at the end. That is chapter 8's one-cast order
 * (torch's LayerNorm on bf16, GemmaRMSNorm), with gamma and beta kept in
 * float. The check is against the serial double reference on the same
 * bf16-rounded x, in ulps of bf16 (nl_half_ulp_error). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/cli/program.h"
#include "mpi/mpinorm.h"

/* The output is computed in double from exact statistics and rounded once
 * to float: for |y| < 8 that is at most half of 2^-21, 2.4e-7; the
 * tolerance allows about two ulps. */
#define NL_MPI_TOL 1e-6
/* bf16, in ulps of bf16 at the exact value: the float y is within about
 * 1e-6 relative of the exact y, some 2^-16 of a bf16 spacing, so its one
 * rounding is that of the exact value but within a hair of a halfway
 * point: at most 0.5 ulp and a hair (chapter 8: the one-cast orders reach
 * 0.5). The tolerance is the 1 ulp chapter 8's registry states for them;
 * a second rounding could reach 1.5, a wrong statistic far more. */
#define NL_MPI_TOL_ULP 1.0

/* What this rank owns: rows [rows.start, +count) x columns [cols.start, +count). */
typedef struct {
    int rank, ranks;
    nl_shard rows, cols;
    int exchange;              /* 1 when rows are split over ranks by column */
} layout;

typedef struct {
    float *x, *gamma, *beta;   /* the whole problem, the same on every rank */
    float *xs, *ys;            /* this rank's slice: rows.count x cols.count */
    uint16_t *xs16, *ys16;     /* bf16: the slice as stored; xs, ys its widened copy */
    nl_row_scale *scale;
    nl_mpi_partials_buf part;
    double *compute, *comm;    /* seconds per timed step */
    float *y;                  /* rank 0: the gathered output (f32) */
    uint16_t *y16;             /* rank 0: the gathered output (bf16) */
    double *ref;               /* rank 0: the reference */
} buffers;

static void *zalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

static int alloc_all(const nl_mpi_options *o, const layout *l, buffers *b)
{
    size_t n = o->rows * o->d, mine = l->rows.count * l->cols.count;
    memset(b, 0, sizeof *b);
    b->x = zalloc(n, sizeof(float));
    b->gamma = zalloc(o->d, sizeof(float));
    b->beta = zalloc(o->d, sizeof(float));
    b->xs = zalloc(mine, sizeof(float));
    b->ys = zalloc(mine, sizeof(float));
    int half = o->dtype == NL_DT_BF16;
    if (half) {
        b->xs16 = zalloc(mine, sizeof(uint16_t));
        b->ys16 = zalloc(mine, sizeof(uint16_t));
    }
    b->scale = zalloc(l->rows.count, sizeof(nl_row_scale));
    b->compute = zalloc(o->repeat, sizeof(double));
    b->comm = zalloc(o->repeat, sizeof(double));
    nl_mpi_stats kind = o->norm == NL_RMSNORM ? NL_MPI_SUMSQ
                      : o->method_chan == 2   ? NL_MPI_CHAN_RANK_ORDER
                      : o->method_chan        ? NL_MPI_CHAN : NL_MPI_SUMS;
    int ok = nl_mpi_partials_alloc(&b->part, kind, l->rows.count) == NL_OK;
    if (l->rank == 0) {
        if (half)
            b->y16 = zalloc(n, sizeof(uint16_t));
        else
            b->y = zalloc(n, sizeof(float));
        b->ref = zalloc(n, sizeof(double));
        ok = ok && (half ? b->y16 != NULL : b->y != NULL) && b->ref;
    }
    ok = ok && (!half || (b->xs16 && b->ys16));
    return ok && b->x && b->gamma && b->beta && b->xs && b->ys && b->scale && b->compute &&
           b->comm;
}

static void free_all(buffers *b)
{
    free(b->x), free(b->gamma), free(b->beta), free(b->xs), free(b->ys), free(b->scale);
    free(b->compute), free(b->comm), free(b->y), free(b->ref);
    free(b->xs16), free(b->ys16), free(b->y16);
    nl_mpi_partials_free(&b->part);
}

static void draw(const nl_mpi_options *o, const layout *l, buffers *b)
{
    nl_pyrandom rng;
    nl_pyrandom_seed(&rng, o->seed);
    for (size_t i = 0; i < o->rows * o->d; i++)
        b->x[i] = (float)nl_pyrandom_gauss(&rng, o->mean, o->std);
    if (o->dtype == NL_DT_BF16)   /* the data as bf16; x keeps it widened, for the reference */
        for (size_t i = 0; i < o->rows * o->d; i++)
            b->x[i] = nl_bf16_to_float(nl_bf16_from_float(b->x[i]));
    for (size_t i = 0; i < o->d; i++) {
        b->gamma[i] = (float)nl_pyrandom_gauss(&rng, 1.0, 0.1);
        b->beta[i] = (float)nl_pyrandom_gauss(&rng, 0.0, 0.1);
    }
    for (size_t r = 0; r < l->rows.count; r++)
        memcpy(b->xs + r * l->cols.count, b->x + (l->rows.start + r) * o->d + l->cols.start,
               l->cols.count * sizeof(float));
    if (o->dtype == NL_DT_BF16) {   /* the rank keeps only the bf16 bits */
        for (size_t i = 0; i < l->rows.count * l->cols.count; i++)
            b->xs16[i] = nl_bf16_from_float(b->xs[i]);
        memset(b->xs, 0, l->rows.count * l->cols.count * sizeof(float));
    }
}

// @snippet mpi-step
/* One timed step: statistics of the slice, one collective, the output. */
static void step(const nl_mpi_options *o, const layout *l, buffers *b, double *compute,
                 double *comm)
{
    size_t dk = l->cols.count;
    MPI_Barrier(MPI_COMM_WORLD);   /* every rank starts the step together */
    double t0 = MPI_Wtime();
    size_t mine = l->rows.count * dk;
    if (b->xs16)   /* bf16: widen the stored slice, exactly */
        for (size_t i = 0; i < mine; i++)
            b->xs[i] = nl_bf16_to_float(b->xs16[i]);
    nl_mpi_partials(&b->part, b->xs, dk);
    double t1 = MPI_Wtime();
    if (l->exchange) {
        int rc = nl_mpi_combine(&b->part, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, rc);
    }
    double t2 = MPI_Wtime();
    nl_mpi_finish(&b->part, o->d, o->eps, b->scale);
    nl_mpi_apply(b->scale, b->xs, b->gamma + l->cols.start,
                 o->norm == NL_LAYERNORM ? b->beta + l->cols.start : NULL,
                 l->rows.count, dk, b->ys);
    if (b->ys16)   /* bf16: the one rounding, of the float output */
        for (size_t i = 0; i < mine; i++)
            b->ys16[i] = nl_bf16_from_float(b->ys[i]);
    double t3 = MPI_Wtime();
    *compute = (t1 - t0) + (t3 - t2);
    *comm = t2 - t1;
}
// @end

/* Rank 0 collects every rank's slice into y (rows x d, row-major): the
 * float ys into y, or for bf16 the bf16 ys16 into y16, half the bytes. */
static void gather(const nl_mpi_options *o, const layout *l, buffers *b)
{
    int *counts = NULL, *displs = NULL;
    unsigned char *blocks = NULL;
    int half = o->dtype == NL_DT_BF16;
    size_t size = half ? sizeof(uint16_t) : sizeof(float);
    const void *mine = half ? (const void *)b->ys16 : (const void *)b->ys;
    unsigned char *y = half ? (unsigned char *)b->y16 : (unsigned char *)b->y;
    if (l->rank == 0) {
        counts = zalloc((size_t)l->ranks, sizeof(int));
        displs = zalloc((size_t)l->ranks, sizeof(int));
        blocks = zalloc(o->rows * o->d, size);
        if (!counts || !displs || !blocks)
            MPI_Abort(MPI_COMM_WORLD, 1);
        size_t at = 0;
        for (int k = 0; k < l->ranks; k++) {
            size_t n = l->exchange ? o->rows * nl_shard_of(o->d, (size_t)l->ranks, (size_t)k).count
                                   : nl_shard_of(o->rows, (size_t)l->ranks, (size_t)k).count * o->d;
            counts[k] = (int)n;
            displs[k] = (int)at;
            at += n;
        }
    }
    MPI_Datatype type = half ? MPI_UINT16_T : MPI_FLOAT;
    MPI_Gatherv(mine, (int)(l->rows.count * l->cols.count), type, blocks, counts, displs, type, 0,
                MPI_COMM_WORLD);
    if (l->rank == 0) {
        /* Rank k's block is rows x its columns; put each row piece in place. */
        for (int k = 0; k < l->ranks; k++) {
            nl_shard c = l->exchange ? nl_shard_of(o->d, (size_t)l->ranks, (size_t)k)
                                     : (nl_shard){0, o->d};
            nl_shard r = l->exchange ? (nl_shard){0, o->rows}
                                     : nl_shard_of(o->rows, (size_t)l->ranks, (size_t)k);
            for (size_t i = 0; i < r.count; i++)
                memcpy(y + ((r.start + i) * o->d + c.start) * size,
                       blocks + ((size_t)displs[k] + i * c.count) * size, c.count * size);
        }
    }
    free(counts), free(displs), free(blocks);
}

/* 64-bit FNV-1a of the output's bytes: two runs agree bit for bit exactly
 * when their fingerprints do (up to a 2^-64 accident). */
static unsigned long long fingerprint(const void *y, size_t bytes)
{
    unsigned long long h = 1469598103934665603ULL;
    const unsigned char *p = y;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int report(const nl_mpi_options *o, const layout *l, buffers *b)
{
    size_t n = o->rows * o->d;
    nl_shard widest = nl_shard_of(l->exchange ? o->d : o->rows, (size_t)l->ranks, 0);
    nl_shard narrowest = nl_shard_of(l->exchange ? o->d : o->rows, (size_t)l->ranks,
                                     (size_t)l->ranks - 1);
    printf("normlab-mpi: %s, %zu rows x %zu, %s split over %d rank%s (%zu to %zu each)\n",
           nl_norm_name(o->norm), o->rows, o->d, l->exchange ? "columns" : "rows", l->ranks,
           l->ranks == 1 ? "" : "s", narrowest.count, widest.count);
    printf("data: Gaussian, mean %g, std %g, seed %llu; eps %g\n", o->mean, o->std,
           (unsigned long long)o->seed, o->eps);
    int half = o->dtype == NL_DT_BF16;
    if (half)   /* (f32 prints no such line: its report stays as it was) */
        printf("storage: x and y in bf16, widened to float for the statistics, y rounded "
               "once; output gathered: %zu B per row\n", o->d * sizeof(uint16_t));
    if (l->exchange) {
        size_t bytes = nl_mpi_stats_bytes(b->part.kind);
        printf("statistics: %s, %zu B per row from each rank\n", nl_mpi_stats_what(b->part.kind),
               bytes);
        if (b->part.kind == NL_MPI_CHAN_RANK_ORDER)
            printf("exchange: one MPI_Gather to rank 0 of %zu rows (%zu B) per rank, a merge "
                   "in rank order, one MPI_Bcast, per step\n", o->rows, bytes * o->rows);
        else
            printf("exchange: one MPI_Allreduce of %zu rows (%zu B) per step\n", o->rows,
                   bytes * o->rows);
    } else {
        printf("statistics: none sent, every rank holds whole rows\n");
    }

    nl_reference(o->norm, b->x, b->gamma, b->beta, o->eps, o->rows, o->d, b->ref);
    double err;
    int ok;
    if (half) {
        err = 0.0;
        for (size_t i = 0; i < n; i++) {
            double u = nl_half_ulp_error(NL_DT_BF16, b->y16[i], b->ref[i]);
            err = u > err || isnan(u) ? u : err;
        }
        ok = err <= NL_MPI_TOL_ULP;   /* false for NaN too */
        printf("max error: %.3g ulp of bf16 (tol %g ulp)%s\n", err, NL_MPI_TOL_ULP,
               ok ? "" : "  ABOVE TOL: the row statistics are wrong");
    } else {
        err = nl_max_abs_diff(b->y, b->ref, n);
        ok = err <= NL_MPI_TOL;   /* false for NaN too */
        printf("max error: %.3g (tol %.0e)%s\n", err, NL_MPI_TOL,
               ok ? "" : "  ABOVE TOL: the row statistics are wrong");
    }
    if (l->exchange && (b->part.kind == NL_MPI_CHAN || b->part.kind == NL_MPI_CHAN_RANK_ORDER)) {
        /* Which bracketing did the merge use? Compare rank 0's merged
         * summaries with the serial left-to-right fold. For chan this is
         * what this MPI happened to do; chan-ordered promises it. */
        size_t bad = nl_mpi_rank_order_mismatches(b->part.data, b->x, o->rows, o->d,
                                                  (size_t)l->ranks);
        int promised = b->part.kind == NL_MPI_CHAN_RANK_ORDER;
        printf("rank order: merged (n, mean, M2) equal the serial fold in rank order in %zu "
               "of %zu rows%s\n", o->rows - bad, o->rows,
               bad && promised ? "  NOT IN RANK ORDER: the operation must compute "
                                 "in (op) inout, lower ranks on the left" : "");
        ok = ok && !(bad && promised);
    }
    printf("fingerprint: %016llx\n", half ? fingerprint(b->y16, n * sizeof(uint16_t))
                                          : fingerprint(b->y, n * sizeof(float)));

    nl_stats c = nl_summarize(b->compute, o->repeat), m = nl_summarize(b->comm, o->repeat);
    double per_row = o->rows ? 1e9 / (double)o->rows : 0.0;
    printf("time per step (slowest rank, median of %zu): compute %.1f us, communication %.1f us\n",
           o->repeat, c.median * 1e6, m.median * 1e6);
    printf("time per row: compute %.1f ns, communication %.1f ns\n", c.median * per_row,
           m.median * per_row);
    return ok ? 0 : 1;
}

static int run(const nl_mpi_options *o, int rank, int ranks)
{
    layout l = {rank, ranks, {0, o->rows}, {0, o->d}, !o->shard_rows};
    if (o->shard_rows)
        l.rows = nl_shard_of(o->rows, (size_t)ranks, (size_t)rank);
    else
        l.cols = nl_shard_of(o->d, (size_t)ranks, (size_t)rank);

    buffers b;
    int ok = alloc_all(o, &l, &b), all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "normlab-mpi: out of memory for %zu rows x %zu on some rank\n",
                    o->rows, o->d);
        free_all(&b);
        return 1;
    }
    draw(o, &l, &b);
    for (size_t i = 0; i < o->repeat; i++)
        step(o, &l, &b, &b.compute[i], &b.comm[i]);
    /* The step is as slow as its slowest rank. */
    MPI_Reduce(rank ? b.compute : MPI_IN_PLACE, b.compute, (int)o->repeat, MPI_DOUBLE, MPI_MAX,
               0, MPI_COMM_WORLD);
    MPI_Reduce(rank ? b.comm : MPI_IN_PLACE, b.comm, (int)o->repeat, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    gather(o, &l, &b);
    int rc = rank == 0 ? report(o, &l, &b) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free_all(&b);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    nl_mpi_options o;
    int rc = nl_mpi_parse(argc, argv, rank == 0, &o);
    if (rc < 0)
        rc = run(&o, rank, ranks);
    fflush(stdout);
    nl_mpi_chan_free();
    MPI_Finalize();
    return rc;
}
