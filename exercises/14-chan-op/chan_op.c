/* chan_op.c — chapter 3's Chan merge as an MPI reduction operation.
 *
 * MPI_SUM can add numbers; it cannot merge (n, mean, M2) summaries. A
 * user operation can: MPI calls it with two arrays of summaries and it
 * merges them element by element, at every step of the all-reduce's
 * tree or ring, exactly as SIMD lanes and threads merged theirs. */
#include "mpi/mpinorm.h"

/* MPI's contract for a user operation: inout[i] = in[i] (op) inout[i],
 * where `in` holds the summaries of lower-ranked processes. */
static void chan_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const nl_moments *lower = in;
    nl_moments *upper = inout;
    /* TODO(14-chan-op): your code here; see exercises/14-chan-op/README.md */
    (void)lower; (void)upper; (void)len; /* TODO: merge each lower[i] into upper[i] */
}

static MPI_Datatype moments_type = MPI_DATATYPE_NULL;
static MPI_Op chan_op = MPI_OP_NULL;

int nl_mpi_chan_type(MPI_Datatype *type, MPI_Op *op)
{
    if (chan_op == MPI_OP_NULL) {
        /* Three doubles in a row: nl_moments has no padding (static
         * assertion below), so the array of structs is an array of these. */
        int rc = MPI_Type_contiguous(3, MPI_DOUBLE, &moments_type);
        if (rc == MPI_SUCCESS)
            rc = MPI_Type_commit(&moments_type);
        /* Not commutative: in floating point merge(a, b) and merge(b, a)
         * can differ in the last bit. Declared so, MPI keeps a lower
         * rank's operand on the left, but may still regroup the merges
         * (the standard allows it; Open MPI's choice depends on P and
         * the message size): rank_order.c fixes the order itself. */
        if (rc == MPI_SUCCESS)
            rc = MPI_Op_create(chan_reduce, 0, &chan_op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *type = moments_type;
    *op = chan_op;
    return MPI_SUCCESS;
}

_Static_assert(sizeof(nl_moments) == 3 * sizeof(double), "nl_moments must be three packed doubles");

void nl_mpi_chan_free(void)
{
    if (chan_op != MPI_OP_NULL)
        MPI_Op_free(&chan_op);
    if (moments_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&moments_type);
}
