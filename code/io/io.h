/* io.h — helpers the array file readers share (code/io/); the public
 * functions are in normlab.h. */
#ifndef NL_IO_H
#define NL_IO_H

#include <stdio.h>

#include "normlab.h"

/* Bytes of a's shape and element type, NL_EARG naming `path` on overflow. */
int nl_io_shape_count(const char *path, const nl_array *a, size_t *bytes);
/* Sets a->count and reads it into a->data from `offset`; NL_EARG naming
 * `path` when the file holds fewer bytes than the shape needs. */
int nl_io_read_data(FILE *f, const char *path, long offset, nl_array *a);

#endif
