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
                "                explains, in every table (1 to 13)\n");
}

/* The chapters of the course (chapters/01-*.md to 13-*.md); check_options
 * compares this with the chapter files, so that it cannot go stale. */
enum { LAST_CHAPTER = 13 };

/* The f32 registry's rows of `chapter` (0: all); how many were printed. */
static size_t print_f32(size_t chapter)
{
    size_t n, shown = 0;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n; i++) {
        if (chapter && (size_t)all[i].chapter != chapter)
            continue;
        if (!shown++)
            printf("%-28s %-9s %3s %8s  %s\n", "implementation", "norm", "ch", "tol", "runs here?");
        const char *why = nl_impl_unavailable(&all[i]);
        printf("%-28s %-9s %3d %8.0e  %s\n", all[i].name, nl_norm_name(all[i].norm),
               all[i].chapter, all[i].tol, why ? why : "yes");
    }
    return shown;
}

/* chapter 8: bf16/fp16 kernels, their own table (another signature) */
static size_t print_half(size_t chapter, size_t before)
{
    size_t n, shown = 0;
    const nl_half_impl *half = nl_half_impls(&n);
    for (size_t i = 0; i < n; i++) {
        if (chapter && (size_t)half[i].chapter != chapter)
            continue;
        if (!shown++)
            printf("%s%-28s %-9s %-5s %-8s %4s  %s\n", before ? "\n" : "",
                   "bf16/fp16 implementation", "norm", "dtype", "cast", "ulp", "runs here?");
        const char *why = nl_half_unavailable(&half[i]);
        printf("%-28s %-9s %-5s %-8s %4u  %s\n", half[i].name, nl_norm_name(half[i].norm),
               nl_dtype_name(half[i].dtype), nl_cast_name(half[i].cast), half[i].ulp,
               why ? why : "yes");
    }
    return shown;
}

int cmd_impls(int argc, char **argv)
{
    size_t chapter = 0;
    const nl_option opts[] = {{"--chapter", NL_OPT_SIZE, &chapter, 99, NULL, NULL}};
    int code;
    if (!nl_options_parse("impls", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    if (chapter > LAST_CHAPTER)
        return nl_usage_error("impls", "--chapter %zu: the course has chapters 1 to %d", chapter,
                              LAST_CHAPTER);
    size_t shown = print_f32(chapter);
    shown += print_half(chapter, shown);
    shown += impls_print_fused(chapter);
    shown += impls_print_backward(chapter);
    if (!shown)
        printf("chapter %zu registers no implementation: its code is not a kernel (normlab impls "
               "lists every chapter's)\n", chapter);
    return 0;
}
