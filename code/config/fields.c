/* fields.c — reading sizes and switches out of a parsed config, with
 * messages that name the key and say what was wrong with it.  Sizes must be
 * positive whole numbers: a float that happens to be whole (4096.0) is
 * accepted, since Python writes what it was given. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config_internal.h"

int nl_json_size(const cJSON *obj, const char *const *names, const char *prefix,
                 size_t *out, char *key, size_t keylen)
{
    for (size_t i = 0; names[i]; i++) {
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, names[i]);
        /* Python's None: the field is declared but not set. */
        if (!item || cJSON_IsNull(item))
            continue;
        char buf[128];
        if (!key) {
            key = buf;
            keylen = sizeof buf;
        }
        snprintf(key, keylen, "%s%s", prefix, names[i]);
        double v;
        if (!nl_json_number(item, &v)) {
            nl_set_error("key '%s' is %s, expected a positive whole number", key, nl_json_kind(item));
            return -1;
        }
        if (!(v >= 1.0) || v != floor(v) || isinf(v)) {
            nl_set_error("key '%s' is %g, expected a positive whole number", key, v);
            return -1;
        }
        /* 2^24 is far past any real width, depth or vocabulary, and keeps
         * every product of two sizes exact in size_t. */
        if (v > NL_CONFIG_SIZE_LIMIT) {
            nl_set_error("key '%s' is %g, larger than any model uses (limit %.0f)", key, v,
                         (double)NL_CONFIG_SIZE_LIMIT);
            return -1;
        }
        *out = (size_t)v;
        return 1;
    }
    return 0;
}

int nl_json_flag(const cJSON *obj, const char *name, int fallback)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (cJSON_IsBool(item))
        return cJSON_IsTrue(item);
    return fallback;
}
