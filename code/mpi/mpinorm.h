/* mpinorm.h — chapter 11: a norm whose rows are split across MPI ranks.
 *
 * Only build/normlab-mpi links this folder (mk/mpi.mk builds it with
 * mpicc); the normlab library and program never need MPI.
 *
 * A step has three stages, so that the program can time computation and
 * communication apart:
 *   nl_mpi_partials  each rank's statistics of its own slice of every row
 *   nl_mpi_combine   one collective over all rows of the step
 *   nl_mpi_finish + nl_mpi_apply   the row's mean and 1/std, then the output
 * With whole rows on every rank (--shard rows) the middle stage is skipped:
 * the partials are already the row's statistics. */
#ifndef NL_MPINORM_H
#define NL_MPINORM_H

#include <mpi.h>
#include <stddef.h>

#include "normlab.h"

/* ------------------------------------------------------------ shards */

/* A contiguous part [start, start + count) of n items. */
typedef struct { size_t start, count; } nl_shard;

/* Part k of n items split over `parts` parts as evenly as possible: the
 * first n % parts parts get one item more. A part may be empty (n < parts). */
nl_shard nl_shard_of(size_t n, size_t parts, size_t k);

/* -------------------------------------------------------- statistics */

/* What travels for each row, and how it is combined. */
typedef enum {
    NL_MPI_SUMSQ,  /* RMSNorm: sum of squares, one double, MPI_SUM */
    NL_MPI_SUMS,   /* LayerNorm: (sum, sum of squares) in float, MPI_SUM:
                      chapter 3's one-pass formula, wrong on offset data */
    NL_MPI_CHAN,   /* LayerNorm: (n, mean, M2) doubles, the Chan MPI_Op */
    NL_MPI_CHAN_RANK_ORDER,   /* the same summaries, merged in one fixed
                                 order (nl_mpi_combine_rank_order) */
} nl_mpi_stats;

/* Bytes of one row's statistics in the collective's message. */
size_t nl_mpi_stats_bytes(nl_mpi_stats kind);
/* "sum of squares (1 double)" etc., for messages. */
const char *nl_mpi_stats_what(nl_mpi_stats kind);

/* Per-row statistics of the rows this rank holds, one entry per row:
 * double for SUMSQ, float[2] for SUMS, nl_moments for CHAN. */
typedef struct {
    nl_mpi_stats kind;
    size_t rows;
    void *data;
} nl_mpi_partials_buf;

/* NL_OK, or NL_ENOMEM. Free with nl_mpi_partials_free. */
int nl_mpi_partials_alloc(nl_mpi_partials_buf *p, nl_mpi_stats kind, size_t rows);
void nl_mpi_partials_free(nl_mpi_partials_buf *p);

/* Statistics of the slice xs (rows x dk, row-major): this rank's part of
 * every row. dk may be 0 (a rank with no columns when d < ranks). */
void nl_mpi_partials(nl_mpi_partials_buf *p, const float *xs, size_t dk);

/* All ranks' partials combined in place, every row in one MPI_Allreduce
 * (NL_MPI_CHAN_RANK_ORDER: nl_mpi_combine_rank_order). Returns MPI_SUCCESS or the MPI error code. */
int nl_mpi_combine(nl_mpi_partials_buf *p, MPI_Comm comm);

/* The MPI datatype and operation of the Chan merge: (n, mean, M2) as
 * three contiguous doubles, merged by nl_chan_merge. Created on first use
 * and freed by nl_mpi_chan_free (before MPI_Finalize). */
int nl_mpi_chan_type(MPI_Datatype *type, MPI_Op *op);
void nl_mpi_chan_free(void);

/* The Chan summaries combined in one fixed bracketing, the same for every
 * MPI and every P: gathered on rank 0, folded there left to right in rank
 * order with MPI_Reduce_local and the Chan operation, and broadcast.
 * MPI_SUCCESS or the MPI error code (MPI_ERR_NO_MEM on rank 0). */
int nl_mpi_combine_rank_order(nl_mpi_partials_buf *p, MPI_Comm comm);

/* Rows (of `rows`) whose merged summary differs in any bit from the serial
 * fold ((s0 . s1) . s2) ... of nl_chan_merge over the column shards of
 * x (rows x d) split over `ranks` ranks by nl_shard_of: 0 when the
 * merge was the one MPI's contract describes, in rank order. */
size_t nl_mpi_rank_order_mismatches(const nl_moments *merged, const float *x, size_t rows,
                                    size_t d, size_t ranks);

/* ------------------------------------------------------------ output */

/* The row's mean (0 for RMSNorm) and 1 / sqrt(var + eps). */
typedef struct { double mean, inv_std; } nl_row_scale;

/* Combined statistics of rows of full width d -> one scale per row. */
void nl_mpi_finish(const nl_mpi_partials_buf *p, size_t d, double eps, nl_row_scale *scale);

/* ys = (xs - mean) * inv_std * gs (+ bs for LayerNorm) over the slice;
 * gs and bs are this rank's dk values of gamma and beta (bs NULL for
 * RMSNorm). */
void nl_mpi_apply(const nl_row_scale *scale, const float *xs, const float *gs, const float *bs,
                  size_t rows, size_t dk, float *ys);

#endif
