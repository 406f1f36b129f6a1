/* gradcheck.c — `normlab gradcheck`: are the backward passes right?
 *
 * Step 1 checks the derivation: the analytic gradient in double against
 * central finite differences of the forward, also in double.  Step 2
 * checks the kernels: every registered float backward against that
 * analytic gradient, each tensor's relative error against the
 * implementation's stated bound.  Step 3 checks the invariants the norms
 * owe their gradient: sum dx = 0 per row (LayerNorm), x . dx = 0 per row
 * (RMSNorm, with eps = 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "commands.h"
#include "normlab.h"

#define FD_STEP 1e-6
#define FD_BOUND 1e-6
#define FD_MAX_WORK 3e8 /* rows * d^2: the finite differences' cost */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: normlab gradcheck [--norm ln|rms|both] [--rows R] [--d D] [--eps E] [--gemma]\n"
            "\n"
            "Checks the backward passes of chapter 10 on random data (x ~ N(0.3, 1.5^2), each row\n"
            "scaled by 0.1 to 10; gamma ~ N(1, 0.5^2); dy ~ N(0, 1)):\n"
            "  1. the analytic gradient in double against central finite differences (h = 1e-6)\n"
            "  2. every registered float backward against the analytic gradient\n"
            "  3. the invariants: sum dx = 0 per row (LayerNorm), x . dx = 0 (RMSNorm, --eps 0)\n"
            "Each tensor's error is relative, max |got - want| / max |want|, next to its bound.\n"
            "\n"
            "  --norm ln|rms|both  which norm (default both)\n"
            "  --rows R            rows (default 16)\n"
            "  --d D               values per row, at least 3 for LayerNorm, 2 for RMSNorm\n"
            "                      (below that the output does not depend on x) (default 67)\n"
            "  --eps E             eps inside the square root (default 1e-5; 0 allowed)\n"
            "  --gemma             RMSNorm scales by (1 + w), Gemma's form (gamma ~ N(0, 0.3^2))\n"
            "\n"
            "Exit status: 0 when every bound holds, 1 when one is broken, 2 on bad usage.\n");
}

typedef struct {
    size_t rows, d;
    float eps;
    int gemma;
    float *x, *w, *gamma, *dy, *mean, *rstd, *dx, *dgamma, *dbeta;
    double *a_dx, *a_dgamma, *a_dbeta, *n_dx, *n_dgamma, *n_dbeta;
} problem;

static void fill(problem *p, nl_norm norm)
{
    nl_pyrandom rng;
    nl_pyrandom_seed(&rng, 10);
    for (size_t r = 0; r < p->rows; r++) {
        double scale = p->rows > 1 ? pow(10.0, -1.0 + 2.0 * (double)r / (double)(p->rows - 1)) : 1.0;
        for (size_t i = 0; i < p->d; i++)
            p->x[r * p->d + i] = (float)(scale * nl_pyrandom_gauss(&rng, 0.3, 1.5));
    }
    int offset = p->gemma && norm == NL_RMSNORM;
    for (size_t i = 0; i < p->d; i++) {
        p->w[i] = (float)(offset ? nl_pyrandom_gauss(&rng, 0.0, 0.3) : nl_pyrandom_gauss(&rng, 1.0, 0.5));
        /* what the float kernels get: the scale the forward applies, as
         * Gemma's forward forms it, in float */
        p->gamma[i] = offset ? 1.0f + p->w[i] : p->w[i];
    }
    for (size_t i = 0; i < p->rows * p->d; i++)
        p->dy[i] = (float)nl_pyrandom_gauss(&rng, 0.0, 1.0);
}

static const char *verdict(double err, double bound, int *broken)
{
    if (err <= bound)
        return "ok";
    *broken = 1;
    return "BROKEN";
}

static int step_fd(const problem *p, nl_norm norm, int *broken)
{
    int offset = p->gemma && norm == NL_RMSNORM;
    size_t n = p->rows * p->d;
    if (nl_backward_reference(norm, p->x, p->w, p->dy, p->eps, offset, p->rows, p->d, p->a_dx,
                              p->a_dgamma, p->a_dbeta) != NL_OK ||
        nl_backward_numeric(norm, p->x, p->w, p->dy, p->eps, offset, FD_STEP, p->rows, p->d,
                            p->n_dx, p->n_dgamma, p->n_dbeta) != NL_OK) {
        fprintf(stderr, "normlab gradcheck: %s\n", nl_last_error());
        return 1;
    }
    printf("1. analytic gradient (double) vs central differences (double, h = %.0e)\n", FD_STEP);
    printf("   %-8s %12s %8s\n", "tensor", "rel. error", "bound");
    const char *names[] = {"dx", offset ? "dw" : "dgamma", "dbeta"};
    const double *a[] = {p->a_dx, p->a_dgamma, p->a_dbeta}, *num[] = {p->n_dx, p->n_dgamma, p->n_dbeta};
    size_t len[] = {n, p->d, p->d};
    for (int t = 0; t < (norm == NL_LAYERNORM ? 3 : 2); t++) {
        double e = nl_grad_rel_err_d(a[t], num[t], len[t]);
        printf("   %-8s %12.2e %8.0e  %s\n", names[t], e, FD_BOUND, verdict(e, FD_BOUND, broken));
    }
    return 0;
}

