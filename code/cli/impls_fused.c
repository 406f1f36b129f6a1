/* impls_fused.c — the fused residual add + norm registry (chapter 9,
 * code/block/registry.def) as a table, for `normlab impls` after the
 * bf16/fp16 one.  Its entries run with `normlab run IMPL --residual R`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

size_t impls_print_fused(size_t chapter)
{
    size_t n, shown = 0;
    const nl_fused_impl *all = nl_fused_impls(&n);
    int w = 28; /* the other tables' width, wider when a name needs it */
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(all[i].name) > w)
            w = (int)strlen(all[i].name);
    for (size_t i = 0; i < n; i++) {
        if (chapter && (size_t)all[i].chapter != chapter)
            continue;
        if (!shown++) {
            printf("\nfused add + norm (residual += x, then y = Norm(residual); "
                   "tol: max |y - reference|)\n");
            printf("%-*s %-13s %3s %8s  %s\n", w, "implementation", "norm", "ch", "tol",
                   "runs here?");
        }
        const char *why = nl_fused_unavailable(&all[i]);
        printf("%-*s %-13s %3d %8.0e  %s\n", w, all[i].name, nl_fused_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
    return shown;
}
