/* gpt2-equiv.c — chapter 12's experiment: how closely each converted
 * model reproduces the LayerNorm GPT-2 it came from, what each left-out
 * step costs, and what bf16 storage does to "exact".
 *
 *   gpt2-equiv [numbers] `key value` lines for the book ({{key}} in prose)
 *   gpt2-equiv figure    the same errors as a gnuplot file: each variant in
 *                        float and double, then each left-out step
 *
 * The model is random (nl_gpt2_random, seed 12) in llm.c's layout: 4
 * layers, 4 heads, 64 channels, 64 positions, a vocabulary of 500 padded
 * to 512.  Errors are max |logit - reference| / max |reference| over the
 * sequence, the reference being the original model's double forward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

static const nl_gpt2_config cfg = {64, 500, 4, 4, 64, 512};
enum { T = 64 };

static void die(const char *what)
{
    fprintf(stderr, "gpt2-equiv: %s: %s\n", what, nl_last_error());
    exit(1);
}

static const char *names[4] = {"rms", "crms", "flash", "crmsflash"};

static nl_gpt2_convert_opts variant(int v)
{
    nl_gpt2_convert_opts o = nl_gpt2_convert_default();
    o.norm = (v & 1) ? NL_GPT2_CRMSNORM : NL_GPT2_RMSNORM;
    o.deferred = v >> 1;
    return o;
}

static void logits_d(const nl_gpt2 *m, const int *tok, size_t n, double *y)
{
    if (nl_gpt2_logits_d(m, tok, n, y) != NL_OK)
        die("double forward");
}

static void logits_f(const nl_gpt2 *m, const int *tok, size_t n, double *y)
{
    static float yf[T * 500];
    if (nl_gpt2_logits_f(m, tok, n, yf) != NL_OK)
        die("float forward");
    for (size_t k = 0; k < n * (size_t)cfg.vocab_size; k++)
        y[k] = yf[k];
}

/* A copy of double model m with every parameter rounded to bf16. */
static void bf16_copy(const nl_gpt2 *m, nl_gpt2 *out)
{
    if (nl_gpt2_to_double(m, out) != NL_OK)
        die("copy");
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        double *p = out->t[i];
        for (size_t k = 0; k < out->count[i]; k++)
            p[k] = nl_half_to_float(NL_DT_BF16, nl_half_from_float(NL_DT_BF16, (float)p[k]));
    }
}

