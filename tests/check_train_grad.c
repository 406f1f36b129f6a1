/* check_train_grad.c — the whole model's gradient, checked (chapter 13).
 *
 * The double pass against central finite differences of its own loss, for
 * every parameter of a small model, for each kind of model that trains:
 * llm.c's LayerNorm GPT-2, the RMSNorm GPT-2 with gains, and chapter 12's
 * converted RMSNorm model.  Each mistake of nl_train_plant, planted in one
 * layer's backward, must then break the agreement: a check that passes a
 * wrong gradient proves nothing.  Last, the float pass (BLAS or the
 * blocked matmul, chapter 10's norm kernels) against the double one on a
 * larger shape. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "gpt2/train.h"
#include "harness.h"

/* Small enough for finite differences of every parameter (about 1,900),
 * with two sequences (the embedding sums), two layers, two heads. */
static const nl_gpt2_config tiny = {6, 11, 2, 2, 8, 12};
enum { NB = 2, NT = 5 };
#define FD_STEP 1e-5
#define FD_BOUND 1e-6   /* measured: 5e-10 to 6e-10 with every layer right */
#define PLANT_FLOOR 1e-3 /* the least a planted mistake may leave (measured: 0.2 to 1.2) */

static const char *const kind_name[] = {"LayerNorm", "RMSNorm with gains",
                                        "converted RMSNorm"};

/* The same weights in an RMSNorm model with gains: the betas dropped. */
static void as_rmsnorm(nl_gpt2 *m)
{
    nl_gpt2 r;
    ck_assert_int_eq(nl_gpt2_drop_betas(m, &r), NL_OK);
    nl_gpt2_free(m);
    *m = r;
}

/* A double model of kind k (0, 1, 2) with weights away from their usual
 * values (chapter 12's random draws: non-zero means, gains off 1). */
static void model_of_kind(int k, nl_gpt2 *md)
{
    nl_gpt2 ln, lnd;
    ck_assert_int_eq(nl_gpt2_random(&ln, &tiny, 5), NL_OK);
    ck_assert_int_eq(nl_gpt2_to_double(&ln, &lnd), NL_OK);
    if (k < 2) {
        *md = lnd;
        if (k == 1)
            as_rmsnorm(md);
    } else {
        nl_gpt2_convert_opts o = nl_gpt2_convert_default();
        ck_assert_msg(nl_gpt2_convert(&lnd, &o, md) == NL_OK, "%s", nl_last_error());
        nl_gpt2_free(&lnd);
    }
    nl_gpt2_free(&ln);
}

static void batch(int *in, int *tg, size_t n, int vocab, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(nl_pyrandom_random(&r) * vocab);
        tg[i] = (int)(nl_pyrandom_random(&r) * vocab);
    }
}

static double loss_of(nl_train *tr, const int *in, const int *tg)
{
    ck_assert_msg(nl_train_forward(tr, in, tg, NB, NT) == NL_OK, "%s", nl_last_error());
    return tr->loss;
}

/* Every parameter's central difference, in the model's memory order. */
static double *finite_differences(nl_train *tr, const int *in, const int *tg, size_t *total)
{
    nl_gpt2 *m = tr->m;
    *total = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        *total += m->count[i];
    double *fd = malloc(*total * sizeof *fd), *p = m->mem;
    for (size_t k = 0; k < *total; k++) {
        double keep = p[k];
        p[k] = keep + FD_STEP;
        double up = loss_of(tr, in, tg);
        p[k] = keep - FD_STEP;
        double down = loss_of(tr, in, tg);
        p[k] = keep;
        fd[k] = (up - down) / (2 * FD_STEP);
    }
    return fd;
}

/* The worst tensor's max |analytic - fd| / max |fd|, and which. */
static double worst_tensor(const nl_train *tr, const double *fd, int *which)
{
    const double *g = tr->grad_mem;
    double worst = 0;
    size_t at = 0;
    *which = -1;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++) {
        size_t n = tr->m->count[i];
        double e = n ? nl_grad_rel_err_d(g + at, fd + at, n) : 0;
        if (!(e <= worst)) { /* a NaN is the worst of all */
            worst = e;
            *which = i;
        }
        at += n;
    }
    return worst;
}

static const char *const tensor_name[NL_GPT2_NTENSORS] = {
    "wte", "wpe", "ln1w", "ln1b", "qkvw", "qkvb", "attprojw", "attprojb", "ln2w", "ln2b",
    "fcw", "fcb", "fcprojw", "fcprojb", "lnfw", "lnfb", "headw", "headb"};

/* _i: the model kind.  The analytic gradient against finite differences,
 * then each planted mistake against the same differences. */
