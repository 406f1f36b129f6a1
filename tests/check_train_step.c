/* check_train_step.c — one training step, its parts and its inputs
 * (chapter 13): an SGD step is parameters minus lr times the gradient, bit
 * for bit; AdamW's first steps follow the formula; a run is the same twice
 * for a seed and a thread count; the training forward gives chapter 12's
 * logits and loss; the initialisation shares every weight between the two
 * norms; batches are where llm.c's loader puts them; token shards are read
 * or refused by name; sampling follows the softmax. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gpt2/kernels.h"
#include "gpt2/train.h"
#include "harness.h"

static const nl_gpt2_config small = {16, 40, 2, 2, 16, 64};
enum { SB = 2, ST = 12 };

static void random_batch(int *in, int *tg, size_t n, int vocab, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(nl_pyrandom_random(&r) * vocab);
        tg[i] = (int)(nl_pyrandom_random(&r) * vocab);
    }
}

/* The same weights in an RMSNorm model with gains: the betas dropped. */
static void as_rmsnorm(nl_gpt2 *m)
{
    nl_gpt2 r;
    ck_assert_int_eq(nl_gpt2_drop_betas(m, &r), NL_OK);
    nl_gpt2_free(m);
    *m = r;
}

/* Tokens 0, 1, 2, ...: each token says where it was. */
static nl_tokens counting(size_t n)
{
    nl_tokens t = {malloc(n * sizeof(uint16_t)), n};
    for (size_t i = 0; i < n; i++)
        t.tok[i] = (uint16_t)i;
    return t;
}

static size_t params(const nl_gpt2 *m)
{
    size_t n = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        n += m->count[i];
    return n;
}

/* A model, its gradient on a random batch, and copies of both. */
typedef struct {
    nl_gpt2 m;
    nl_train tr;
    float *p0, *g0;
    size_t n;
} stepped;

static void gradient_of(stepped *s, nl_gpt2_norm norm)
{
    ck_assert_int_eq(nl_gpt2_random(&s->m, &small, 4), NL_OK);
    if (norm == NL_GPT2_RMSNORM_GAIN)
        as_rmsnorm(&s->m);
    ck_assert_int_eq(nl_train_init(&s->tr, &s->m, SB, ST, 0), NL_OK);
    int in[SB * ST], tg[SB * ST];
    random_batch(in, tg, SB * ST, small.vocab_size, 1);
    ck_assert_int_eq(nl_train_forward(&s->tr, in, tg, SB, ST), NL_OK);
    ck_assert_int_eq(nl_train_backward(&s->tr), NL_OK);
    s->n = params(&s->m);
    s->p0 = malloc(s->n * sizeof(float));
    s->g0 = malloc(s->n * sizeof(float));
    memcpy(s->p0, s->m.mem, s->n * sizeof(float));
    memcpy(s->g0, s->tr.grad_mem, s->n * sizeof(float));
}

static void stepped_free(stepped *s)
{
    free(s->p0);
    free(s->g0);
    nl_train_free(&s->tr);
    nl_gpt2_free(&s->m);
}

/* The tensor holding element k of the model's memory. */
static int tensor_at(const nl_gpt2 *m, size_t k)
{
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        if (k < m->count[i])
            return i;
        k -= m->count[i];
    }
    return -1;
}

/* _i: 0 without weight decay, 1 with. */
START_TEST(sgd_step_is_params_minus_lr_times_grad)
{
    stepped s;
    gradient_of(&s, _i ? NL_GPT2_RMSNORM_GAIN : NL_GPT2_LAYERNORM);
    const float lr = 0.125f, wd = _i ? 0.5f : 0.0f;
    nl_optim o = nl_optim_default(NL_OPTIM_SGD, lr, wd);
    ck_assert_int_eq(nl_optim_step(&o, &s.tr), NL_OK);
    const float *p = s.m.mem;
    for (size_t k = 0; k < s.n; k++) {
        int t = tensor_at(&s.m, k);
        float decay = nl_gpt2_decays((nl_gpt2_tensor)t) ? wd : 0.0f;
        float want = s.p0[k] - lr * (s.g0[k] + decay * s.p0[k]);
        NL_ASSERT_EACH(p[k] == want, "SGD, weight decay %g: parameter %zu (tensor %d) is %.9g, "
                       "expected p - lr (g + wd p) = %.9g - %g (%.9g + %g %.9g) = %.9g",
                       wd, k, t, p[k], s.p0[k], lr, s.g0[k], decay, s.p0[k], want);
    }
    nl_optim_free(&o);
    stepped_free(&s);
}
END_TEST

