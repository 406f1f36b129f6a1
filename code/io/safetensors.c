/* safetensors.c — one tensor out of a .safetensors file, the format
 * models ship their weights in: 8 bytes (little-endian length N), N bytes
 * of JSON naming each tensor's dtype, shape and byte range, then the data.
 * cJSON reads the JSON; we check every number it gives against the file. */
#include "io/io.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER_MAX = 100 << 20 }; /* the format's own limit is 100 MB */

static int elem_of(const char *dtype, nl_elem *e)
{
    if (!strcmp(dtype, "F32"))
        *e = NL_ELEM_F32;
    else if (!strcmp(dtype, "F16"))
        *e = NL_ELEM_F16;
    else if (!strcmp(dtype, "BF16"))
        *e = NL_ELEM_BF16;
    else
        return 0;
    return 1;
}

/* The one tensor of the file, or a message listing what is there. */
static const cJSON *pick(const char *path, const cJSON *root, const char *tensor)
{
    const cJSON *it, *only = NULL;
    size_t n = 0;
    char names[256] = "";
    cJSON_ArrayForEach(it, root) {
        if (!strcmp(it->string, "__metadata__"))
            continue;
        if (tensor && !strcmp(it->string, tensor))
            return it;
        only = it;
        n++;
        size_t used = strlen(names);
        if (used < sizeof names - 1)
            snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", it->string);
    }
    if (!tensor && n == 1)
        return only;
    if (tensor)
        nl_set_error("%s: no tensor '%s' (the file has: %s)", path, tensor, n ? names : "none");
    else
        nl_set_error("%s holds %zu tensors (%s): name one as %s:TENSOR", path, n,
                     n ? names : "none", path);
    return NULL;
}

static int describe(const char *path, const cJSON *t, nl_array *a, size_t *begin, size_t *end)
{
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *offs = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    if (!cJSON_IsString(dtype) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs) ||
        cJSON_GetArraySize(offs) != 2) {
        nl_set_error("%s: tensor '%s' lacks dtype, shape or data_offsets", path, t->string);
        return NL_EARG;
    }
    if (!elem_of(dtype->valuestring, &a->elem)) {
        nl_set_error("%s: tensor '%s' has dtype %s: normlab reads F32, F16 and BF16", path,
                     t->string, dtype->valuestring);
        return NL_EARG;
    }
    snprintf(a->descr, sizeof a->descr, "%s", dtype->valuestring);
    int nd = cJSON_GetArraySize(shape);
    if (nd > NL_ARRAY_MAXDIM) {
        nl_set_error("%s: tensor '%s' has %d dimensions", path, t->string, nd);
        return NL_EARG;
    }
    a->ndim = (size_t)nd;
    for (int i = 0; i < nd; i++) {
        const cJSON *v = cJSON_GetArrayItem(shape, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 0x1p52 ||
            v->valuedouble != (double)(size_t)v->valuedouble) {
            nl_set_error("%s: tensor '%s': shape entries must be whole numbers", path, t->string);
            return NL_EARG;
        }
        a->shape[i] = (size_t)v->valuedouble;
    }
    double b = cJSON_GetArrayItem(offs, 0)->valuedouble, e = cJSON_GetArrayItem(offs, 1)->valuedouble;
    if (!(b >= 0 && e >= b && e <= 0x1p52)) {
        nl_set_error("%s: tensor '%s': bad data_offsets", path, t->string);
        return NL_EARG;
    }
    *begin = (size_t)b;
    *end = (size_t)e;
    size_t bytes;
    int rc = nl_io_shape_count(path, a, &bytes);
    if (rc == NL_OK && *end - *begin != bytes) {
        nl_set_error("%s: tensor '%s': data_offsets span %zu bytes, its shape needs %zu", path,
                     t->string, *end - *begin, bytes);
        rc = NL_EARG;
    }
    return rc;
}

// @snippet safetensors-read
int nl_safetensors_read(const char *path, const char *tensor, nl_array *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        nl_set_error("%s: cannot open: %s", path, strerror(errno));
        return NL_EARG;
    }
    unsigned char len8[8];
    char *json = NULL;
    cJSON *root = NULL;
    int rc = NL_EARG;
    if (fread(len8, 1, 8, f) != 8) {
        nl_set_error("%s: too short to be a .safetensors file", path);
        goto done;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | len8[i];
    if (n < 2 || n > HEADER_MAX) {
        nl_set_error("%s: not a .safetensors file (header length %llu)", path,
                     (unsigned long long)n);
        goto done;
    }
    json = malloc((size_t)n + 1);
    if (!json || fread(json, 1, (size_t)n, f) != (size_t)n) {
        nl_set_error("%s: truncated inside the .safetensors header", path);
        goto done;
    }
    json[n] = '\0';
    root = cJSON_Parse(json);
    if (!cJSON_IsObject(root)) {
        nl_set_error("%s: the .safetensors header is not a JSON object", path);
        goto done;
    }
    const cJSON *t = pick(path, root, tensor);
    size_t begin, end;
    if (!t || describe(path, t, out, &begin, &end) != NL_OK)
        goto done;
    rc = nl_io_read_data(f, path, (long)(8 + n + begin), out);
done:
    cJSON_Delete(root);
    free(json);
    fclose(f);
    return rc;
}
// @end
