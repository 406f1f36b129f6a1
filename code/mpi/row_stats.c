/* row_stats.c — each rank's statistics of its slice of every row, and
 * their combination across ranks in one collective per step. */
#include <limits.h>
#include <stdlib.h>

#include "mpi/mpinorm.h"

size_t nl_mpi_stats_bytes(nl_mpi_stats kind)
{
    switch (kind) {
    case NL_MPI_SUMSQ: return sizeof(double);
    case NL_MPI_SUMS: return 2 * sizeof(float);
    case NL_MPI_CHAN:
    case NL_MPI_CHAN_RANK_ORDER: return sizeof(nl_moments);
    }
    return 0;
}

const char *nl_mpi_stats_what(nl_mpi_stats kind)
{
    switch (kind) {
    case NL_MPI_SUMSQ: return "sum of squares (1 double)";
    case NL_MPI_SUMS: return "sum and sum of squares (2 floats)";
    case NL_MPI_CHAN: return "n, mean and M2 (3 doubles)";
    case NL_MPI_CHAN_RANK_ORDER: return "n, mean and M2 (3 doubles), merged in rank order";
    }
    return "?";
}

int nl_mpi_partials_alloc(nl_mpi_partials_buf *p, nl_mpi_stats kind, size_t rows)
{
    p->kind = kind;
    p->rows = rows;
    p->data = calloc(rows ? rows : 1, nl_mpi_stats_bytes(kind));
    return p->data ? NL_OK : NL_ENOMEM;
}

void nl_mpi_partials_free(nl_mpi_partials_buf *p)
{
    free(p->data);
    p->data = NULL;
}

// @snippet mpi-partials
void nl_mpi_partials(nl_mpi_partials_buf *p, const float *xs, size_t dk)
{
    for (size_t r = 0; r < p->rows; r++) {
        const float *x = xs + r * dk;
        if (p->kind == NL_MPI_SUMSQ) {
            double ss = 0.0;
            for (size_t i = 0; i < dk; i++)
                ss += (double)x[i] * x[i];
            ((double *)p->data)[r] = ss;
        } else if (p->kind == NL_MPI_SUMS) {
            /* In float, as chapter 3's one-pass kernel keeps them: the
             * message is 8 bytes, and the formula is the flaw. */
            float s = 0.0f, ss = 0.0f;
            for (size_t i = 0; i < dk; i++) {
                s += x[i];
                ss += x[i] * x[i];
            }
            ((float *)p->data)[2 * r] = s;
            ((float *)p->data)[2 * r + 1] = ss;
        } else {
            /* The slice's own two-pass mean and M2: exact summaries of a
             * part, for the merge to combine. */
            nl_moments m = {(double)dk, 0.0, 0.0};
            for (size_t i = 0; i < dk; i++)
                m.mean += x[i];
            m.mean = dk ? m.mean / (double)dk : 0.0;
            for (size_t i = 0; i < dk; i++)
                m.m2 += ((double)x[i] - m.mean) * ((double)x[i] - m.mean);
            ((nl_moments *)p->data)[r] = m;
        }
    }
}
// @end

// @snippet mpi-combine
int nl_mpi_combine(nl_mpi_partials_buf *p, MPI_Comm comm)
{
    /* Every row of the step in one call: a collective costs a latency per
     * call whatever its size, so one per row would pay it rows times. */
    if (p->rows > (size_t)(INT_MAX / 2))
        return MPI_ERR_COUNT;
    int rows = (int)p->rows;
    switch (p->kind) {
    case NL_MPI_SUMSQ:
        return MPI_Allreduce(MPI_IN_PLACE, p->data, rows, MPI_DOUBLE, MPI_SUM, comm);
    case NL_MPI_SUMS:
        return MPI_Allreduce(MPI_IN_PLACE, p->data, 2 * rows, MPI_FLOAT, MPI_SUM, comm);
    case NL_MPI_CHAN: {
        MPI_Datatype type;
        MPI_Op op;
        int rc = nl_mpi_chan_type(&type, &op);
        return rc != MPI_SUCCESS ? rc : MPI_Allreduce(MPI_IN_PLACE, p->data, rows, type, op, comm);
    }
    case NL_MPI_CHAN_RANK_ORDER:
        return nl_mpi_combine_rank_order(p, comm);
    }
    return MPI_ERR_ARG;
}
// @end