START_TEST(adamw_follows_its_formula_for_two_steps)
{
    stepped s;
    gradient_of(&s, NL_GPT2_LAYERNORM);
    const double lr = 1e-2, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
    nl_optim o = nl_optim_default(NL_OPTIM_ADAMW, (float)lr, (float)wd);
    ck_assert(o.beta1 == 0.9f && o.beta2 == 0.95f && o.eps == 1e-8f);
    double *m = calloc(s.n, sizeof *m), *v = calloc(s.n, sizeof *v), *p = malloc(s.n * sizeof *p);
    for (size_t k = 0; k < s.n; k++)
        p[k] = s.p0[k];
    for (int t = 1; t <= 2; t++) {
        /* the same gradient both times: what matters is the recurrence */
        memcpy(s.tr.grad_mem, s.g0, s.n * sizeof(float));
        ck_assert_int_eq(nl_optim_step(&o, &s.tr), NL_OK);
        const float *got = s.m.mem;
        for (size_t k = 0; k < s.n; k++) {
            double g = s.g0[k], decay = nl_gpt2_decays((nl_gpt2_tensor)tensor_at(&s.m, k)) ? wd : 0;
            m[k] = b1 * m[k] + (1 - b1) * g;
            v[k] = b2 * v[k] + (1 - b2) * g * g;
            double mh = m[k] / (1 - pow(b1, t)), vh = v[k] / (1 - pow(b2, t));
            p[k] -= lr * (mh / (sqrt(vh) + eps) + decay * p[k]);
            NL_ASSERT_EACH(fabs(got[k] - p[k]) <= 1e-6 * lr + 1e-6 * fabs(p[k]),
                           "AdamW step %d: parameter %zu is %.9g, the formula in double gives "
                           "%.9g (gradient %.3g): bias correction, eps outside the root, decay "
                           "on 2-D tensors only?", t, k, got[k], p[k], g);
        }
    }
    free(m);
    free(v);
    free(p);
    nl_optim_free(&o);
    stepped_free(&s);
}
END_TEST

/* Three AdamW steps from the same seed, twice: the same bits. */
static void three_steps(nl_gpt2 *m, int threads)
{
    omp_set_num_threads(threads);
    ck_assert_int_eq(nl_gpt2_init(m, &small, NL_GPT2_LAYERNORM, 3), NL_OK);
    nl_train tr;
    ck_assert_int_eq(nl_train_init(&tr, m, SB, ST, threads), NL_OK);
    nl_optim o = nl_optim_default(NL_OPTIM_ADAMW, 1e-2f, 0.1f);
    for (int step = 0; step < 3; step++) {
        int in[SB * ST], tg[SB * ST];
        random_batch(in, tg, SB * ST, small.vocab_size, (uint64_t)step);
        ck_assert_int_eq(nl_train_forward(&tr, in, tg, SB, ST), NL_OK);
        ck_assert_int_eq(nl_train_backward(&tr), NL_OK);
        ck_assert_int_eq(nl_optim_step(&o, &tr), NL_OK);
    }
    nl_optim_free(&o);
    nl_train_free(&tr);
}

START_TEST(a_run_is_the_same_for_a_seed_and_thread_count)
{
    int threads = _i + 1;
    if (nl_threads_granted(threads) < threads)
        NL_SKIP("OpenMP grants fewer threads than the test asks for");
    nl_gpt2 a, b;
    three_steps(&a, threads);
    three_steps(&b, threads);
    ck_assert_msg(!memcmp(a.mem, b.mem, params(&a) * sizeof(float)),
                  "two runs of three steps, seed 3, %d thread(s), ended with different weights",
                  threads);
    nl_gpt2_free(&a);
    nl_gpt2_free(&b);
}
END_TEST

