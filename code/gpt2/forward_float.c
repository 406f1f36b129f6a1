/* forward_float.c — the GPT-2 forward in float, as a model runs. */
#include <math.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

#define REAL float
#define FN(name) name##_f
#define SQRT sqrtf
#define EXP expf
#define TANH tanhf
#include "gpt2/forward_body.h"
