/* block-depth.c — the data of chapter 9's depth figure: the residual
 * stream's rms and the share of the input that survives (mean cosine with
 * h_0), block by block, for pre-norm, post-norm and DeepNorm.
 *
 *   block-depth [LAYERS [D [TOKENS]]]     defaults 64 128 16
 *
 * Prints one line per block: layer, then rms and cos for each arrangement
 * (a gnuplot data file; scripts/book/plot-depth.gp draws it). */
#include <stdio.h>
#include <stdlib.h>

#include "normlab.h"

static size_t arg(int argc, char **argv, int i, size_t dflt)
{
    if (argc <= i)
        return dflt;
    char *end;
    unsigned long v = strtoul(argv[i], &end, 10);
    if (*end || v == 0 || v > 4096) {
        fprintf(stderr, "block-depth: argument %d must be an integer in 1..4096, not '%s'\n", i,
                argv[i]);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    size_t layers = arg(argc, argv, 1, 64), d = arg(argc, argv, 2, 128),
           tokens = arg(argc, argv, 3, 16);
    enum { NARCH = 3 };
    nl_depth_point *p[NARCH];
    double final[NARCH];
    for (int a = 0; a < NARCH; a++) {
        p[a] = calloc(layers + 1, sizeof *p[a]);
        if (!p[a] || nl_depth_run((nl_block_arch)a, tokens, d, layers, 1, p[a], &final[a]) != NL_OK) {
            fprintf(stderr, "block-depth: %s\n", p[a] ? nl_last_error() : "out of memory");
            return 1;
        }
    }
    printf("# layer  pre_rms post_rms deep_rms  pre_cos post_cos deep_cos   (d = %zu, %zu tokens;"
           " after the final norm: pre %.4f)\n", d, tokens, final[0]);
    for (size_t l = 0; l <= layers; l++)
        printf("%zu %.6f %.6f %.6f %.6f %.6f %.6f\n", l, p[0][l].rms, p[1][l].rms, p[2][l].rms,
               p[0][l].cos_input, p[1][l].cos_input, p[2][l].cos_input);
    for (int a = 0; a < NARCH; a++)
        free(p[a]);
    return 0;
}
