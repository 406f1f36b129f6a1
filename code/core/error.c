/* error.c — the library's last-error text, one per thread, so that a
 * failing call can say what was wrong without printing from library code. */
#include "normlab.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[4096]; /* room for a kernel build log */

const char *nl_last_error(void) { return last_error; }

void nl_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

int nl_check_args(const float *x, const float *gamma, const float *beta,
                  size_t rows, size_t d, const float *y, nl_norm norm)
{
    if (d == 0) {
        nl_set_error("d (the row length) is 0: a norm needs at least one value per row");
        return NL_EARG;
    }
    if (rows > SIZE_MAX / d / sizeof(float)) {
        nl_set_error("rows x d = %zu x %zu overflows the address space", rows, d);
        return NL_EARG;
    }
    if (rows == 0)
        return NL_OK;
    if (!x || !y || !gamma) {
        nl_set_error("%s is NULL", !x ? "x" : !y ? "y" : "gamma");
        return NL_EARG;
    }
    if (norm == NL_LAYERNORM && !beta) {
        nl_set_error("beta is NULL: LayerNorm needs a shift vector (use zeros for none)");
        return NL_EARG;
    }
    return NL_OK;
}
