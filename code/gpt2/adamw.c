/* adamw.c — AdamW's update of one tensor (Loshchilov & Hutter,
 * "Decoupled Weight Decay Regularization", ICLR 2019), as llm.c's
 * train_gpt2.c gpt2_update writes it: bias-corrected moments, eps added
 * to the root, the decay applied to the weight itself and not through the
 * gradient.  A file of its own, apart from the optimizer's bookkeeping
 * (optim.c): exercise 17 is the body of its loop, and the grader's worker
 * then links this update alone, not the training code around it. */
#include <math.h>
#include <stddef.h>

#include "gpt2/train.h"

// @snippet train-adamw
void nl_adamw_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                     float beta1, float beta2, float eps, float wd, int t)
{
    /* the moments start at 0, so early ones are too small by 1 - beta^t */
    float c1 = 1.0f - powf(beta1, (float)t), c2 = 1.0f - powf(beta2, (float)t);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        // @exercise 17-adamw
        m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
        v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
        float mhat = m[i] / c1, vhat = v[i] / c2;
        p[i] -= lr * (mhat / (sqrtf(vhat) + eps) + wd * p[i]);
        // @stub (void)p, (void)g, (void)m, (void)v, (void)lr, (void)eps, (void)wd, (void)c1, (void)c2;
        // @end
    }
}
// @end
