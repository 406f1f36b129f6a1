/* program.h — normlab-mpi, the program: options and the run. */
#ifndef NL_MPI_PROGRAM_H
#define NL_MPI_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "normlab.h"

/* Bounds that keep every MPI count an int and every rank's copy of the
 * data (x, y, and on rank 0 the double reference) within a few GiB. */
#define NL_MPI_MAX_DIM (1 << 24)
#define NL_MPI_MAX_VALUES (1 << 26)

typedef struct {
    nl_norm norm;
    size_t rows, d;
    int shard_rows;    /* 1: --shard rows, 0: --shard hidden */
    int method_chan;   /* LayerNorm over a split row: 0 sums, 1 chan,
                          2 chan-ordered (merged in rank order) */
    nl_dtype dtype;    /* NL_DT_F32 or NL_DT_BF16: how x and y are stored */
    double mean, std, eps;
    uint64_t seed;
    size_t repeat;
    int have_norm, have_rows, have_d, have_shard, have_method;
} nl_mpi_options;

/* -1: parsed, go on; 0: --help was printed; 2: a usage error was
 * printed (by the rank with speak != 0). */
int nl_mpi_parse(int argc, char **argv, int speak, nl_mpi_options *o);

#endif