/* _i: LayerNorm, RMSNorm with gains, converted RMSNorm. */
START_TEST(training_forward_gives_chapter_12s_logits_and_loss)
{
    nl_gpt2 ln, m;
    ck_assert_int_eq(nl_gpt2_random(&ln, &small, 8), NL_OK);
    if (_i < 2) {
        m = ln;
        if (_i == 1)
            as_rmsnorm(&m);
    } else {
        nl_gpt2 d, r;
        ck_assert_int_eq(nl_gpt2_to_double(&ln, &d), NL_OK);
        nl_gpt2_convert_opts o = nl_gpt2_convert_default();
        ck_assert_int_eq(nl_gpt2_convert(&d, &o, &r), NL_OK);
        ck_assert_int_eq(nl_gpt2_to_float(&r, &m), NL_OK);
        nl_gpt2_free(&d);
        nl_gpt2_free(&r);
        nl_gpt2_free(&ln);
    }
    nl_train tr;
    ck_assert_int_eq(nl_train_init(&tr, &m, SB, ST, 0), NL_OK);
    int in[SB * ST], tg[SB * ST];
    random_batch(in, tg, SB * ST, small.vocab_size, 2);
    ck_assert_int_eq(nl_train_forward(&tr, in, tg, SB, ST), NL_OK);
    size_t V = (size_t)small.vocab_size;
    float *ref = malloc(ST * V * sizeof *ref);
    double ce = 0, worst = 0, scale = 0;
    for (size_t b = 0; b < SB; b++) {
        ck_assert_int_eq(nl_gpt2_logits_f(&m, in + b * ST, ST, ref), NL_OK);
        for (size_t t = 0; t < ST; t++) {
            const float *got = nl_train_logits(&tr, b, t), *want = ref + t * V;
            double max = want[0], sum = 0;
            for (size_t v = 0; v < V; v++) {
                double e = fabs((double)got[v] - want[v]), w = want[v];
                if (e > worst)
                    worst = e;
                if (fabs(w) > scale)
                    scale = fabs(w);
                if (w > max)
                    max = w;
            }
            for (size_t v = 0; v < V; v++)
                sum += exp((double)want[v] - max);
            ce += log(sum) - ((double)want[tg[b * ST + t]] - max);
        }
    }
    ce /= SB * ST;
    ck_assert_msg(worst / scale <= 1e-5, "kind %d: the training forward's logits are %.3g (of "
                  "their scale) from normlab logits' forward", _i, worst / scale);
    ck_assert_msg(fabs(tr.loss - ce) <= 1e-5 * ce, "kind %d: training loss %.9g, the "
                  "cross-entropy of chapter 12's logits %.9g", _i, tr.loss, ce);
    free(ref);
    nl_train_free(&tr);
    nl_gpt2_free(&m);
}
END_TEST

static double sd_of(const float *p, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)p[i] * p[i];
    return sqrt(s / (double)n);
}

