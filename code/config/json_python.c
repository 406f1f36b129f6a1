/* json_python.c — Python's json module writes float('nan') as NaN and the
 * infinities as Infinity and -Infinity.  Those are not JSON, and cJSON
 * rejects them, so a config.json with one of them (anywhere, even in a key
 * we never read) would not parse at all.  This pre-pass rewrites them,
 * outside strings only, into JSON that cJSON reads:
 *
 *   Infinity   ->  1e999     strtod overflows it to +inf
 *   -Infinity  -> -1e999     and to -inf
 *   NaN        ->  a string marker (JSON has no number that reads as NaN);
 *                  nl_json_number() turns the marker back into NaN.
 *
 * Everything else is copied byte for byte, so line numbers in cJSON's error
 * position stay right. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static int starts_with(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

// @snippet json-python-prepass
char *nl_json_from_python(const char *text, size_t len, size_t *out_len)
{
    static const char nan_json[] = "\"\\u001bnormlab:NaN\"";
    /* Worst case: every 3-byte NaN grows to the marker's length. */
    size_t cap = len / 3 * (sizeof nan_json - 1) + len + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *p = text, *end = text + len;
    char *o = out;
    int in_string = 0;
    while (p < end) {
        char ch = *p;
        if (in_string) {
            /* A backslash escapes the next byte, so \" does not end it. */
            if (ch == '\\' && p + 1 < end) {
                *o++ = *p++;
            } else if (ch == '"') {
                in_string = 0;
            }
            *o++ = *p++;
            continue;
        }
        if (ch == '"') {
            in_string = 1;
        } else if (starts_with(p, end, "NaN")) {
            memcpy(o, nan_json, sizeof nan_json - 1);
            o += sizeof nan_json - 1;
            p += 3;
            continue;
        } else if (starts_with(p, end, "-Infinity")) {
            memcpy(o, "-1e999", 6);
            o += 6;
            p += 9;
            continue;
        } else if (starts_with(p, end, "Infinity")) {
            memcpy(o, "1e999", 5);
            o += 5;
            p += 8;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    if (out_len)
        *out_len = (size_t)(o - out);
    return out;
}
// @end

int nl_json_number(const cJSON *item, double *out)
{
    if (cJSON_IsNumber(item)) {
        *out = item->valuedouble;
        return 1;
    }
    if (cJSON_IsString(item) && item->valuestring &&
        strcmp(item->valuestring, NL_JSON_NAN_MARKER) == 0) {
        *out = NAN;
        return 1;
    }
    return 0;
}

const char *nl_json_kind(const cJSON *item)
{
    if (!item)
        return "missing";
    double v;
    /* The pre-pass turned NaN into a marker string: name what was written. */
    if (cJSON_IsString(item) && nl_json_number(item, &v))
        return "NaN";
    if (cJSON_IsString(item))
        return "a string";
    if (cJSON_IsNumber(item))
        return "a number";
    if (cJSON_IsBool(item))
        return "a boolean";
    if (cJSON_IsNull(item))
        return "null";
    if (cJSON_IsArray(item))
        return "an array";
    if (cJSON_IsObject(item))
        return "an object";
    return "not a JSON value";
}
