/* impls_backward.c — the backward registry (chapter 10) as a table, for
 * `normlab impls` after the forward one. */
#include <stdio.h>

#include "commands.h"
#include "normlab.h"

size_t impls_print_backward(size_t chapter)
{
    size_t n, shown = 0;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    for (size_t i = 0; i < n; i++) {
        if (chapter && (size_t)all[i].chapter != chapter)
            continue;
        if (!shown++) {
            printf("\nbackward (dx, dgamma, dbeta; tol: relative error per tensor)\n");
            printf("%-28s %-9s %3s %8s  %s\n", "implementation", "norm", "ch", "tol", "runs here?");
        }
        const char *why = nl_bwd_impl_unavailable(&all[i]);
        printf("%-28s %-9s %3d %8.0e  %s\n", all[i].name, nl_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
    return shown;
}
