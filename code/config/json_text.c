/* json_text.c — the checks made on the bytes before cJSON sees them.
 *
 * cJSON accepts some things a config.json must not be, and refuses others
 * with a bare position.  One pass over the text names each case:
 *
 *   - UTF-16 or UTF-32 (an editor's "Unicode" save): transformers opens a
 *     config as UTF-8, so does this reader, and says so;
 *   - bytes that are not UTF-8, with their line;
 *   - \u0000 inside a string: cJSON would cut the key or value at the NUL
 *     and read "model_type\u0000x" as "model_type"; refused instead;
 *   - a NaN or Infinity where a key belongs ({NaN: 1}): Python refuses it;
 *   - nesting deeper than a config ever goes, and more values than a
 *     config ever has.  cJSON builds a node of about 64 bytes per value, so
 *     a 64 MiB file of "1," would need gigabytes; the limit bounds memory
 *     by what the file holds, not only by its size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static int starts_with(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* Length of the UTF-8 sequence at p (1-4), or 0 if it is not one. */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char b = p[0];
    size_t n;
    unsigned min;
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        n = 2, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF)
        n = 3, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    unsigned cp = b & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    /* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
    if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return n;
}

static int encoding_is_utf8(const unsigned char *t, size_t len)
{
    if (len >= 4 && (!memcmp(t, "\xFF\xFE\0\0", 4) || !memcmp(t, "\0\0\xFE\xFF", 4))) {
        nl_set_error("UTF-32 text (byte-order mark %02X %02X %02X %02X): save the file as UTF-8, "
                     "as transformers reads it", t[0], t[1], t[2], t[3]);
        return 0;
    }
    if (len >= 2 && (!memcmp(t, "\xFF\xFE", 2) || !memcmp(t, "\xFE\xFF", 2))) {
        nl_set_error("UTF-16 text (byte-order mark %02X %02X): save the file as UTF-8, "
                     "as transformers reads it", t[0], t[1]);
        return 0;
    }
    /* '{' followed or preceded by a NUL byte: UTF-16 without a mark. */
    if (len >= 2 && ((t[0] == '{' && t[1] == 0) || (t[0] == 0 && t[1] == '{'))) {
        nl_set_error("UTF-16 text (no byte-order mark; NUL bytes between the characters): "
                     "save the file as UTF-8, as transformers reads it");
        return 0;
    }
    return 1;
}

int nl_json_check_text(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    if (!encoding_is_utf8(p, len))
        return -1;

    char stack[NL_JSON_MAX_DEPTH];   /* '{' or '[' for each open container */
    size_t depth = 0, values = 1, line = 1;
    int in_string = 0, want_key = 0;
    while (p < end) {
        unsigned char ch = *p;
        if (ch == '\n')
            line++;
        if (ch == 0) {
            nl_set_error("a NUL byte at line %zu: not UTF-8 text (a UTF-16 file, or a binary one?)", line);
            return -1;
        }
        if (ch >= 0x80) {
            size_t n = utf8_length(p, end);
            if (n == 0) {
                nl_set_error("not UTF-8: byte 0x%02X at line %zu (transformers opens config.json "
                             "as UTF-8 and would refuse it too)", ch, line);
                return -1;
            }
            p += n;
            continue;
        }
        if (in_string) {
            if (ch == '\\' && p + 1 < end) {
                if (p[1] == 'u' && starts_with((const char *)p + 2, (const char *)end, "0000")) {
                    nl_set_error("\\u0000 (a NUL character) in a string at line %zu: refused, "
                                 "since the key or value would be cut there", line);
                    return -1;
                }
                p += 2;
                continue;
            }
            if (ch == '"')
                in_string = 0;
            p++;
            continue;
        }
        if (want_key && ch != '"' && ch != '}' && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') {
            const char *s = (const char *)p;
            if (starts_with(s, (const char *)end, "NaN") || starts_with(s, (const char *)end, "Infinity") ||
                starts_with(s, (const char *)end, "-Infinity")) {
                nl_set_error("a key at line %zu is %.*s, not a string: JSON keys are quoted "
                             "(Python's json refuses this too)", line, *s == 'N' ? 3 : *s == 'I' ? 8 : 9, s);
                return -1;
            }
            want_key = 0;   /* something else: cJSON names the syntax error */
        }
        switch (ch) {
        case '"':
            in_string = 1;
            want_key = 0;
            break;
        case '{':
        case '[':
            if (depth == NL_JSON_MAX_DEPTH) {
                nl_set_error("nested deeper than %d levels at line %zu (a config.json nests a few)",
                             NL_JSON_MAX_DEPTH, line);
                return -1;
            }
            stack[depth++] = (char)ch;
            want_key = ch == '{';
            break;
        case '}':
        case ']':
            if (depth > 0)
                depth--;
            want_key = 0;
            break;
        case ',':
            if (++values > NL_JSON_MAX_VALUES) {
                nl_set_error("more than %d values (at line %zu): a config.json has a few hundred; "
                             "refused so that memory stays bounded", NL_JSON_MAX_VALUES, line);
                return -1;
            }
            want_key = depth > 0 && stack[depth - 1] == '{';
            break;
        default:
            break;
        }
        p++;
    }
    return 0;
}

char *nl_utf8_escape(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    char *out = malloc(4 * (size_t)(end - p) + 1), *o = out;   /* each byte at most "\xNN" */
    if (!out)
        return NULL;
    while (p < end) {
        size_t n = utf8_length(p, end);
        if (n == 0) {
            o += sprintf(o, "\\x%02X", *p);
            p++;
            continue;
        }
        memcpy(o, p, n);
        o += n;
        p += n;
    }
    *o = '\0';
    return out;
}
