/* shard.c — which columns (or rows) each rank owns. */
#include "mpi/mpinorm.h"

// @snippet mpi-shard
nl_shard nl_shard_of(size_t n, size_t parts, size_t k)
{
    /* The first n % parts parts take one extra item, so sizes differ by
     * at most one and every item is owned exactly once. */
    size_t base = n / parts, extra = n % parts;
    nl_shard s;
    s.start = k * base + (k < extra ? k : extra);
    s.count = base + (k < extra ? 1 : 0);
    return s;
}
// @end
