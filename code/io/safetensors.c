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

/* ------------------------------------------- the header, without a tree
 *
 * cJSON would build the whole header as a tree: a header at the format's
 * 100 MB limit took 4.2 GB and 16 s to reject. We walk the top-level object
 * in place instead, keeping only where each name is (8 bytes a tensor), and
 * hand cJSON just the one tensor's entry, a few dozen bytes. */

typedef struct {
    uint32_t at, len; /* a tensor's name: json + at, len bytes (escapes decoded) */
} name_ref;

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past the JSON string at p ('"'), or NULL. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '"')
            return p + 1;
        if (*p == '\\')
            p++;
        else if ((unsigned char)*p < 0x20)
            return NULL;
    }
    return NULL;
}

/* Past the JSON value at p, or NULL: strings and brackets are matched, the
 * inside is checked only for the entry that is read (by cJSON). */
static const char *skip_value(const char *p, const char *end)
{
    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string(p, end);
    if (*p != '{' && *p != '[') {
        const char *q = p;
        while (q < end && (strchr("+-.eE", *q) || (*q >= '0' && *q <= '9') ||
                           (*q >= 'a' && *q <= 'z')))
            q++;
        return q > p ? q : NULL;
    }
    size_t depth = 0;
    while (p < end) {
        if (*p == '"') {
            if (!(p = skip_string(p, end)))
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[')
            depth++;
        else if ((*p == '}' || *p == ']') && --depth == 0)
            return p + 1;
        p++;
    }
    return NULL;
}

/* The name at p ('"') decoded into place (a JSON escape is never shorter
 * than what it stands for); 0 when it is not a valid string. */
static int read_name(char *json, const char *end, char **p, name_ref *ref)
{
    char *s = *p;
    const char *q = skip_string(s, end);
    if (!q || q - s - 2 > (long)UINT32_MAX)
        return 0;
    size_t len = (size_t)(q - s) - 2;
    if (memchr(s + 1, '\\', len)) {
        cJSON *str = cJSON_ParseWithLength(s, len + 2);
        if (!cJSON_IsString(str)) {
            cJSON_Delete(str);
            return 0;
        }
        len = strlen(str->valuestring);
        memcpy(s + 1, str->valuestring, len);
        cJSON_Delete(str);
    }
    ref->at = (uint32_t)(s + 1 - json);
    ref->len = (uint32_t)len;
    *p = (char *)q;
    return 1;
}

static const char *json_base; /* for the qsort comparison below */
static int by_name(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(json_base + x->at, json_base + y->at, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int is_name(const char *json, name_ref r, const char *want)
{
    return strlen(want) == r.len && !memcmp(json + r.at, want, r.len);
}

/* The entry of the tensor asked for (or of the only one) as a cJSON
 * object, whose ->string is its name; NULL after a message. Every name is
 * read, so that a duplicate is refused rather than picked: the format's
 * README (huggingface/safetensors, "Notes" under the format) says
 * "Duplicate keys are disallowed. Not all parsers may respect this." */
static cJSON *pick(const char *path, char *json, size_t n, const char *tensor)
{
    const char *end = json + n;
    char *p = (char *)skip_space(json, end);
    if (p >= end || *p != '{') {
        nl_set_error("%s: the .safetensors header is not a JSON object", path);
        return NULL;
    }
    name_ref *names = NULL, want = {0, 0};
    const char *want_value = NULL, *want_end = NULL;
    size_t count = 0, cap = 0;
    cJSON *found = NULL;
    p = (char *)skip_space(p + 1, end);
    while (p < end && *p != '}') {
        name_ref r;
        if (*p != '"' || !read_name(json, end, &p, &r))
            goto malformed;
        p = (char *)skip_space(p, end);
        if (p >= end || *p++ != ':')
            goto malformed;
        p = (char *)skip_space(p, end);
        const char *v = p;
        if (!(p = (char *)skip_value(p, end)))
            goto malformed;
        if (!is_name(json, r, "__metadata__")) {
            if (*v != '{') {
                nl_set_error("%s: tensor '%.*s' is not a JSON object", path, (int)r.len, json + r.at);
                goto fail;
            }
            if (count == cap) {
                cap = cap ? cap * 2 : 16;
                name_ref *more = realloc(names, cap * sizeof *names);
                if (!more) {
                    nl_set_error("%s: no memory for the tensor names", path);
                    goto fail;
                }
                names = more;
            }
            names[count++] = r;
            if (tensor ? is_name(json, r, tensor) : count == 1)
                want = r, want_value = v, want_end = p;
        }
        p = (char *)skip_space(p, end);
        if (p < end && *p == ',')
            p = (char *)skip_space(p + 1, end);
        else if (p >= end || *p != '}')
            goto malformed;
    }
    if (p >= end)
        goto malformed;
    json_base = json;
    if (count > 1)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 1; i < count; i++)
        if (!by_name(&names[i - 1], &names[i])) {
            nl_set_error("%s: tensor '%.*s' is named twice in the header (the format forbids "
                         "duplicate names)", path, (int)names[i].len, json + names[i].at);
            goto fail;
        }
    if (want_value && (tensor || count == 1)) {
        found = cJSON_ParseWithLength(want_value, (size_t)(want_end - want_value));
        if (!cJSON_IsObject(found)) {
            nl_set_error("%s: tensor '%.*s': its entry is not valid JSON", path, (int)want.len,
                         json + want.at);
            cJSON_Delete(found);
            found = NULL;
            goto fail;
        }
        found->string = malloc(want.len + 1);
        if (!found->string) {
            nl_set_error("%s: no memory", path);
            cJSON_Delete(found);
            found = NULL;
            goto fail;
        }
        memcpy(found->string, json + want.at, want.len);
        found->string[want.len] = '\0';
        free(names);
        return found;
    }
    char list[256] = "";
    for (size_t i = 0, used = 0; i < count && used < sizeof list - 1; i++, used = strlen(list))
        snprintf(list + used, sizeof list - used, "%s%.*s", used ? ", " : "", (int)names[i].len,
                 json + names[i].at);
    if (tensor)
        nl_set_error("%s: no tensor '%s' (the file has: %s)", path, tensor, count ? list : "none");
    else
        nl_set_error("%s holds %zu tensors (%s): name one as %s:TENSOR", path, count,
                     count ? list : "none", path);
    goto fail;
malformed:
    nl_set_error("%s: the .safetensors header is not valid JSON (near byte %ld)", path,
                 p ? (long)(p - json) : -1L);
fail:
    free(names);
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
    const cJSON *ob = cJSON_GetArrayItem(offs, 0), *oe = cJSON_GetArrayItem(offs, 1);
    if (!cJSON_IsNumber(ob) || !cJSON_IsNumber(oe)) {
        nl_set_error("%s: tensor '%s': data_offsets must be two numbers", path, t->string);
        return NL_EARG;
    }
    double b = ob->valuedouble, e = oe->valuedouble;
    if (!(b >= 0 && e >= b && e <= 0x1p52) || b != (double)(size_t)b || e != (double)(size_t)e) {
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
    /* a header longer than the file is refused before it is allocated */
    if (fseek(f, 0, SEEK_END) != 0) {
        nl_set_error("%s: cannot seek (a pipe?): %s; save the tensors to a file", path,
                     strerror(errno));
        goto done;
    }
    long size = ftell(f);
    if (size >= 0 && (uint64_t)size - 8 < n) {
        nl_set_error("%s: truncated: the header claims %llu bytes, the file has %ld after "
                     "its length", path, (unsigned long long)n, size - 8);
        goto done;
    }
    json = malloc((size_t)n + 1);
    if (!json || fseek(f, 8, SEEK_SET) != 0 || fread(json, 1, (size_t)n, f) != (size_t)n) {
        nl_set_error("%s: truncated inside the .safetensors header", path);
        goto done;
    }
    json[n] = '\0';
    cJSON *t = root = pick(path, json, (size_t)n, tensor);
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
