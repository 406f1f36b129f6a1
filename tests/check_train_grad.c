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

static void batch(int *in, int *tg, size_t n, int vocab, uint64_t seed)
{
    nl_pyrandom r;
    nl_pyrandom_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        in[i] = (int)(nl_pyrandom_random(&r) * vocab);
        tg[i] = (int)(nl_pyrandom_random(&r) * vocab);
    }
}

/* _i: the model kind.  The analytic gradient against finite differences,
 * then each planted mistake against the same differences. */
START_TEST(gradient_matches_finite_differences_and_plants_break_it)
{
    /* one thread: thousands of small passes, where a team's start and
     * barriers would cost more than the arithmetic */
    omp_set_num_threads(1);
    nl_gpt2 md;
    ck_assert_msg(nl_train_gradcheck_model(_i, &tiny, 5, &md) == NL_OK, "%s", nl_last_error());
    int in[NB * NT], tg[NB * NT];
    batch(in, tg, NB * NT, tiny.vocab_size, 7);
    nl_gradcheck_report r;
    ck_assert_msg(nl_train_gradcheck(&md, in, tg, NB, NT, FD_STEP, &r) == NL_OK, "%s",
                  nl_last_error());
    ck_assert_msg(r.error[0] <= FD_BOUND,
                  "%s: the gradient of %s is %.3g from finite differences (bound %g): a "
                  "layer's backward is wrong", kind_name[_i],
                  nl_gpt2_tensor_name((nl_gpt2_tensor)r.tensor[0]), r.error[0], FD_BOUND);
    for (int p = 1; p < NL_PLANT_COUNT; p++)
        ck_assert_msg(r.error[p] > PLANT_FLOOR,
                      "%s: with the %s backward's planted mistake the gradient is still within "
                      "%.3g of finite differences: the check would not catch it",
                      kind_name[_i], nl_train_plant_name(p), r.error[p]);
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
    nl_gpt2 m, md;
    ck_assert_int_eq(nl_train_gradcheck_model(kind, &mid, 9, &md), NL_OK);
    ck_assert_int_eq(nl_gpt2_to_float(&md, &m), NL_OK);
    nl_gpt2_free(&md);
    ck_assert_int_eq(nl_gpt2_to_double(&m, &md), NL_OK); /* the float weights, exactly */
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
                  "products run through %s", kind_name[_i], nl_gpt2_tensor_name((nl_gpt2_tensor)which),
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
    tcase_add_loop_test(tc, float_pass_matches_the_double_pass, 0, 3);
    tcase_add_loop_test(tc, float_check_catches_the_wrong_norm_kernel, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}