START_TEST(gradient_matches_finite_differences_and_plants_break_it)
{
    /* one thread: thousands of small passes, where a team's start and
     * barriers would cost more than the arithmetic */
    omp_set_num_threads(1);
    nl_gpt2 md;
    model_of_kind(_i, &md);
    nl_train tr;
    ck_assert_int_eq(nl_train_init(&tr, &md, NB, NT, 1), NL_OK);
    int in[NB * NT], tg[NB * NT];
    batch(in, tg, NB * NT, tiny.vocab_size, 7);
    size_t total;
    double *fd = finite_differences(&tr, in, tg, &total);
    loss_of(&tr, in, tg);
    ck_assert_int_eq(nl_train_backward(&tr), NL_OK);
    int which;
    double err = worst_tensor(&tr, fd, &which);
    ck_assert_msg(err <= FD_BOUND,
                  "%s: the gradient of %s is %.3g from finite differences (bound %g): a "
                  "layer's backward is wrong", kind_name[_i], which >= 0 ? tensor_name[which]
                  : "?", err, FD_BOUND);
    for (int p = 1; p < NL_PLANT_COUNT; p++) {
        tr.plant = p;
        loss_of(&tr, in, tg);
        ck_assert_int_eq(nl_train_backward(&tr), NL_OK);
        double e = worst_tensor(&tr, fd, &which);
        ck_assert_msg(e > PLANT_FLOOR,
                      "%s: with the %s backward's planted mistake the gradient is still within "
                      "%.3g of finite differences: the check would not catch it",
                      kind_name[_i], nl_train_plant_name(p), e);
    }
    free(fd);
    nl_train_free(&tr);
    nl_gpt2_free(&md);
}
END_TEST

/* ------------------------------------------------- float against double */
/* Rows not a multiple of the matmul's 4-row tile, more than one 64-row
 * block, heads of 8: every path of the float products. */
static const nl_gpt2_config mid = {40, 50, 2, 4, 32, 64};
enum { MB = 3, MT = 33 };
#define FLOAT_BOUND 1e-4 /* float sums over ~100 rows: measured 3e-7 to 6e-7 */

static void float_and_double(int kind, int plant_float, double *worst, int *which,
                             double *loss_err)
{
    nl_gpt2 ln, m;
    ck_assert_int_eq(nl_gpt2_random(&ln, &mid, 9), NL_OK);
    m = ln;
    if (kind == 1)
        as_rmsnorm(&m);
    nl_gpt2 md;
    ck_assert_int_eq(nl_gpt2_to_double(&m, &md), NL_OK);
    nl_train tf, td;
    ck_assert_int_eq(nl_train_init(&tf, &m, MB, MT, 0), NL_OK);
    ck_assert_int_eq(nl_train_init(&td, &md, MB, MT, 0), NL_OK);
    static int in[MB * MT], tg[MB * MT];
    batch(in, tg, MB * MT, mid.vocab_size, 3);
    tf.plant = plant_float;
    ck_assert_int_eq(nl_train_forward(&tf, in, tg, MB, MT), NL_OK);
    ck_assert_int_eq(nl_train_backward(&tf), NL_OK);
    ck_assert_int_eq(nl_train_forward(&td, in, tg, MB, MT), NL_OK);
    ck_assert_int_eq(nl_train_backward(&td), NL_OK);
    *loss_err = fabs(tf.loss - td.loss) / fabs(td.loss);
    *worst = 0;
    *which = -1;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        if (m.count[i]) {
            double e = nl_grad_rel_err(tf.g[i], td.g[i], m.count[i]);
            if (!(e <= *worst))
                *worst = e, *which = i;
        }
    nl_train_free(&tf);
    nl_train_free(&td);
    nl_gpt2_free(&m);
    nl_gpt2_free(&md);
}

START_TEST(float_pass_matches_the_double_pass)
{
    double worst, loss_err;
    int which;
    float_and_double(_i, NL_PLANT_NONE, &worst, &which, &loss_err);
    ck_assert_msg(loss_err <= 1e-5, "%s: the float loss is %.3g from the double one",
                  kind_name[_i], loss_err);
    ck_assert_msg(worst <= FLOAT_BOUND,
                  "%s: the float gradient of %s is %.3g from the double pass (bound %g); the "
                  "products run through %s", kind_name[_i], which >= 0 ? tensor_name[which] : "?",
                  worst, FLOAT_BOUND, "nl_gpt2_gemm");
}
END_TEST

/* The float pass's own norm backward is chapter 10's kernel: the check
 * above must see the other norm's kernel put in its place. */
START_TEST(float_check_catches_the_wrong_norm_kernel)
{
    double worst, loss_err;
    int which;
    float_and_double(_i, NL_PLANT_NORM, &worst, &which, &loss_err);
    ck_assert_msg(worst > PLANT_FLOOR,
                  "%s: the float pass with the other norm's backward kernel is still within "
                  "%.3g of the double pass", kind_name[_i], worst);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("train_grad");
    TCase *tc = tcase_create("gradient");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, gradient_matches_finite_differences_and_plants_break_it, 0, 3);
    tcase_add_loop_test(tc, float_pass_matches_the_double_pass, 0, 2);
    tcase_add_loop_test(tc, float_check_catches_the_wrong_norm_kernel, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
