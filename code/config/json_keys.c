/* json_keys.c — a key written twice means its last value.  Python's json
 * builds a dict and each assignment replaces the one before, so
 * {"model_type": "gpt2", ..., "model_type": "llama"} is a Llama config to
 * transformers.  cJSON keeps both and its lookups find the first; this pass
 * removes every occurrence but the last, in every object of the tree. */
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

typedef struct {
    const char *key;
    size_t      order;
    cJSON      *item;
} entry;

static int by_key_then_order(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorting keeps this n log n: an object may hold many keys (the text
 * check caps the total, not one object's share). */
static long drop_earlier(cJSON *obj, char **first_dup)
{
    size_t n = 0;
    for (cJSON *it = obj->child; it; it = it->next)
        n++;
    if (n < 2)
        return 0;
    entry *e = malloc(n * sizeof *e);
    if (!e)
        return -1;
    size_t i = 0;
    for (cJSON *it = obj->child; it; it = it->next, i++)
        e[i] = (entry){it->string ? it->string : "", i, it};
    qsort(e, n, sizeof *e, by_key_then_order);
    long dropped = 0;
    for (i = 0; i + 1 < n; i++) {
        if (strcmp(e[i].key, e[i + 1].key) != 0)
            continue;
        if (first_dup && !*first_dup)
            *first_dup = strdup(e[i].key);
        cJSON_Delete(cJSON_DetachItemViaPointer(obj, e[i].item));
        dropped++;
    }
    free(e);
    return dropped;
}

long nl_json_last_wins(cJSON *item, char **first_dup)
{
    long total = 0;
    for (cJSON *it = item->child; it; it = it->next) {
        long r = nl_json_last_wins(it, first_dup);
        if (r < 0)
            return -1;
        total += r;
    }
    if (cJSON_IsObject(item)) {
        long r = drop_earlier(item, first_dup);
        if (r < 0)
            return -1;
        total += r;
    }
    return total;
}
