/* reference.c — the gradients in double, two ways: from the derived
 * formulas (nl_backward_reference) and by central finite differences of
 * the forward (nl_backward_numeric).  Each checks the other: a sign or a
 * factor wrong in a derivation shows up as a disagreement of order one,
 * while the two agree to ~1e-9 when both are right.  The float kernels
 * are then held to the analytic double gradient, which is exact to double
 * rounding on any shape, where finite differences would be slow and noisy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "normlab.h"

/* x-hat of one row in double, and its rstd: two passes, as nl_reference. */
static double row_xhat(nl_norm norm, const double *x, double eps, size_t d, double *xhat)
{
    double mu = 0.0, ss = 0.0;
    if (norm == NL_LAYERNORM) {
        for (size_t i = 0; i < d; i++)
            mu += x[i];
        mu /= (double)d;
    }
    for (size_t i = 0; i < d; i++)
        ss += (x[i] - mu) * (x[i] - mu);
    double rstd = 1.0 / sqrt(ss / (double)d + eps);
    for (size_t i = 0; i < d; i++)
        xhat[i] = (x[i] - mu) * rstd;
    return rstd;
}

static int check(const float *x, const float *gamma, const float *dy, size_t rows,
                 size_t d, const void *dx, const void *dgamma, const char *who)
{
    if (rows > 0 && (d == 0 || !x || !gamma || !dy || !dx || !dgamma)) {
        nl_set_error("%s: d must be >= 1 and x, gamma, dy, dx, dgamma non-NULL", who);
        return NL_EARG;
    }
    return NL_OK;
}

// @snippet bwd-reference
int nl_backward_reference(nl_norm norm, const float *x, const float *gamma,
                          const float *dy, double eps, int weight_offset,
                          size_t rows, size_t d, double *dx, double *dgamma,
                          double *dbeta)
{
    int rc = check(x, gamma, dy, rows, d, dx, dgamma, "nl_backward_reference");
    if (rc != NL_OK || rows == 0)
        return rc;
    double *xr = malloc(3 * d * sizeof *xr);
    if (!xr)
        return NL_ENOMEM;
    double *xhat = xr + d, *g = xr + 2 * d;
    memset(dgamma, 0, d * sizeof *dgamma);
    if (dbeta && norm == NL_LAYERNORM)
        memset(dbeta, 0, d * sizeof *dbeta);
    for (size_t r = 0; r < rows; r++) {
        const float *dyr = dy + r * d;
        for (size_t i = 0; i < d; i++)
            xr[i] = x[r * d + i];
        double rstd = row_xhat(norm, xr, eps, d, xhat);
        double mean_g = 0.0, mean_gx = 0.0;
        for (size_t i = 0; i < d; i++) {
            g[i] = ((double)weight_offset + gamma[i]) * dyr[i];
            mean_g += g[i];
            mean_gx += g[i] * xhat[i];
        }
        mean_g /= (double)d;
        mean_gx /= (double)d;
        if (norm == NL_RMSNORM)
            mean_g = 0.0; /* no mean was subtracted: nothing to undo */
        for (size_t i = 0; i < d; i++) {
            dx[r * d + i] = rstd * (g[i] - mean_g - xhat[i] * mean_gx);
            dgamma[i] += dyr[i] * xhat[i];
            if (dbeta && norm == NL_LAYERNORM)
                dbeta[i] += dyr[i];
        }
    }
    free(xr);
    return NL_OK;
}
// @end

/* L_r = sum_i dy_i * y_i for one row, y = x-hat * gamma + beta, in double. */
static double row_loss(nl_norm norm, const double *x, const double *gamma, const double *beta,
                       const float *dy, double eps, size_t d, double *xhat)
{
    row_xhat(norm, x, eps, d, xhat);
    double loss = 0.0;
    for (size_t i = 0; i < d; i++)
        loss += dy[i] * (xhat[i] * gamma[i] + (norm == NL_LAYERNORM ? beta[i] : 0.0));
    return loss;
}

static double total_loss(nl_norm norm, const double *x, const double *gamma, const double *beta,
                         const float *dy, double eps, size_t rows, size_t d, double *xhat)
{
    double loss = 0.0;
    for (size_t r = 0; r < rows; r++)
        loss += row_loss(norm, x + r * d, gamma, beta, dy + r * d, eps, d, xhat);
    return loss;
}

/* fd_ = (L(p + step) - L(p - step)) / (2 step), p restored afterwards;
 * the step grows with |p| so that p +- step differ from p in double. */
#define CENTRAL(p, h, loss_expr)                              \
    do {                                                      \
        double p0_ = (p), step_ = (h) * fmax(1.0, fabs(p0_)); \
        (p) = p0_ + step_;                                    \
        double up_ = (loss_expr);                             \
        (p) = p0_ - step_;                                    \
        double down_ = (loss_expr);                           \
        (p) = p0_;                                            \
        fd_ = (up_ - down_) / (2.0 * step_);                  \
    } while (0)

int nl_backward_numeric(nl_norm norm, const float *x, const float *gamma,
                        const float *dy, double eps, int weight_offset,
                        double h, size_t rows, size_t d, double *dx,
                        double *dgamma, double *dbeta)
{
    int rc = check(x, gamma, dy, rows, d, dx, dgamma, "nl_backward_numeric");
    if (rc != NL_OK || rows == 0)
        return rc;
    if (!(h > 0.0)) {
        nl_set_error("nl_backward_numeric: the step h must be > 0, not %g", h);
        return NL_EARG;
    }
    double *xd = malloc((rows * d + 3 * d) * sizeof *xd);
    if (!xd)
        return NL_ENOMEM;
    double *g = xd + rows * d, *b = g + d, *xhat = b + d, fd_;
    for (size_t i = 0; i < rows * d; i++)
        xd[i] = x[i];
    for (size_t i = 0; i < d; i++) {
        g[i] = (double)weight_offset + gamma[i];
        b[i] = 0.0; /* beta shifts L by a constant: its value cannot matter */
    }
    /* x[r][i] moves only row r's loss. */
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < d; i++) {
            CENTRAL(xd[r * d + i], h, row_loss(norm, xd + r * d, g, b, dy + r * d, eps, d, xhat));
            dx[r * d + i] = fd_;
        }
    /* gamma moves every row's: the sum over rows is the derivative's. */
    for (size_t i = 0; i < d; i++) {
        CENTRAL(g[i], h, total_loss(norm, xd, g, b, dy, eps, rows, d, xhat));
        dgamma[i] = fd_;
        if (dbeta && norm == NL_LAYERNORM) {
            CENTRAL(b[i], h, total_loss(norm, xd, g, b, dy, eps, rows, d, xhat));
            dbeta[i] = fd_;
        }
    }
    free(xd);
    return NL_OK;
}

static double rel_err(const float *gf, const double *gd, const double *want, size_t n)
{
    double worst = 0.0, scale = 0.0;
    for (size_t i = 0; i < n; i++) {
        double got = gf ? (double)gf[i] : gd[i];
        double e = fabs(got - want[i]);
        if (isnan(e) && !isnan(want[i]))
            return NAN;
        if (e > worst)
            worst = e;
        if (fabs(want[i]) > scale)
            scale = fabs(want[i]);
    }
    return scale > 0.0 ? worst / scale : worst;
}

double nl_grad_rel_err(const float *got, const double *want, size_t n)
{
    return rel_err(got, NULL, want, n);
}

double nl_grad_rel_err_d(const double *got, const double *want, size_t n)
{
    return rel_err(NULL, got, want, n);
}
