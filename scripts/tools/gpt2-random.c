/* gpt2-random.c — a random GPT-2 checkpoint in llm.c's layout (chapter
 * 12), so that `normlab logits` and `normlab convert` can be tried, and
 * tested, without downloading a model.
 *
 *   gpt2-random OUT.bin [SEED [T V L HEADS C PADDED_V]]
 *
 * defaults: seed 1, max_seq_len 8, vocab 13 (padded 16), 1 layer, 1 head,
 * 8 channels: tests/fixtures/gpt2/tiny.bin is `gpt2-random tiny.bin`.
 * Never overwrites OUT. */
#include <stdio.h>
#include <stdlib.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

static int arg(int argc, char **argv, int i, int dflt)
{
    if (argc <= i)
        return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v <= 0 || v > 1 << 20) {
        fprintf(stderr, "gpt2-random: argument %d must be a whole number in 1..%d, not '%s'\n",
                i, 1 << 20, argv[i]);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc != 2 && argc != 3 && argc != 9)) {
        fprintf(stderr, "usage: gpt2-random OUT.bin [SEED [T V L HEADS C PADDED_V]]\n");
        return 2;
    }
    uint64_t seed = (uint64_t)arg(argc, argv, 2, 1);
    nl_gpt2_config cfg = {arg(argc, argv, 3, 8), arg(argc, argv, 4, 13), arg(argc, argv, 5, 1),
                          arg(argc, argv, 6, 1), arg(argc, argv, 7, 8),  arg(argc, argv, 8, 16)};
    nl_gpt2 m;
    if (nl_gpt2_random(&m, &cfg, seed) != NL_OK || nl_gpt2_write(argv[1], &m, 0) != NL_OK) {
        fprintf(stderr, "gpt2-random: %s\n", nl_last_error());
        return 2;
    }
    nl_gpt2_free(&m);
    return 0;
}
