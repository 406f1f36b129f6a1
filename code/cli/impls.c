/* impls.c — `normlab impls`: the registry as a table. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

int cmd_impls(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            printf("usage: normlab impls\n\nLists every registered implementation: name, norm, "
                   "chapter, stated error bound, and whether it can run on this machine.\n");
            return 0;
        }
        return nl_unknown_option("impls", argv[1]);
    }
    size_t n;
    const nl_impl *all = nl_impls(&n);
    printf("%-28s %-9s %3s %8s  %s\n", "implementation", "norm", "ch", "tol", "runs here?");
    for (size_t i = 0; i < n; i++) {
        const char *why = nl_impl_unavailable(&all[i]);
        printf("%-28s %-9s %3d %8.0e  %s\n", all[i].name, nl_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
    impls_print_backward();
    return 0;
}
