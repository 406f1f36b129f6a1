/* train-gradcheck.c — chapter 13's gradient-check numbers: the check of
 * tests/check_train_grad.c (the same model, batch and step) run once, its
 * errors printed as `key value` lines for the book ({{train.grad.*}}):
 * the correct pass's worst tensor for each kind of model, and each planted
 * mistake's error, the least over the three kinds. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "gpt2/train.h"
#include "normlab.h"

static const nl_gpt2_config tiny = {6, 11, 2, 2, 8, 12};
enum { NB = 2, NT = 5 };

int main(void)
{
    omp_set_num_threads(1);
    int in[NB * NT], tg[NB * NT];
    nl_pyrandom r;
    nl_pyrandom_seed(&r, 7);
    for (size_t i = 0; i < NB * NT; i++) {
        in[i] = (int)(nl_pyrandom_random(&r) * tiny.vocab_size);
        tg[i] = (int)(nl_pyrandom_random(&r) * tiny.vocab_size);
    }
    static const char *const kind[3] = {"ln", "rms", "converted"};
    double worst = 0, least[NL_PLANT_COUNT];
    for (int p = 0; p < NL_PLANT_COUNT; p++)
        least[p] = INFINITY;
    for (int k = 0; k < 3; k++) {
        nl_gpt2 md;
        nl_gradcheck_report rep;
        if (nl_train_gradcheck_model(k, &tiny, 5, &md) != NL_OK ||
            nl_train_gradcheck(&md, in, tg, NB, NT, 1e-5, &rep) != NL_OK) {
            fprintf(stderr, "train-gradcheck: %s\n", nl_last_error());
            return 1;
        }
        if (k == 0)
            printf("train.grad.params %zu\n", rep.params);
        printf("train.grad.error.%s %.1e\n", kind[k], rep.error[0]);
        worst = fmax(worst, rep.error[0]);
        for (int p = 1; p < NL_PLANT_COUNT; p++)
            least[p] = fmin(least[p], rep.error[p]);
        nl_gpt2_free(&md);
    }
    printf("train.grad.worst %.0e\n", worst);
    double all = INFINITY;
    for (int p = 1; p < NL_PLANT_COUNT; p++) {
        printf("train.grad.plant.%s %.2f\n", nl_train_plant_name(p), least[p]);
        all = fmin(all, least[p]);
    }
    printf("train.grad.plant_least %.2f\n", all);
    return 0;
}