/* Worst |sum_i v[i] * dx[i]| / sum_i |v[i] * dx[i]| over the rows, with
 * v = 1 (LayerNorm) or v = x (RMSNorm). */
static double invariant_residual(const problem *p, nl_norm norm, const float *dxf, const double *dxd)
{
    double worst = 0.0;
    for (size_t r = 0; r < p->rows; r++) {
        double s = 0.0, mag = 0.0;
        for (size_t i = 0; i < p->d; i++) {
            size_t k = r * p->d + i;
            double v = norm == NL_LAYERNORM ? 1.0 : p->x[k];
            double t = v * (dxf ? (double)dxf[k] : dxd[k]);
            s += t;
            mag += fabs(t);
        }
        if (mag > 0.0 && fabs(s) / mag > worst)
            worst = fabs(s) / mag;
    }
    return worst;
}

static int step_impls(const problem *p, nl_norm norm, int *broken)
{
    int ln = norm == NL_LAYERNORM, inv = ln || p->eps == 0.0f;
    const double inv_bound = 1e-5;
    printf("\n2. float implementations vs the analytic gradient (relative error)\n");
    if (inv)
        printf("   inv: %s over the worst row (0 for an exact gradient)\n",
               ln ? "|sum dx| / sum |dx|" : "|x . dx| / sum |x dx|");
    printf("   %-22s %10s %10s %10s %10s %8s\n", "implementation", "dx", ln ? "dgamma" : p->gemma ? "dw" : "dgamma",
           ln ? "dbeta" : "", inv ? "inv" : "", "bound");
    if (inv)
        printf("   %-22s %10s %10s %10s %10.2e %8s\n", "(double reference)", "", "", "",
               invariant_residual(p, norm, NULL, p->a_dx), "");
    size_t count;
    const nl_bwd_impl *all = nl_bwd_impls(&count);
    for (size_t k = 0; k < count; k++) {
        const nl_bwd_impl *im = &all[k];
        if (im->norm != norm)
            continue;
        const char *why = nl_bwd_impl_unavailable(im);
        if (why) {
            printf("   %-22s skipped: %s\n", im->name, why);
            continue;
        }
        memset(p->dgamma, 0, p->d * sizeof(float));
        memset(p->dbeta, 0, p->d * sizeof(float));
        int rc = im->fn(p->x, p->gamma, ln ? p->mean : NULL, p->rstd, p->dy, p->rows, p->d,
                        p->dx, p->dgamma, ln ? p->dbeta : NULL);
        if (rc != NL_OK) {
            printf("   %-22s FAILED: returned %d: %s\n", im->name, rc, nl_last_error());
            *broken = 1;
            continue;
        }
        double e[3] = {nl_grad_rel_err(p->dx, p->a_dx, p->rows * p->d),
                       nl_grad_rel_err(p->dgamma, p->a_dgamma, p->d),
                       ln ? nl_grad_rel_err(p->dbeta, p->a_dbeta, p->d) : 0.0};
        double worst = fmax(e[0], fmax(e[1], e[2]));
        double r = inv ? invariant_residual(p, norm, p->dx, NULL) : 0.0;
        char cols[3][16] = {"", "", ""};
        if (ln)
            snprintf(cols[0], sizeof cols[0], "%.2e", e[2]);
        if (inv)
            snprintf(cols[1], sizeof cols[1], "%.2e", r);
        printf("   %-22s %10.2e %10.2e %10s %10s %8.0e  %s\n", im->name, e[0], e[1], cols[0],
               cols[1], im->tol, !(r <= inv_bound) ? "BROKEN (invariant)" : verdict(worst, im->tol, broken));
        if (!(r <= inv_bound))
            *broken = 1;
    }
    if (inv)
        printf("   (inv bound %.0e: float rounding of each dx, summed over a row)\n", inv_bound);
    return 0;
}

static int check_norm(problem *p, nl_norm norm, int *broken)
{
    fill(p, norm);
    printf("%s%s, %zu x %zu, eps %g\n\n", nl_norm_name(norm),
           p->gemma && norm == NL_RMSNORM ? " with (1 + w) (Gemma)" : "", p->rows, p->d, (double)p->eps);
    if (step_fd(p, norm, broken))
        return 1;
    if (nl_forward_stats(norm, p->x, p->eps, p->rows, p->d, p->mean, p->rstd) != NL_OK) {
        fprintf(stderr, "normlab gradcheck: %s\n", nl_last_error());
        return 1;
    }
    step_impls(p, norm, broken);
    return 0;
}

