/* rank_order.c — the Chan merge of every rank's summaries in one fixed
 * order, whatever algorithm MPI_Allreduce would have chosen.
 *
 * Declaring the operation non-commutative (chan_op.c) fixes the order of
 * the operands, rank 0's on the left; the MPI standard still lets the
 * implementation choose the bracketing ("the order of evaluation can be
 * changed, taking advantage of the associativity of the operation"), and
 * the Chan merge is associative only in exact arithmetic. Open MPI picks
 * its all-reduce algorithm by communicator and message size, so the bits
 * of the merged (n, mean, M2) may change with P, with the row count, or
 * with a tuning file. Here the bracketing is spelled out: gather every
 * rank's summaries on rank 0, fold them there left to right with
 * MPI_Reduce_local (a local call: the operation on exactly the two buffers
 * given), and broadcast the result, which moves bytes and rounds nothing. */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpinorm.h"

// @snippet mpi-rank-order
int nl_mpi_combine_rank_order(nl_mpi_partials_buf *p, MPI_Comm comm)
{
    MPI_Datatype type;
    MPI_Op op;
    int rc = nl_mpi_chan_type(&type, &op), rank, ranks;
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    int rows = (int)p->rows;
    nl_moments *all = NULL;
    if (rank == 0) {
        all = calloc((size_t)ranks * (p->rows ? p->rows : 1), sizeof *all);
        if (!all)
            return MPI_ERR_NO_MEM;   /* the caller aborts every rank */
    }
    rc = MPI_Gather(p->data, rows, type, all, rows, type, 0, comm);
    if (rc == MPI_SUCCESS && rank == 0) {
        /* ((s0 . s1) . s2) . s3: MPI_Reduce_local(in, inout) leaves
         * in (op) inout in inout, so the running merge of the lower ranks
         * goes in `in` and rank k's summaries are the `inout`. */
        for (int k = 1; k < ranks && rc == MPI_SUCCESS; k++)
            rc = MPI_Reduce_local(all + (size_t)(k - 1) * p->rows, all + (size_t)k * p->rows,
                                  rows, type, op);
        memcpy(p->data, all + (size_t)(ranks - 1) * p->rows, p->rows * sizeof *all);
    }
    free(all);
    return rc != MPI_SUCCESS ? rc : MPI_Bcast(p->data, rows, type, 0, comm);
}
// @end
