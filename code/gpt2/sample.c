/* sample.c — the next token from a model's logits: the most likely at
 * temperature 0, else a draw from softmax(logits / temperature).  The
 * softmax and its running sum are in double, so that two models whose
 * logits agree to float rounding (chapter 12's conversion) make the same
 * draw unless the coin lands within that rounding of a boundary. */
#include <math.h>

#include "gpt2/train.h"
#include "normlab.h"

int nl_sample_token(const float *logits, size_t V, double temperature, nl_pyrandom *r)
{
    size_t best = 0;
    for (size_t v = 1; v < V; v++)
        if (logits[v] > logits[best])
            best = v;
    if (temperature <= 0)
        return (int)best;
    double sum = 0, max = logits[best];
    for (size_t v = 0; v < V; v++)
        sum += exp(((double)logits[v] - max) / temperature);
    double coin = nl_pyrandom_random(r) * sum, cdf = 0;
    for (size_t v = 0; v < V; v++) {
        cdf += exp(((double)logits[v] - max) / temperature);
        if (coin < cdf)
            return (int)v;
    }
    return (int)best; /* the coin at the very top of a sum that rounded down */
}