START_TEST(both_norms_start_from_the_same_weights)
{
    const nl_gpt2_config c = {32, 100, 3, 4, 32, 128};
    nl_gpt2 ln, rms;
    ck_assert_int_eq(nl_gpt2_init(&ln, &c, NL_GPT2_LAYERNORM, 9), NL_OK);
    ck_assert_int_eq(nl_gpt2_init(&rms, &c, NL_GPT2_RMSNORM_GAIN, 9), NL_OK);
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        if (!rms.count[i] || i == NL_T_HEADW)
            continue;
        ck_assert_msg(ln.count[i] == rms.count[i] &&
                          !memcmp(ln.t[i], rms.t[i], ln.count[i] * sizeof(float)),
                      "tensor %d differs between the LayerNorm and RMSNorm models of seed 9", i);
    }
    ck_assert_msg(!rms.count[NL_T_LN1B] && !rms.count[NL_T_LNFB], "an RMSNorm model has no beta");
    const float *gain = ln.t[NL_T_LN2W], *beta = ln.t[NL_T_LN2B], *bias = ln.t[NL_T_FCB];
    for (size_t k = 0; k < ln.count[NL_T_LN2W]; k++)
        NL_ASSERT_EACH(gain[k] == 1 && beta[k] == 0, "gains start at 1, betas at 0");
    for (size_t k = 0; k < ln.count[NL_T_FCB]; k++)
        NL_ASSERT_EACH(bias[k] == 0, "biases start at 0");
    double sd = sd_of(ln.t[NL_T_QKVW], ln.count[NL_T_QKVW]);
    double res = sd_of(ln.t[NL_T_FCPROJW], ln.count[NL_T_FCPROJW]);
    ck_assert_msg(fabs(sd - 0.02) < 0.002, "qkvw's spread %.4f, GPT-2's is 0.02", sd);
    ck_assert_msg(fabs(res - 0.02 / sqrt(6.0)) < 0.001, "fcprojw's spread %.4f, 0.02/sqrt(2L) "
                  "= %.4f", res, 0.02 / sqrt(6.0));
    const float *wte = ln.t[NL_T_WTE];
    for (size_t k = (size_t)c.vocab_size * 32; k < ln.count[NL_T_WTE]; k++)
        NL_ASSERT_EACH(wte[k] == 0, "wte's padding rows stay 0 (element %zu)", k);
    nl_gpt2_free(&ln);
    nl_gpt2_free(&rms);
}
END_TEST

/* GELU's vectorised float kernels against the formula in double, over
 * the range a layer's inputs take and beyond, where tanh is 1. */
START_TEST(gelu_kernels_follow_the_formula)
{
    enum { N = 48001 };
    static float x[N], y[N], d[N], half[N];
    for (int i = 0; i < N; i++)
        x[i] = -12.0f + 24.0f * (float)i / (N - 1);
    x[N / 2] = 1e-30f;
    nl_gpt2_gelu_forward(y, x, N);
    nl_fill_const(d, N, 1.0f);
    nl_fill_const(half, N, 1.0f);
    nl_gpt2_gelu_backward(d, x, N, 1);
    nl_gpt2_gelu_backward(half, x, N, 0);
    const double k = 0.7978845608028654, c = 0.044715;
    for (int i = 0; i < N; i++) {
        double v = x[i], th = tanh(k * (v + c * v * v * v));
        double want = 0.5 * v * (1 + th);
        double dwant = 0.5 * (1 + th) + 0.5 * v * (1 - th * th) * k * (1 + 3 * c * v * v);
        NL_ASSERT_EACH(fabs(y[i] - want) <= 3e-7 * fmax(1.0, fabs(v)),
                       "GELU(%.9g) = %.9g, the formula in double gives %.9g", v, y[i], want);
        NL_ASSERT_EACH(fabs(d[i] - dwant) <= 3e-7 * fmax(1.0, fabs(v)),
                       "GELU'(%.9g) = %.9g, the formula in double gives %.9g", v, d[i], dwant);
        NL_ASSERT_EACH(fabs(half[i] - 0.5 * (1 + th)) <= 3e-7,
                       "without the tanh term GELU'(%.9g) is (1 + tanh u) / 2", v);
    }
    x[0] = NAN;
    nl_gpt2_gelu_forward(y, x, 1);
    ck_assert_msg(isnan(y[0]), "GELU(NaN) must be NaN, so that a diverged run shows");
}
END_TEST

