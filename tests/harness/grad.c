/* grad.c — shared helpers of the backward suites (see grad.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grad.h"

size_t nl_bwd_count(nl_norm norm)
{
    size_t n, k = 0;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    for (size_t i = 0; i < n; i++)
        k += all[i].norm == norm && nl_name_selected(all[i].name);
    return k;
}

const nl_bwd_impl *nl_bwd_at(nl_norm norm, size_t i)
{
    size_t n;
    const nl_bwd_impl *all = nl_bwd_impls(&n);
    for (size_t j = 0; j < n; j++)
        if (all[j].norm == norm && nl_name_selected(all[j].name) && i-- == 0)
            return &all[j];
    ck_abort_msg("no %s backward implementation number %zu in this run", nl_norm_name(norm), i);
    return NULL;
}

static void *must_alloc(size_t bytes)
{
    void *p = nl_alloc(bytes ? bytes : 1);
    ck_assert_msg(p, "out of memory (%zu bytes)", bytes);
    return p;
}

void nl_bwd_problem_refresh(nl_bwd_problem *p)
{
    ck_assert_int_eq(nl_forward_stats(p->norm, p->x, p->eps, p->rows, p->d, p->mean, p->rstd), 0);
    ck_assert_int_eq(nl_backward_reference(p->norm, p->x, p->gamma, p->dy, p->eps, 0, p->rows,
                                           p->d, p->ref_dx, p->ref_dgamma, p->ref_dbeta), 0);
}

nl_bwd_problem nl_bwd_problem_new(nl_norm norm, size_t rows, size_t d, float eps, uint64_t seed)
{
    nl_bwd_problem p = {.norm = norm, .rows = rows, .d = d, .eps = eps};
    size_t n = rows * d;
    p.x = must_alloc(n * sizeof(float));
    p.dy = must_alloc(n * sizeof(float));
    p.dx = must_alloc(n * sizeof(float));
    p.gamma = must_alloc(d * sizeof(float));
    p.dgamma = must_alloc(d * sizeof(float));
    p.dbeta = must_alloc(d * sizeof(float));
    p.mean = must_alloc(rows * sizeof(float));
    p.rstd = must_alloc(rows * sizeof(float));
    p.ref_dx = must_alloc(n * sizeof(double));
    p.ref_dgamma = must_alloc(d * sizeof(double));
    p.ref_dbeta = must_alloc(d * sizeof(double));
    nl_fill_gauss(p.x, n, 0.3, 1.5, seed);
    for (size_t r = 0; r < rows; r++) {
        float scale = rows > 1 ? powf(10.0f, -1.0f + 2.0f * (float)r / (float)(rows - 1)) : 3.0f;
        for (size_t i = 0; i < d; i++)
            p.x[r * d + i] *= scale;
    }
    nl_fill_gauss(p.gamma, d, 1.0, 0.5, seed + 1);
    nl_fill_gauss(p.dy, n, 0.0, 1.0, seed + 2);
    nl_bwd_problem_refresh(&p);
    return p;
}

void nl_bwd_problem_free(nl_bwd_problem *p)
{
    float *f[] = {p->x, p->gamma, p->dy, p->mean, p->rstd, p->dx, p->dgamma, p->dbeta};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        nl_free(f[i]);
    nl_free(p->ref_dx);
    nl_free(p->ref_dgamma);
    nl_free(p->ref_dbeta);
}

void nl_bwd_run(const nl_bwd_impl *impl, nl_bwd_problem *p)
{
    memset(p->dgamma, 0, p->d * sizeof(float));
    memset(p->dbeta, 0, p->d * sizeof(float));
    memset(p->dx, 0xff, p->rows * p->d * sizeof(float));
    int ln = impl->norm == NL_LAYERNORM;
    int rc = impl->fn(p->x, p->gamma, ln ? p->mean : NULL, p->rstd, p->dy, p->rows, p->d,
                      p->dx, p->dgamma, ln ? p->dbeta : NULL);
    ck_assert_msg(rc == 0, "%s failed on a %zu x %zu input (code %d): %s", impl->name,
                  p->rows, p->d, rc, nl_last_error());
}

/* dx's error relative to the size of its terms: when rstd * g and the
 * coupling nearly cancel (d = 1, where dx ~ eps), max |dx| is no scale. */
static double dx_err(const nl_bwd_problem *p)
{
    double worst = 0.0, scale = 0.0;
    for (size_t r = 0; r < p->rows; r++)
        for (size_t i = 0; i < p->d; i++) {
            size_t k = r * p->d + i;
            double e = fabs(p->dx[k] - p->ref_dx[k]);
            if (isnan(e))
                return NAN;
            worst = fmax(worst, e);
            scale = fmax(scale, fmax(fabs(p->ref_dx[k]), p->rstd[r] * fabs(p->gamma[i] * p->dy[k])));
        }
    return scale > 0.0 ? worst / scale : worst;
}

