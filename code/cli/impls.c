/* impls.c — `normlab impls`: the registry as a table. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: normlab impls [--chapter N]\n\n"
                "Lists every registered implementation: name, norm, chapter, stated error\n"
                "bound, and whether it can run on this machine; then the bf16/fp16 kernels\n"
                "of chapter 8 with their dtype, cast order and stated distance in ulps\n"
                "from the scalar kernel of their cast order; then the fused residual add +\n"
                "norm kernels of chapter 9 (`normlab run IMPL --residual R ...` runs them);\n"
                "then the backward kernels of chapter 10.\n\n"
                "  --chapter N   only the implementations (and fused kernels) chapter N\n"
                "                explains\n");
}

int cmd_impls(int argc, char **argv)
{
    size_t chapter = 0;
    const nl_option opts[] = {{"--chapter", NL_OPT_SIZE, &chapter, 99, NULL, NULL}};
    int code;
    if (!nl_options_parse("impls", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;

    size_t n;
    const nl_impl *all = nl_impls(&n);
    printf("%-28s %-9s %3s %8s  %s\n", "implementation", "norm", "ch", "tol", "runs here?");
    for (size_t i = 0; i < n; i++) {
        if (chapter && (size_t)all[i].chapter != chapter)
            continue;
        const char *why = nl_impl_unavailable(&all[i]);
        printf("%-28s %-9s %3d %8.0e  %s\n", all[i].name, nl_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
    /* chapter 8: bf16/fp16 kernels, their own table (another signature) */
    const nl_half_impl *half = nl_half_impls(&n);
    printf("\n%-28s %-9s %-5s %-8s %4s  %s\n", "bf16/fp16 implementation", "norm", "dtype",
           "cast", "ulp", "runs here?");
    for (size_t i = 0; i < n; i++) {
        const char *why = nl_half_unavailable(&half[i]);
        printf("%-28s %-9s %-5s %-8s %4u  %s\n", half[i].name, nl_norm_name(half[i].norm),
               nl_dtype_name(half[i].dtype), nl_cast_name(half[i].cast), half[i].ulp,
               why ? why : "yes");
    }
    impls_print_fused(chapter);
    impls_print_backward();
    return 0;
}