/* ------------------------------------------------------------- batches */
START_TEST(batches_are_where_llm_c_puts_them)
{
    nl_tokens t = counting(1000);
    nl_loader ld;
    enum { B = 3, T = 7 };
    ck_assert_int_eq(nl_loader_init(&ld, &t, B, T, 0, 1), NL_OK);
    ck_assert_msg(ld.per_epoch == 999 / (B * T), "an epoch of %zu batches, expected (n - 1) / "
                  "(B T) = %d", ld.per_epoch, 999 / (B * T));
    int in[B * T], tg[B * T];
    for (size_t s = 0; s < 2 * ld.per_epoch + 3; s++) {
        nl_loader_batch(&ld, s, in, tg);
        size_t k = s % ld.per_epoch;
        for (size_t b = 0; b < B; b++)
            for (size_t i = 0; i < T; i++) {
                int want = (int)((k * B + b) * T + i);
                NL_ASSERT_EACH(in[b * T + i] == want && tg[b * T + i] == want + 1,
                               "step %zu, sequence %zu, token %zu: input %d, target %d; "
                               "expected (s B + b) T + t = %d and the next token", s, b, i,
                               in[b * T + i], tg[b * T + i], want);
            }
    }
    nl_loader_free(&ld);
    nl_tokens_free(&t);
}
END_TEST

START_TEST(shuffled_batches_are_each_epochs_permutation)
{
    nl_tokens t = counting(1000);
    enum { B = 2, T = 10 };
    nl_loader a, b;
    ck_assert_int_eq(nl_loader_init(&a, &t, B, T, 1, 5), NL_OK);
    ck_assert_int_eq(nl_loader_init(&b, &t, B, T, 1, 5), NL_OK);
    size_t E = a.per_epoch, *first = calloc(2 * E, sizeof *first);
    int in[B * T], tg[B * T], in2[B * T], tg2[B * T];
    for (size_t s = 0; s < 2 * E; s++) {
        nl_loader_batch(&a, s, in, tg);
        nl_loader_batch(&b, s, in2, tg2);
        ck_assert_msg(!memcmp(in, in2, sizeof in), "the same seed gave another order");
        ck_assert_msg(in[0] % (B * T) == 0 && tg[0] == in[0] + 1, "a batch starts at k B T");
        first[s] = (size_t)in[0] / (B * T);
    }
    for (size_t e = 0; e < 2; e++)
        for (size_t k = 0; k < E; k++) {
            size_t seen = 0;
            for (size_t s = e * E; s < (e + 1) * E; s++)
                seen += first[s] == k;
            ck_assert_msg(seen == 1, "epoch %zu took batch %zu %zu times", e, k, seen);
        }
    ck_assert_msg(memcmp(first, first + E, E * sizeof *first), "two epochs in the same order");
    free(first);
    nl_loader_free(&a);
    nl_loader_free(&b);
    nl_tokens_free(&t);
}
END_TEST

/* -------------------------------------------------------------- shards */
static void write_shard(const char *path, int32_t magic, int32_t version, int32_t count,
                        size_t tokens)
{
    int32_t h[256] = {magic, version, count};
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(h, sizeof h, 1, f) == 1);
    for (size_t i = 0; i < tokens; i++) {
        uint16_t v = (uint16_t)(i * 37 % 50257);
        ck_assert(fwrite(&v, 2, 1, f) == 1);
    }
    fclose(f);
}

START_TEST(a_token_shard_reads_back)
{
    const char *p = nl_scratch_name("good.bin");
    write_shard(p, 20240520, 1, 300, 300);
    nl_tokens t;
    ck_assert_msg(nl_tokens_read_shard(p, &t) == NL_OK, "%s", nl_last_error());
    ck_assert_int_eq(t.n, 300);
    for (size_t i = 0; i < 300; i++)
        NL_ASSERT_EACH(t.tok[i] == i * 37 % 50257, "token %zu reads as %u", i, t.tok[i]);
    nl_tokens_free(&t);
}
END_TEST

static const struct {
    const char *name;
    int32_t magic, version, count;
    size_t tokens;
    const char *says;
} bad_shard[] = {
    {"magic.bin", 20240326, 1, 10, 10, "magic 20240326"},
    {"llama.bin", 20240801, 7, 10, 10, "Llama 3"},
    {"version.bin", 20240520, 2, 10, 10, "version 2"},
    {"short.bin", 20240520, 1, 10, 9, "truncated"},
    {"long.bin", 20240520, 1, 10, 11, "too long"},
    {"empty.bin", 20240520, 1, 0, 0, "counts 0 tokens"},
};

