/* check_gpt2_convert.c — chapter 12: a LayerNorm GPT-2 converted into an
 * RMSNorm model gives the same logits, on random checkpoints of several
 * sizes and on sequences up to max_seq_len; every step of the conversion
 * is needed (a test leaves each out and measures the damage). */
#include <math.h>
#include <stdio.h>

#include "gpt2/gpt2.h"
#include "harness.h"

static const nl_gpt2_config sizes[] = {
    /* T, V, L, heads, C, padded V */
    {8, 13, 1, 1, 8, 16},
    {16, 50, 2, 2, 16, 64},
    {32, 97, 3, 4, 32, 128},
    {64, 211, 2, 4, 48, 256},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* The float model of size i and its double copy. */
static void models(size_t i, nl_gpt2 *f, nl_gpt2 *d)
{
    ck_assert_msg(nl_gpt2_random(f, &sizes[i], 1000 + i) == NL_OK, "nl_gpt2_random: %s",
                  nl_last_error());
    ck_assert_msg(nl_gpt2_to_double(f, d) == NL_OK, "to_double: %s", nl_last_error());
}

static void tokens_of(int *tok, size_t T, int vocab, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t t = 0; t < T; t++)
        tok[t] = (int)(nl_pyrandom_random(&r) * vocab);
}

/* Logits of a double model, as double. */
static double *logits_d(const nl_gpt2 *m, const int *tok, size_t T)
{
    double *y = malloc(T * (size_t)m->cfg.vocab_size * sizeof *y);
    ck_assert_msg(nl_gpt2_logits_d(m, tok, T, y) == NL_OK, "double forward: %s", nl_last_error());
    return y;
}

/* Logits of a float model, widened to double. */
static double *logits_f(const nl_gpt2 *m, const int *tok, size_t T)
{
    size_t n = T * (size_t)m->cfg.vocab_size;
    float *y = malloc(n * sizeof *y);
    double *w = malloc(n * sizeof *w);
    ck_assert_msg(nl_gpt2_logits_f(m, tok, T, y) == NL_OK, "float forward: %s", nl_last_error());
    for (size_t k = 0; k < n; k++)
        w[k] = y[k];
    free(y);
    return w;
}

static const char *variant_name(const nl_gpt2_convert_opts *o)
{
    static const char *names[2][2] = {{"RMSNorm", "RMSNorm + FlashNorm"},
                                      {"Pre-CRMSNorm", "Pre-CRMSNorm + FlashNorm"}};
    return names[o->norm == NL_GPT2_CRMSNORM][o->deferred != 0];
}

/* The four variants, _i = 4 * size + variant. */
static nl_gpt2_convert_opts variant(int v)
{
    nl_gpt2_convert_opts o = nl_gpt2_convert_default();
    o.norm = (v & 1) ? NL_GPT2_CRMSNORM : NL_GPT2_RMSNORM;
    o.deferred = (v & 2) != 0;
    return o;
}

START_TEST(converted_equals_original_in_double)
{
    size_t i = (size_t)_i / 4;
    nl_gpt2_convert_opts o = variant(_i % 4);
    nl_gpt2 f, d, r;
    models(i, &f, &d);
    ck_assert_msg(nl_gpt2_convert(&d, &o, &r) == NL_OK, "convert: %s", nl_last_error());
    size_t T = (size_t)sizes[i].max_seq_len;
    int *tok = malloc(T * sizeof *tok);
    const size_t lengths[] = {1, T / 2 + 1, T};
    for (size_t k = 0; k < 3; k++) {
        tokens_of(tok, lengths[k], sizes[i].vocab_size, 7 + k);
        double *want = logits_d(&d, tok, lengths[k]), *got = logits_d(&r, tok, lengths[k]);
        double err = nl_gpt2_rel_error(got, want, lengths[k] * (size_t)sizes[i].vocab_size);
        ck_assert_msg(err <= 1e-12,
                      "%s, C = %d, L = %d, T = %zu, in double: converted logits differ from the "
                      "original's by %.3g of their scale, expected <= 1e-12: the conversion is "
                      "an identity, so only rounding may differ",
                      variant_name(&o), sizes[i].channels, sizes[i].num_layers, lengths[k], err);
        free(want);
        free(got);
    }
    free(tok);
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
    nl_gpt2_free(&r);
}
END_TEST

