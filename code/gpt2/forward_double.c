/* forward_double.c — the same forward in double: the judge of the float
 * one, and the run in which the conversion must be exact to 1e-12. */
#include <math.h>

#include "gpt2/gpt2.h"
#include "normlab.h"

#define REAL double
#define FN(name) name##_d
#define SQRT sqrt
#define EXP exp
#define TANH tanh
#include "gpt2/forward_body.h"