START_TEST(a_bad_shard_is_refused_by_name)
{
    const char *p = nl_scratch_name(bad_shard[_i].name);
    write_shard(p, bad_shard[_i].magic, bad_shard[_i].version, bad_shard[_i].count,
                bad_shard[_i].tokens);
    nl_tokens t;
    ck_assert_int_eq(nl_tokens_read_shard(p, &t), NL_EARG);
    ck_assert_msg(strstr(nl_last_error(), bad_shard[_i].says) && strstr(nl_last_error(), p),
                  "a %s: the message should name the file and say '%s'; it says: %s",
                  bad_shard[_i].name, bad_shard[_i].says, nl_last_error());
}
END_TEST

START_TEST(a_directory_is_no_shard)
{
    nl_tokens t;
    ck_assert_int_eq(nl_tokens_read_shard(nl_scratch_dir(), &t), NL_EARG);
    ck_assert_msg(strstr(nl_last_error(), "not a regular file"), "%s", nl_last_error());
    ck_assert_int_eq(nl_tokens_read_text(nl_scratch_dir(), &t), NL_EARG);
}
END_TEST

/* ------------------------------------------------------------ sampling */
START_TEST(sampling_follows_the_softmax)
{
    const float logits[4] = {1.0f, 2.0f, 0.5f, 2.0f - 1e-3f};
    nl_pyrandom r;
    nl_pyrandom_seed(&r, 1);
    ck_assert_int_eq(nl_sample_token(logits, 4, 0.0, &r), 1);
    enum { N = 20000 };
    size_t count[4] = {0};
    for (int i = 0; i < N; i++)
        count[nl_sample_token(logits, 4, 1.0, &r)]++;
    double z = 0;
    for (int v = 0; v < 4; v++)
        z += exp(logits[v]);
    for (int v = 0; v < 4; v++) {
        double p = exp(logits[v]) / z, got = (double)count[v] / N;
        ck_assert_msg(fabs(got - p) < 5 * sqrt(p * (1 - p) / N),
                      "token %d drawn %.4f of the time, softmax gives %.4f", v, got, p);
    }
    /* a low temperature sharpens the softmax towards the largest logit */
    size_t top = 0;
    for (int i = 0; i < 1000; i++)
        top += nl_sample_token(logits, 4, 0.05, &r) == 1;
    ck_assert_msg(top > 400 && top < 600, "at temperature 0.05 the two near-equal best tokens "
                  "should share the draws; the first got %zu of 1000", top);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("train_step");
    TCase *tc = tcase_create("step");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, sgd_step_is_params_minus_lr_times_grad, 0, 2);
    tcase_add_test(tc, adamw_follows_its_formula_for_two_steps);
    tcase_add_loop_test(tc, a_run_is_the_same_for_a_seed_and_thread_count, 0, 2);
    tcase_add_loop_test(tc, training_forward_gives_chapter_12s_logits_and_loss, 0, 3);
    tcase_add_test(tc, both_norms_start_from_the_same_weights);
    tcase_add_test(tc, gelu_kernels_follow_the_formula);
    suite_add_tcase(s, tc);
    TCase *data = tcase_create("data");
    tcase_add_checked_fixture(data, nl_scratch_clear, nl_scratch_clear);
    tcase_add_test(data, batches_are_where_llm_c_puts_them);
    tcase_add_test(data, shuffled_batches_are_each_epochs_permutation);
    tcase_add_test(data, a_token_shard_reads_back);
    tcase_add_loop_test(data, a_bad_shard_is_refused_by_name, 0,
                        sizeof bad_shard / sizeof bad_shard[0]);
    tcase_add_test(data, a_directory_is_no_shard);
    tcase_add_test(data, sampling_follows_the_softmax);
    suite_add_tcase(s, data);
    return s;
}
