/* bench_select.c — which rows the options of `normlab bench` ask for:
 * the names --impl lists, the dtypes --dtype names.  Every kind of row
 * (bench_entries.c's own, bench_half.c, bench_fused.c, bench_backward.c)
 * and --show ask these two questions; they live here, below all of them,
 * so that bench_entries.c calls the kinds and no kind calls it back. */
#include <string.h>

#include "cli/bench.h"

int bench_listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && !strncmp(p, name, n))
            return 1;
        p += n + (comma != NULL);
    }
    return 0;
}

int bench_wants_dtype(const bench_options *o, int dt)
{
    return o->dtypes ? (o->dtypes >> dt) & 1 : dt == NL_DT_F32;
}