START_TEST(converted_float_matches_original_to_1e5)
{
    size_t i = (size_t)_i / 4;
    nl_gpt2_convert_opts o = variant(_i % 4);
    nl_gpt2 f, d, r, rf;
    models(i, &f, &d);
    ck_assert_msg(nl_gpt2_convert(&d, &o, &r) == NL_OK, "convert: %s", nl_last_error());
    ck_assert_msg(nl_gpt2_to_float(&r, &rf) == NL_OK, "to_float: %s", nl_last_error());
    size_t T = (size_t)sizes[i].max_seq_len;
    int *tok = malloc(T * sizeof *tok);
    tokens_of(tok, T, sizes[i].vocab_size, 99);
    size_t n = T * (size_t)sizes[i].vocab_size;
    /* judged by the double forward of the original: the independent check */
    double *want = logits_d(&d, tok, T), *orig = logits_f(&f, tok, T);
    double *got = logits_f(&rf, tok, T);
    double err = nl_gpt2_rel_error(got, want, n), base = nl_gpt2_rel_error(orig, want, n);
    ck_assert_msg(err <= 1e-5,
                  "%s, C = %d, L = %d, T = %zu, in float: converted logits differ from the "
                  "original model's (double forward) by %.3g of their scale, expected <= 1e-5 "
                  "(the original's own float forward is off by %.3g)",
                  variant_name(&o), sizes[i].channels, sizes[i].num_layers, T, err, base);
    free(want);
    free(orig);
    free(got);
    free(tok);
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
    nl_gpt2_free(&r);
    nl_gpt2_free(&rf);
}
END_TEST

/* The damage of a conversion with one step left out, in double (where the
 * full conversion is exact to 1e-12, so all of it is the step's). */
static double damage(const nl_gpt2_convert_opts *o)
{
    nl_gpt2 f, d, r;
    models(2, &f, &d);
    ck_assert_msg(nl_gpt2_convert(&d, o, &r) == NL_OK, "convert: %s", nl_last_error());
    size_t T = (size_t)sizes[2].max_seq_len;
    int tok[64];
    tokens_of(tok, T, sizes[2].vocab_size, 5);
    double *want = logits_d(&d, tok, T), *got = logits_d(&r, tok, T);
    double err = nl_gpt2_rel_error(got, want, T * (size_t)sizes[2].vocab_size);
    free(want);
    free(got);
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
    nl_gpt2_free(&r);
    return err;
}

static const struct {
    const char *step;
    int centre_off; /* the writer left uncentred, or 0 */
    int no_beta, no_untie;
    const char *why;
} left_out[] = {
    {"the head left tied to the centred embedding", 0, 0, 1,
     "centring wte changes every logit by mean(wte[v]) x sum(y): the head needs the original"},
    {"beta not folded", 0, 1, 0, "the norm's shift b becomes the bias c + W b of the next layer"},
    {"wte not centred", NL_CENTRE_WTE, 0, 0, "the token embedding writes the stream first"},
    {"wpe not centred", NL_CENTRE_WPE, 0, 0, "the position embedding is added to every token"},
    {"attention projection W not centred", NL_CENTRE_ATTPROJW, 0, 0,
     "each block's attention output is added to the stream"},
    {"attention projection bias not centred", NL_CENTRE_ATTPROJB, 0, 0,
     "a bias is a writer too"},
    {"MLP projection W not centred", NL_CENTRE_FCPROJW, 0, 0,
     "each block's MLP output is added to the stream"},
    {"MLP projection bias not centred", NL_CENTRE_FCPROJB, 0, 0, "a bias is a writer too"},
};
#define NLEFT (sizeof left_out / sizeof left_out[0])

