/* array.c — what .npy and .safetensors arrays share: element sizes, the
 * checked product of a shape, freeing, and reading the data block of a
 * file into aligned memory with a message that names the file. */
#include "io/io.h"

#include <errno.h>
#include <string.h>

size_t nl_elem_size(nl_elem e)
{
    return e == NL_ELEM_F32 ? 4 : 2;
}

void nl_array_free(nl_array *a)
{
    if (!a)
        return;
    nl_free(a->data);
    a->data = NULL;
}

int nl_io_shape_count(const char *path, const nl_array *a, size_t *bytes)
{
    size_t n = 1;
    for (size_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] && n > SIZE_MAX / a->shape[i]) {
            nl_set_error("%s: the shape overflows a size_t", path);
            return NL_EARG;
        }
        n *= a->shape[i];
    }
    if (n > SIZE_MAX / nl_elem_size(a->elem)) {
        nl_set_error("%s: the shape overflows a size_t", path);
        return NL_EARG;
    }
    *bytes = n * nl_elem_size(a->elem);
    return NL_OK;
}

int nl_io_read_data(FILE *f, const char *path, long offset, nl_array *a)
{
    size_t bytes;
    int rc = nl_io_shape_count(path, a, &bytes);
    if (rc)
        return rc;
    a->count = bytes / nl_elem_size(a->elem);
    if (fseek(f, 0, SEEK_END) != 0) {
        nl_set_error("%s: cannot seek (a pipe?): %s", path, strerror(errno));
        return NL_EARG;
    }
    long end = ftell(f);
    if (end < offset || (unsigned long)(end - offset) < bytes) {
        nl_set_error("%s: truncated: the header promises %zu bytes of data, the file has %ld",
                     path, bytes, end < offset ? 0L : end - offset);
        return NL_EARG;
    }
    a->data = nl_alloc(bytes ? bytes : 1);
    if (!a->data) {
        nl_set_error("%s: no memory for %zu bytes of data", path, bytes);
        return NL_ENOMEM;
    }
    if (fseek(f, offset, SEEK_SET) != 0 || fread(a->data, 1, bytes, f) != bytes) {
        nl_set_error("%s: cannot read %zu bytes of data: %s", path, bytes,
                     ferror(f) ? strerror(errno) : "short read");
        nl_array_free(a);
        return NL_EARG;
    }
    return NL_OK;
}