static int parse_norm(const char *v, void *dest)
{
    int *norms = dest;
    if (!strcmp(v, "ln") || !strcmp(v, "layernorm"))
        *norms = 1;
    else if (!strcmp(v, "rms") || !strcmp(v, "rmsnorm"))
        *norms = 2;
    else if (!strcmp(v, "both"))
        *norms = 3;
    else {
        nl_set_error("must be ln, rms or both");
        return 0;
    }
    return 1;
}

static int parse_eps(const char *v, void *dest)
{
    char *end;
    double e = strtod(v, &end);
    if (end == v || *end || !(e >= 0.0) || e > 1.0) {
        nl_set_error("must be a number from 0 to 1");
        return 0;
    }
    *(float *)dest = (float)e;
    return 1;
}

/* 1: go on; 0: return *code (0 after --help, 2 after a message). */
static int parse(int argc, char **argv, int *norms, problem *p, int *code)
{
    const nl_option opts[] = {
        {"--norm", NL_OPT_CUSTOM, norms, 0, parse_norm, NULL},
        {"--rows", NL_OPT_SIZE, &p->rows, 1u << 20, NULL, NULL},
        {"--d", NL_OPT_SIZE, &p->d, 1u << 20, NULL, NULL},
        {"--eps", NL_OPT_CUSTOM, &p->eps, 0, parse_eps, NULL},
        {"--gemma", NL_OPT_FLAG, &p->gemma, 0, NULL, NULL},
    };
    if (!nl_options_parse("gradcheck", opts, NL_COUNT(opts), argc, argv, NULL, usage, code))
        return 0;
    *code = 2;
    if (p->d < 2)
        return !nl_usage_error("gradcheck", "--d must be at least 2: with one value per row the "
                              "output is constant (LayerNorm) or +-1 (RMSNorm), and the "
                              "gradient is rounding noise");
    /* LayerNorm of two values is (a, -a)/sqrt(a^2 + eps): +-1 up to eps,
     * whatever x is, so its true dx is of order eps/a^3 while a float
     * kernel's terms are of order 1/a; their difference is all rounding
     * (relative errors of 1e-4 and more, |sum dx| / sum |dx| of 0.1 at
     * eps 1e-5), not a fault of the kernel. */
    if ((*norms & 1) && p->d < 3)
        return !nl_usage_error("gradcheck", "--d 2 with LayerNorm: its output is +-1 whatever "
                              "two values are (up to eps), so the gradient is of order eps "
                              "and float rounding is all of it; use --d 3 or more (or --norm "
                              "rms, which is defined from --d 2)");
    double work = (double)p->rows * (double)p->d * (double)p->d;
    if (work > FD_MAX_WORK)
        return !nl_usage_error("gradcheck", "--rows %zu --d %zu: the finite differences cost rows "
                              "x d^2 = %.3g steps; keep it under %.0e (e.g. --rows 16 --d 1024)",
                              p->rows, p->d, work, FD_MAX_WORK);
    return 1;
}

int cmd_gradcheck(int argc, char **argv)
{
    problem p = {.rows = 16, .d = 67, .eps = 1e-5f};
    int norms = 3, rc;
    if (!parse(argc, argv, &norms, &p, &rc))
        return rc;
    rc = 0;
    size_t n = p.rows * p.d, d = p.d;
    float *f = nl_alloc((3 * n + 5 * d + 2 * p.rows) * sizeof(float));
    double *g = nl_alloc((2 * n + 4 * d) * sizeof(double));
    if (!f || !g) {
        fprintf(stderr, "normlab gradcheck: out of memory for %zu x %zu\n", p.rows, p.d);
        nl_free(f);
        nl_free(g);
        return 1;
    }
    p.x = f, p.dy = f + n, p.dx = f + 2 * n, p.w = f + 3 * n, p.gamma = p.w + d;
    p.dgamma = p.gamma + d, p.dbeta = p.dgamma + d, p.mean = p.dbeta + d, p.rstd = p.mean + p.rows;
    p.a_dx = g, p.n_dx = g + n, p.a_dgamma = g + 2 * n, p.n_dgamma = p.a_dgamma + d;
    p.a_dbeta = p.n_dgamma + d, p.n_dbeta = p.a_dbeta + d;
    int broken = 0;
    for (int k = 0; k < 2 && rc == 0; k++)
        if (norms & (1 << k)) {
            if (k == 1 && (norms & 1))
                printf("\n");
            rc = check_norm(&p, k ? NL_RMSNORM : NL_LAYERNORM, &broken);
        }
    nl_free(f);
    nl_free(g);
    if (rc)
        return rc;
    printf("\n%s\n", broken ? "gradcheck: a bound is BROKEN (see above)" : "gradcheck: every bound holds");
    return broken ? 1 : 0;
}