START_TEST(every_step_is_needed)
{
    nl_gpt2_convert_opts o = nl_gpt2_convert_default();
    o.centre &= ~left_out[_i].centre_off;
    o.fold_beta = !left_out[_i].no_beta;
    o.untie = !left_out[_i].no_untie;
    double err = damage(&o);
    fprintf(stderr, "  left out: %-40s logits off by %.3g of their scale\n", left_out[_i].step, err);
    ck_assert_msg(err > 1e-4,
                  "with %s the logits still match to %.3g: this step should be needed (%s); a "
                  "test model whose data hides it (mean 0 already) proves nothing",
                  left_out[_i].step, err, left_out[_i].why);
}
END_TEST

START_TEST(converted_model_has_no_norm_parameters)
{
    nl_gpt2 f, d, r;
    models(1, &f, &d);
    nl_gpt2_convert_opts o = nl_gpt2_convert_default();
    ck_assert_int_eq(nl_gpt2_convert(&d, &o, &r), NL_OK);
    const nl_gpt2_tensor norms[] = {NL_T_LN1W, NL_T_LN1B, NL_T_LN2W, NL_T_LN2B, NL_T_LNFW,
                                    NL_T_LNFB};
    for (size_t k = 0; k < 6; k++)
        ck_assert_msg(r.count[norms[k]] == 0 && r.t[norms[k]] == NULL,
                      "tensor %d of the converted model should be gone (folded)", norms[k]);
    ck_assert_msg(r.t[NL_T_HEADW] != r.t[NL_T_WTE], "the converted head must be untied");
    /* every writer's output has mean 0 over the model dimension */
    size_t C = (size_t)r.cfg.channels;
    for (size_t v = 0; v < (size_t)r.cfg.vocab_size; v++) {
        double s = 0;
        for (size_t c = 0; c < C; c++)
            s += ((double *)r.t[NL_T_WTE])[v * C + c];
        NL_ASSERT_EACH(fabs(s) < 1e-12, "wte row %zu sums to %g after centring", v, s);
    }
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
    nl_gpt2_free(&r);
    /* and a converted model is not converted again */
    models(0, &f, &d);
    ck_assert_int_eq(nl_gpt2_convert(&d, &o, &r), NL_OK);
    nl_gpt2 again;
    ck_assert_int_eq(nl_gpt2_convert(&r, &o, &again), NL_EARG);
    ck_assert_msg(strstr(nl_last_error(), "already"), "message: %s", nl_last_error());
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
    nl_gpt2_free(&r);
}
END_TEST

START_TEST(forward_refuses_bad_tokens)
{
    nl_gpt2 f, d;
    models(0, &f, &d);
    float y[16 * 13];
    int tok[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    ck_assert_int_eq(nl_gpt2_logits_f(&f, tok, 9, y), NL_EARG); /* max_seq_len 8 */
    ck_assert_msg(strstr(nl_last_error(), "max_seq_len"), "message: %s", nl_last_error());
    tok[0] = 13;
    ck_assert_int_eq(nl_gpt2_logits_f(&f, tok, 2, y), NL_EARG);
    ck_assert_msg(strstr(nl_last_error(), "vocabulary"), "message: %s", nl_last_error());
    ck_assert_int_eq(nl_gpt2_logits_f(&d, tok + 1, 2, y), NL_EARG); /* a double model */
    nl_gpt2_free(&f);
    nl_gpt2_free(&d);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("gpt2_convert");
    TCase *tc = tcase_create("gpt2_convert");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, converted_equals_original_in_double, 0, (int)(4 * NSIZES));
    tcase_add_loop_test(tc, converted_float_matches_original_to_1e5, 0, (int)(4 * NSIZES));
    tcase_add_loop_test(tc, every_step_is_needed, 0, (int)NLEFT);
    tcase_add_test(tc, converted_model_has_no_norm_parameters);
    tcase_add_test(tc, forward_refuses_bad_tokens);
    suite_add_tcase(s, tc);
    return s;
}
