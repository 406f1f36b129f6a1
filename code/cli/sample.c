/* sample.c — `normlab sample --model M.bin`: text from a GPT-2 checkpoint,
 * one token at a time, each drawn from the model's softmax at a
 * temperature with a seeded Mersenne Twister (chapter 13).  A byte-level
 * model (vocabulary 256) prints bytes; a larger vocabulary prints ids. */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpt2/kernels.h"
#include "gpt2/train.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to,
"usage: normlab sample --model M.bin [--prompt TEXT] [--length N] [--temperature X]\n"
"                      [--seed N] [--threads N]\n"
"\n"
"Generates text from a GPT-2 checkpoint (llm.c's layout, or a model normlab\n"
"train or normlab convert wrote): the prompt, then N tokens, each drawn from\n"
"softmax(logits / X) of the model's last position with Python's Mersenne\n"
"Twister seeded with N.  The context is the last max_seq_len tokens.  The same\n"
"model, prompt, seed and temperature give the same text; so do two models\n"
"whose logits agree to float rounding, as a converted model and its original.\n"
"\n"
"  --model M.bin    the checkpoint\n"
"  --prompt TEXT    the text to continue, as bytes (default: a line break);\n"
"                   for a model of more than 256 tokens, the start is its last\n"
"                   token (GPT-2's end of text) and the output token ids\n"
"  --length N       tokens to generate (default 200)\n"
"  --temperature X  0 takes the most likely token each time (default 1)\n"
"  --seed N         (default 1)\n"
"  --threads N      OpenMP and BLAS threads (default: every core)\n"
"\n"
"Exit status: 0 done; 2 bad usage or a model it cannot read (named on stderr).\n");
}

static int parse_temperature(const char *v, void *dest)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !(x >= 0 && x <= 100)) {
        nl_set_error("must be a number from 0 to 100");
        return 0;
    }
    *(double *)dest = x;
    return 1;
}

static int fail(const char *what)
{
    fprintf(stderr, "normlab sample: %s\n", what);
    return 2;
}

/* The logits of the last of n tokens (the last max_seq_len of them):
 * through the training pass where the model trains, else through chapter
 * 12's forward (Pre-CRMSNorm, FlashNorm). */
static int last_logits(nl_gpt2 *m, nl_train *tr, const int *tok, size_t n, float *out)
{
    size_t ctx = (size_t)m->cfg.max_seq_len, V = (size_t)m->cfg.vocab_size;
    size_t nt = n < ctx ? n : ctx;
    const int *from = tok + n - nt;
    if (tr->m) {
        int rc = nl_train_forward(tr, from, NULL, 1, nt);
        if (rc == NL_OK)
            memcpy(out, nl_train_logits(tr, 0, nt - 1), V * sizeof *out);
        return rc;
    }
    float *all = malloc(nt * V * sizeof *all);
    if (!all)
        return NL_ENOMEM;
    int rc = nl_gpt2_logits_f(m, from, nt, all);
    if (rc == NL_OK)
        memcpy(out, all + (nt - 1) * V, V * sizeof *out);
    free(all);
    return rc;
}

int cmd_sample(int argc, char **argv)
{
    const char *model = NULL, *prompt = NULL;
    size_t length = 200, seed = 1, threads = 0;
    double temperature = 1.0;
    const nl_option opts[] = {
        {"--model", NL_OPT_TEXT, &model, 0, NULL, NULL},
        {"--prompt", NL_OPT_TEXT, &prompt, 0, NULL, NULL},
        {"--length", NL_OPT_SIZE, &length, 1u << 20, NULL, NULL},
        {"--temperature", NL_OPT_CUSTOM, &temperature, 0, parse_temperature, NULL},
        {"--seed", NL_OPT_SIZE, &seed, (size_t)1 << 62, NULL, NULL},
        {"--threads", NL_OPT_SIZE, &threads, 1024, NULL, NULL},
    };
    int code;
    if (!nl_options_parse("sample", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    if (!model)
        return nl_usage_error("sample", "--model is needed");
    omp_set_num_threads(threads ? (int)threads : omp_get_num_procs());
    nl_gpt2_gemm_threads(threads ? (int)threads : omp_get_num_procs());

    nl_gpt2 m;
    if (nl_gpt2_read(model, &m) != NL_OK)
        return fail(nl_last_error());
    size_t V = (size_t)m.cfg.vocab_size, bytes = V <= 256;
    if (prompt && !bytes) {
        nl_gpt2_free(&m);
        return nl_usage_error("sample", "--prompt is text, for a byte-level model; %s has a "
                              "vocabulary of %zu", model, V);
    }
    if (!prompt)
        prompt = "\n";
    size_t start = bytes ? strlen(prompt) : 1, n = start;
    int *tok = malloc((start + length) * sizeof *tok);
    float *logits = malloc(V * sizeof *logits);
    nl_train tr = {0};
    /* where the training pass cannot run this model, chapter 12's forward will */
    if (nl_train_init(&tr, &m, 1, (size_t)m.cfg.max_seq_len, 0) != NL_OK)
        memset(&tr, 0, sizeof tr);
    int rc = tok && logits ? NL_OK : NL_ENOMEM;
    for (size_t i = 0; rc == NL_OK && i < start; i++) {
        tok[i] = bytes ? (unsigned char)prompt[i] : (int)V - 1;
        if (tok[i] >= (int)V) {
            nl_set_error("the prompt's byte %d is beyond the model's vocabulary of %zu", tok[i], V);
            rc = NL_EARG;
        }
    }
    if (rc == NL_OK && bytes)
        fputs(prompt, stdout);
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    while (rc == NL_OK && n < start + length) {
        rc = last_logits(&m, &tr, tok, n, logits);
        if (rc == NL_OK) {
            tok[n] = nl_sample_token(logits, V, temperature, &r);
            if (bytes)
                putchar(tok[n]);
            else
                printf("%d%c", tok[n], n + 1 < start + length ? ' ' : '\n');
            n++;
        }
    }
    if (bytes && rc == NL_OK)
        putchar('\n');
    if (rc == NL_ENOMEM && !*nl_last_error())
        nl_set_error("no memory for sampling %zu tokens", length);
    nl_train_free(&tr);
    nl_gpt2_free(&m);
    free(tok);
    free(logits);
    return rc == NL_OK ? 0 : fail(nl_last_error());
}