int main(int argc, char **argv)
{
    int figure = argc > 1 && !strcmp(argv[1], "figure");
    if (argc > 2 || (argc == 2 && !figure && strcmp(argv[1], "numbers"))) {
        fprintf(stderr, "usage: gpt2-equiv [numbers|figure]\n");
        return 2;
    }
    nl_gpt2 f, d, conv[4], convf[4];
    if (nl_gpt2_random(&f, &cfg, 12) != NL_OK || nl_gpt2_to_double(&f, &d) != NL_OK)
        die("random model");
    for (int v = 0; v < 4; v++) {
        nl_gpt2_convert_opts o = variant(v);
        if (nl_gpt2_convert(&d, &o, &conv[v]) != NL_OK || nl_gpt2_to_float(&conv[v], &convf[v]))
            die("convert");
    }
    int tok[T];
    nl_pyrandom r;
    nl_pyrandom_seed(&r, 2026);
    for (int t = 0; t < T; t++)
        tok[t] = (int)(nl_pyrandom_random(&r) * cfg.vocab_size);
    size_t n = (size_t)T * (size_t)cfg.vocab_size;
    double *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);

    if (figure) {
        /* two blocks (gnuplot index 0 and 1): each variant's error in
         * float and in double; then the damage of each step left out */
        static const char *labels[4] = {"RMSNorm", "CRMSNorm", "FlashNorm", "CRMS+Flash"};
        logits_d(&d, tok, T, want);
        logits_f(&f, tok, T, got);
        printf("# model  float  double  (vs the original in double)\n");
        printf("\"original (LN)\" %.4g NaN\n", nl_gpt2_rel_error(got, want, n));
        for (int v = 0; v < 4; v++) {
            logits_f(&convf[v], tok, T, got);
            double ef = nl_gpt2_rel_error(got, want, n);
            logits_d(&conv[v], tok, T, got);
            printf("\"%s\" %.4g %.4g\n", labels[v], ef, nl_gpt2_rel_error(got, want, n));
        }
        printf("\n\n# step left out  error (double)\n");
    } else {
        printf("equiv.layers %d\nequiv.heads %d\nequiv.channels %d\nequiv.vocab %d\n"
               "equiv.padded %d\nequiv.T %d\n", cfg.num_layers, cfg.num_heads, cfg.channels,
               cfg.vocab_size, cfg.padded_vocab_size, T);
        logits_d(&d, tok, T, want);
        logits_f(&f, tok, T, got);
        printf("equiv.orig.float %.2g\n", nl_gpt2_rel_error(got, want, n));
    }
    for (int v = 0; v < 4 && !figure; v++) {
        logits_d(&conv[v], tok, T, got);
        printf("equiv.%s.double %.2g\n", names[v], nl_gpt2_rel_error(got, want, n));
        logits_f(&convf[v], tok, T, got);
        printf("equiv.%s.float %.2g\n", names[v], nl_gpt2_rel_error(got, want, n));
    }

    /* one step left out, in double: all of the error is the step's */
    const struct {
        const char *key, *label;
        int centre_off, no_beta, no_untie;
    } left[] = {
        {"tied", "head tied", 0, 0, 1},
        {"beta", "beta not folded", 0, 1, 0},
        {"wte", "wte", NL_CENTRE_WTE, 0, 0},
        {"wpe", "wpe", NL_CENTRE_WPE, 0, 0},
        {"attprojw", "attn W", NL_CENTRE_ATTPROJW, 0, 0},
        {"attprojb", "attn b", NL_CENTRE_ATTPROJB, 0, 0},
        {"fcprojw", "MLP W", NL_CENTRE_FCPROJW, 0, 0},
        {"fcprojb", "MLP b", NL_CENTRE_FCPROJB, 0, 0},
    };
    for (size_t k = 0; k < sizeof left / sizeof left[0]; k++) {
        nl_gpt2_convert_opts o = nl_gpt2_convert_default();
        o.centre &= ~left[k].centre_off;
        o.fold_beta = !left[k].no_beta;
        o.untie = !left[k].no_untie;
        nl_gpt2 c;
        if (nl_gpt2_convert(&d, &o, &c) != NL_OK)
            die("convert");
        logits_d(&c, tok, T, got);
        if (figure)
            printf("\"%s\" %.4g\n", left[k].label, nl_gpt2_rel_error(got, want, n));
        else
            printf("equiv.left.%s %.2g\n", left[k].key, nl_gpt2_rel_error(got, want, n));
        nl_gpt2_free(&c);
    }

    if (figure)
        return 0;

    /* bf16 storage: both models rounded to bf16, run in double so that
     * only the storage rounds */
    nl_gpt2 ob, cb;
    bf16_copy(&d, &ob);
    bf16_copy(&conv[0], &cb);
    double *ref_b = malloc(n * sizeof *ref_b);
    logits_d(&ob, tok, T, ref_b);
    printf("equiv.bf16.orig %.2g\n", nl_gpt2_rel_error(ref_b, want, n));
    logits_d(&cb, tok, T, got);
    printf("equiv.bf16.conv %.2g\n", nl_gpt2_rel_error(got, want, n));
    printf("equiv.bf16.between %.2g\n", nl_gpt2_rel_error(got, ref_b, n));

    /* mean invariance: add 0.1 to every coordinate of every position
     * embedding (wpe, which no head shares).  Every LayerNorm removes it,
     * so the original's logits do not move; an RMSNorm model, the
     * converted one included, has no mean to remove and its logits move. */
    nl_gpt2 ln_shift, rms_shift;
    if (nl_gpt2_to_double(&d, &ln_shift) != NL_OK || nl_gpt2_to_double(&conv[0], &rms_shift))
        die("copy");
    for (size_t k = 0; k < ln_shift.count[NL_T_WPE]; k++) {
        ((double *)ln_shift.t[NL_T_WPE])[k] += 0.1;
        ((double *)rms_shift.t[NL_T_WPE])[k] += 0.1;
    }
    logits_d(&d, tok, T, want);
    logits_d(&ln_shift, tok, T, got);
    printf("equiv.shift.layernorm %.2g\n", nl_gpt2_rel_error(got, want, n));
    logits_d(&conv[0], tok, T, want);
    logits_d(&rms_shift, tok, T, got);
    printf("equiv.shift.rmsnorm %.2g\n", nl_gpt2_rel_error(got, want, n));
    return 0;
}
