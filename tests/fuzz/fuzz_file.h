/* fuzz_file.h — the fuzz input as a file the array readers can open.
 *
 * nl_npy_read and nl_safetensors_read take a path (they seek and read the
 * data block themselves), so each input goes into a memfd, opened through
 * /proc/self/fd: no file on disk, nothing left after a crash. */
#ifndef NL_FUZZ_FILE_H
#define NL_FUZZ_FILE_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "normlab.h"

/* The path of a memfd holding data (written into path), or abort(). */
static inline int nl_fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
    int fd = memfd_create("fuzz-input", 0);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

/* What every reader must give back: a refusal names the file; an array
 * read has a shape whose product is its count, and data to match. */
static inline void nl_fuzz_check(int rc, const char *path, nl_array *a)
{
    if (rc != NL_OK) {
        if (strncmp(nl_last_error(), path, strlen(path)) != 0 || a->data)
            abort();
        return;
    }
    size_t count = 1;
    for (size_t i = 0; i < a->ndim; i++)
        count *= a->shape[i];
    if (count != a->count || !a->data || a->ndim > NL_ARRAY_MAXDIM)
        abort();
    /* touch every byte: ASan sees a buffer shorter than count says */
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < count * nl_elem_size(a->elem); i++)
        sink ^= ((const unsigned char *)a->data)[i];
    (void)sink;
    nl_array_free(a);
}

#endif
