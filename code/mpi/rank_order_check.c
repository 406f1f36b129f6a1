/* rank_order_check.c — what every chan run checks: the merged summaries
 * against the serial fold in rank order, (s0 . s1) . s2 ..., computed
 * here from the whole rows.  Apart from rank_order.c, which the row
 * statistics call, so that calls between the files go one way. */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpinorm.h"

size_t nl_mpi_rank_order_mismatches(const nl_moments *merged, const float *x, size_t rows,
                                    size_t d, size_t ranks)
{
    size_t bad = 0;
    float *slice = malloc((d ? d : 1) * sizeof *slice);
    if (!slice)
        return rows;
    for (size_t r = 0; r < rows; r++) {
        nl_moments acc = {0.0, 0.0, 0.0};
        for (size_t k = 0; k < ranks; k++) {
            nl_shard c = nl_shard_of(d, ranks, k);
            memcpy(slice, x + r * d + c.start, c.count * sizeof *slice);
            nl_moments part;
            nl_mpi_partials_buf one = {NL_MPI_CHAN, 1, &part};
            nl_mpi_partials(&one, slice, c.count);
            /* What MPI's contract says the operation computes:
             * lower ranks (op) upper ranks. */
            acc = k == 0 ? part : nl_chan_merge(acc, part);
        }
        bad += memcmp(&acc, merged + r, sizeof acc) != 0;
    }
    free(slice);
    return bad;
}
