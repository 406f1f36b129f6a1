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

/* NL_OK when `path` may be written: nothing there, or a regular file and
 * `force`.  Commands ask before they compute, so that a refusal costs
 * nothing; nl_io_write_file asks again when it writes. */
int nl_io_check_target(const char *path, int force);
/* Writes the parts, in order, as the file `path`: refuses an existing file
 * unless `force`, and anything there that is not a regular file even with
 * it; writes a temporary beside it and puts it in place only when
 * complete.  NL_EARG naming `path` and the reason. */
int nl_io_write_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, int force);

#endif
