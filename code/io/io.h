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

/* Writing the user's files (write.c; nl_output_check, the question every
 * command asks before it computes so that a refusal costs nothing, is in
 * normlab.h).  Stage: the parts, in order, as a complete temporary beside
 * `path`.  Commit: asks nl_output_check again and puts the temporary in
 * place (link without force, so a file that appeared meanwhile is kept).
 * Discard: removes a staged temporary.  Write: check, stage, commit.
 * Each returns NL_EARG naming `path` and the reason. */
int nl_io_stage_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, char **staged);
int nl_io_commit_file(const char *path, char *staged, int force);
void nl_io_discard_file(char *staged);
int nl_io_write_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, int force);

#endif
