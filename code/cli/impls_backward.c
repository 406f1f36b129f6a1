/* impls_backward.c — the backward registry (chapter 10) as a table, for
 * `normlab impls` after the forward one. */
#include <stdio.h>

#include "commands.h"
#include "normlab.h"

void impls_print_backward(void)
{
    size_t n;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    printf("\nbackward (dx, dgamma, dbeta; tol: relative error per tensor)\n");
    printf("%-28s %-9s %3s %8s  %s\n", "implementation", "norm", "ch", "tol", "runs here?");
    for (size_t i = 0; i < n; i++) {
        const char *why = nl_bwd_impl_unavailable(&all[i]);
        printf("%-28s %-9s %3d %8.0e  %s\n", all[i].name, nl_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
}
