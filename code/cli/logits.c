/* logits.c — `normlab logits --model M.bin --tokens 1,2,3 --out L.npy`:
 * the logits of one token sequence under a GPT-2 checkpoint (llm.c's
 * layout, or a model `normlab convert` wrote), T x vocab_size float32. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpt2/gpt2.h"
#include "io/io.h"
#include "normlab.h"

enum { MAX_TOKENS = 1 << 16 };

typedef struct {
    int tok[MAX_TOKENS];
    size_t n;
} token_list;

static void usage(FILE *to)
{
    fprintf(to,
"usage: normlab logits --model M.bin --tokens T1,T2,... --out L.npy [--double] [--force]\n"
"\n"
"Runs the GPT-2 forward pass of chapter 12 over one sequence of token ids and\n"
"writes its logits, T x vocab_size float32 (the real vocabulary: llm.c's\n"
"padding rows are left out), as .npy.\n"
"\n"
"  --model   a checkpoint in llm.c's layout (magic 20240326, version 3: fp32;\n"
"            train_gpt2.py writes gpt2_124M.bin so) or a converted model from\n"
"            normlab convert (RMSNorm, Pre-CRMSNorm, FlashNorm)\n"
"  --tokens  comma-separated ids, each below vocab_size; at most max_seq_len\n"
"  --double  run the forward in double (the check of the float one); the\n"
"            logits are still written as float32\n"
"  --force   replace an existing output file (never done otherwise)\n"
"\n"
"Exit status: 0 done; 2 bad usage or bad input (named on stderr, nothing\n"
"written); 1 the forward pass failed.\n");
}

static int parse_tokens(const char *text, void *dest)
{
    token_list *l = dest;
    const char *p = text;
    for (;;) {
        if (*p < '0' || *p > '9') {
            nl_set_error("token ids are whole numbers >= 0, separated by commas");
            return 0;
        }
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || v > 0x7fffffffL) {
            nl_set_error("a token id does not fit in 32 bits");
            return 0;
        }
        if (l->n == MAX_TOKENS) {
            nl_set_error("more than %d tokens", MAX_TOKENS);
            return 0;
        }
        l->tok[l->n++] = (int)v;
        if (*end == '\0')
            return 1;
        if (*end != ',') {
            nl_set_error("token ids are whole numbers >= 0, separated by commas");
            return 0;
        }
        p = end + 1;
    }
}

static int fail(const char *what)
{
    fprintf(stderr, "normlab logits: %s\n", what);
    return 2;
}

int cmd_logits(int argc, char **argv)
{
    static token_list tokens;
    tokens.n = 0;
    const char *model_path = NULL, *out = NULL;
    int use_double = 0, force = 0;
    const nl_option opts[] = {
        {"--model", NL_OPT_TEXT, &model_path, 0, NULL, NULL},
        {"--tokens", NL_OPT_CUSTOM, &tokens, 0, parse_tokens, NULL},
        {"--out", NL_OPT_TEXT, &out, 0, NULL, NULL},
        {"--double", NL_OPT_FLAG, &use_double, 0, NULL, NULL},
        {"--force", NL_OPT_FLAG, &force, 0, NULL, NULL},
    };
    int code;
    if (!nl_options_parse("logits", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    if (!model_path || !tokens.n || !out)
        return nl_usage_error("logits", "--model, --tokens and --out are all needed");
    if (nl_output_check(out, force) != NL_OK)
        return fail(nl_last_error());

    nl_gpt2 m, md;
    if (nl_gpt2_read(model_path, &m) != NL_OK)
        return fail(nl_last_error());
    size_t V = (size_t)m.cfg.vocab_size, T = tokens.n;
    float *y = malloc(T * V * sizeof *y);
    double *yd = use_double ? malloc(T * V * sizeof *yd) : NULL;
    int rc = !y || (use_double && !yd) ? NL_ENOMEM : NL_OK;
    if (rc == NL_OK && use_double) {
        rc = nl_gpt2_to_double(&m, &md);
        if (rc == NL_OK) {
            rc = nl_gpt2_logits_d(&md, tokens.tok, T, yd);
            nl_gpt2_free(&md);
        }
        for (size_t k = 0; rc == NL_OK && k < T * V; k++)
            y[k] = (float)yd[k];
    } else if (rc == NL_OK) {
        rc = nl_gpt2_logits_f(&m, tokens.tok, T, y);
    }
    nl_gpt2_free(&m);
    free(yd);
    if (rc == NL_ENOMEM && !*nl_last_error())
        nl_set_error("no memory for %zu x %zu logits", T, V);
    if (rc != NL_OK) {
        free(y);
        char why[512];
        snprintf(why, sizeof why, "%s: %s", model_path, nl_last_error());
        return fail(why);
    }
    nl_array a = {.elem = NL_ELEM_F32, .ndim = 2, .shape = {T, V}, .data = y};
    rc = nl_npy_write(out, &a, 0, force);
    free(y);
    return rc == NL_OK ? 0 : fail(nl_last_error());
}
