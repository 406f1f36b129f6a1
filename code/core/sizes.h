/* sizes.h — reading sizes from text and checking that a shape fits this
 * machine, for every caller that takes sizes from a person (the normlab
 * program's options, shapes).  Nothing here sees argv or prints: each
 * check returns 1, or 0 with the reason in nl_last_error(), and the
 * caller names the option it came from.  Internal: not part of normlab.h. */
#ifndef NL_SIZES_H
#define NL_SIZES_H

#include <stddef.h>

/* A strictly positive whole number no larger than `max` ("4096", not "4k",
 * "-1", "+3", " 7", "12abc" or "0").  Every size a person gives should
 * have a bound (threads, samples), so that 2^62 is refused rather than
 * attempted. */
int nl_parse_size(const char *text, size_t max, size_t *out);

/* 1 if `buffers` float arrays of rows x d fit in size_t and in this
 * machine's memory. */
int nl_check_shape(size_t rows, size_t d, size_t buffers);

/* This machine's physical memory in bytes, or 0 when the system will not
 * say. */
double nl_phys_memory(void);

#endif