nl_bwd_errs nl_bwd_errors(const nl_bwd_problem *p)
{
    nl_bwd_errs e = {dx_err(p), nl_grad_rel_err(p->dgamma, p->ref_dgamma, p->d), 0.0};
    if (p->norm == NL_LAYERNORM)
        e.dbeta = nl_grad_rel_err(p->dbeta, p->ref_dbeta, p->d);
    return e;
}

/* The mistakes a derivation of dx most often makes, each as the dx it
 * would give: rstd * (g - a * mean_g) - k * (x - mu) * mean(g * (x - mu)),
 * where the right answer has a = 1 (LayerNorm; 0 for RMSNorm) and
 * k = rstd^3. */
typedef struct { const char *what; double a_factor; int k_power; double k_sign; int ln_only; } mistake;
static const mistake mistakes[] = {
    {"It matches the gradient where the coupling term is missing: dx = rstd * g%s. The error is rstd^3 * x * mean(g * x) "
     "(x - mean in place of x for LayerNorm), proportional to mean(g * x) row by row: moving x[i] also moves "
     "rstd, and through it every y of the row", 1.0, 0, 0.0, 0},
    {"It matches the gradient where the coupling term uses rstd where it needs rstd^3%s. d rstd / d x[i] = -rstd^3 * "
     "(x[i] - mean) / d: rstd = (ms + eps)^(-1/2), and the chain rule brings out a power -3/2",
     1.0, 1, 1.0, 0},
    {"It matches the gradient where the coupling term has the wrong sign%s: rstd falls as |x| grows, so the term is "
     "subtracted", 1.0, 3, -1.0, 0},
    {"It matches the gradient where the mean(g) term is missing%s: LayerNorm subtracts the mean, so moving x[i] moves "
     "every x-hat of the row by -rstd / d", 0.0, 3, 1.0, 1},
};

void nl_bwd_diagnose_dx(const nl_bwd_problem *p, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t rows = p->rows, d = p->d;
    double *cand = malloc(rows * d * sizeof *cand);
    if (!cand)
        return;
    int ln = p->norm == NL_LAYERNORM;
    size_t zeros = 0;
    for (size_t k = 0; k < rows * d; k++)
        zeros += p->dx[k] == 0.0f;
    if (zeros == rows * d && rows * d > 1) {
        snprintf(buf, n, "Every dx is 0: is dx written at all? dx[i] = dL/dx[i] has a direct "
                 "term, rstd * g[i], and a coupling term through rstd");
        free(cand);
        return;
    }
    for (size_t m = 0; m < sizeof mistakes / sizeof mistakes[0]; m++) {
        const mistake *mk = &mistakes[m];
        if (mk->ln_only && !ln)
            continue;
        for (size_t r = 0; r < rows; r++) {
            const float *xr = p->x + r * d, *dyr = p->dy + r * d;
            double mu = 0.0, ss = 0.0, sg = 0.0, sgx = 0.0;
            for (size_t i = 0; i < d; i++)
                mu += ln ? xr[i] : 0.0;
            mu /= (double)d;
            for (size_t i = 0; i < d; i++) {
                double c = xr[i] - mu, g = (double)p->gamma[i] * dyr[i];
                ss += c * c;
                sg += g;
                sgx += g * c;
            }
            double rs = 1.0 / sqrt(ss / (double)d + p->eps);
            double a = ln ? mk->a_factor * sg / (double)d : 0.0;
            double k = mk->k_sign * pow(rs, mk->k_power);
            for (size_t i = 0; i < d; i++)
                cand[r * d + i] = rs * ((double)p->gamma[i] * dyr[i] - a) -
                                  k * (xr[i] - mu) * sgx / (double)d;
        }
        if (nl_grad_rel_err(p->dx, cand, rows * d) < 1e-4) {
            snprintf(buf, n, mk->what, ln ? " - rstd * mean(g)" : "");
            break;
        }
    }
    free(cand);
}

void nl_bwd_diagnose_dbeta(const nl_bwd_problem *p, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t k = p->rows < p->d ? p->rows : p->d, same = 0;
    for (size_t r = 0; r < k; r++) {
        double s = 0.0;
        for (size_t i = 0; i < p->d; i++)
            s += p->dy[r * p->d + i];
        same += fabs(p->dbeta[r] - s) <= 1e-4 * (1.0 + fabs(s));
    }
    if (k > 1 && same == k)
        snprintf(buf, n, "dbeta[r] holds the sum of row r of dy: summed over the wrong axis. "
                 "beta[i] is added to column i of every row, so dbeta[i] = sum over rows "
                 "of dy[r][i]");
}
