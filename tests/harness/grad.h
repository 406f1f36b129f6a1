/* grad.h — what the backward suites (tests/check_backward_*.c) share:
 * iteration over the backward registry, a problem with its double
 * reference, and a diagnosis of a wrong dx that names the wrong term. */
#ifndef NL_GRAD_H
#define NL_GRAD_H

#include "harness.h"

/* The backward implementations of `norm` that NL_IMPLS selects. */
size_t nl_bwd_count(nl_norm norm);
const nl_bwd_impl *nl_bwd_at(nl_norm norm, size_t i);
/* Loop tests: one per selected implementation of `norm`, skipping (with
 * the reason) one that cannot run here. */
#define NL_BWD_OR_SKIP(var, norm, i)                                      \
    const nl_bwd_impl *var = nl_bwd_at((norm), (i));                      \
    NL_SKIP_UNLESS_RUNS(var->name, var->requires, nl_bwd_impl_unavailable(var))

/* A rows x d backward problem: inputs, saved statistics, outputs and the
 * double reference (ref_*). */
typedef struct {
    nl_norm norm;
    size_t rows, d;
    float eps;
    float *x, *gamma, *dy, *mean, *rstd;    /* inputs (mean: LayerNorm) */
    float *dx, *dgamma, *dbeta;             /* outputs */
    double *ref_dx, *ref_dgamma, *ref_dbeta;
} nl_bwd_problem;

/* x ~ N(0.3, 1.5^2) with each row scaled by a factor from 0.1 to 10 (so
 * rstd ranges over two decades), gamma ~ N(1, 0.5^2), dy ~ N(0, 1);
 * the statistics from nl_forward_stats and the double reference. */
nl_bwd_problem nl_bwd_problem_new(nl_norm norm, size_t rows, size_t d, float eps, uint64_t seed);
/* Recomputes statistics and reference after a test changed the inputs. */
void nl_bwd_problem_refresh(nl_bwd_problem *p);
void nl_bwd_problem_free(nl_bwd_problem *p);

/* Zeroes dgamma/dbeta, poisons dx with NaN, runs impl; fails the test
 * with the library's message when the call fails. */
void nl_bwd_run(const nl_bwd_impl *impl, nl_bwd_problem *p);

/* Relative errors of the three outputs against the reference (dx's
 * relative to the larger of |dx| and |rstd * g|: see grad.c). */
typedef struct { double dx, dgamma, dbeta; } nl_bwd_errs;
nl_bwd_errs nl_bwd_errors(const nl_bwd_problem *p);

/* What a wrong dx looks like: which known mistake it matches (the
 * coupling term dropped, rstd for rstd^3, the mean(g) term dropped, the
 * coupling's sign), written into buf as a hint; "" when none fits. */
void nl_bwd_diagnose_dx(const nl_bwd_problem *p, char *buf, size_t n);
/* Same for dbeta: summed over the wrong axis (per row, not per column). */
void nl_bwd_diagnose_dbeta(const nl_bwd_problem *p, char *buf, size_t n);

#endif
