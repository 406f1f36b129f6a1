/* measure.c — check an implementation, then time it against a copy.
 *
 * Two rules: nothing is timed before it has been checked against the
 * double reference (a fast wrong answer is not a result), and every
 * kernel sample is paired with copy samples of the same bytes taken
 * moments apart, so that a neighbour's burst of traffic on a shared
 * machine slows both and leaves their ratio, the headline figure, alone. */
#include "bench/bench.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- data */

/* A counter-based generator: value i depends on (seed, i) only, so the
 * threads can fill their own rows (placing the pages near them) and the
 * data is still the same whatever the thread count. */
static double unit(unsigned long long seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53; /* [0, 1) */
}

int nl_bench_data_new(nl_bench_data *b, size_t rows, size_t d, unsigned long long seed)
{
    memset(b, 0, sizeof *b);
    b->rows = rows;
    b->d = d;
    b->eps = 1e-5f;
    b->x = nl_alloc(rows * d * sizeof(float));
    b->y = nl_alloc(rows * d * sizeof(float));
    b->gamma = nl_alloc(d * sizeof(float));
    b->beta = nl_alloc(d * sizeof(float));
    if (!b->x || !b->y || !b->gamma || !b->beta) {
        nl_bench_data_free(b);
        return NL_ENOMEM;
    }
    float *x = b->x, *y = b->y;
    /* Uniform on [-sqrt 3, sqrt 3]: mean 0, variance 1, the unit scale the
     * registry's tolerances are stated for. */
    const double half_width = sqrt(3.0);
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < rows; r++) {
        for (size_t i = 0; i < d; i++) {
            x[r * d + i] = (float)((2.0 * unit(seed, r * d + i) - 1.0) * half_width);
            y[r * d + i] = 0.0f; /* touch the output pages now, not inside a timed call */
        }
    }
    /* gamma <= 1 keeps the output on the same scale as unit data; both
     * vary so that an implementation that drops one of them is caught. */
    for (size_t i = 0; i < d; i++) {
        b->gamma[i] = (float)(0.5 + 0.5 * unit(seed ^ 0x5eed, i));
        b->beta[i] = (float)(unit(seed ^ 0xbe7a, i) - 0.5);
    }
    return 0;
}

void nl_bench_data_free(nl_bench_data *b)
{
    nl_free(b->x);
    nl_free(b->y);
    nl_free(b->gamma);
    nl_free(b->beta);
    b->x = b->y = b->gamma = b->beta = NULL;
}

/* ----------------------------------------------------------- validation */

/* Up to this many elements every row is checked; beyond, a sample of rows.
 * The reference is double and single-threaded, so checking all of a
 * 512 MiB problem would cost more than timing it. */
#define FULL_CHECK_ELEMS ((size_t)1 << 22)
#define SAMPLE_ROWS 256

double nl_bench_validate(nl_norm norm, nl_forward_fn fn, const nl_bench_data *b, int *rc)
{
    const float *beta = norm == NL_LAYERNORM ? b->beta : NULL;
    *rc = fn(b->x, b->gamma, beta, b->eps, b->rows, b->d, b->y);
    if (*rc)
        return NAN;
    double *ref = malloc(b->d * sizeof *ref);
    if (!ref) {
        *rc = NL_ENOMEM;
        return NAN;
    }
    int all = b->rows * b->d <= FULL_CHECK_ELEMS || b->rows <= SAMPLE_ROWS;
    size_t checks = all ? b->rows : SAMPLE_ROWS;
    double worst = 0.0;
    for (size_t k = 0; k < checks; k++) {
        size_t r = all ? k : k * (b->rows - 1) / (SAMPLE_ROWS - 1);
        const float *xr = b->x + r * b->d;
        const float *yr = b->y + r * b->d;
        nl_reference(norm, xr, b->gamma, beta, (double)b->eps, 1, b->d, ref);
        double e = nl_max_abs_diff(yr, ref, b->d);
        if (isnan(e)) {
            free(ref);
            return NAN;
        }
        if (e > worst)
            worst = e;
    }
    free(ref);
    return worst;
}

/* --------------------------------------------------------------- timing */

/* A sample shorter than this is dominated by the clock and the thread
 * start-up, so small problems are run several times per sample. */
#define MIN_SAMPLE_S 2e-3
#define MAX_REPS 100000

static double time_call(nl_bench_call call, void *ctx, size_t reps, int *rc)
{
    double t0 = nl_now();
    for (size_t k = 0; k < reps; k++) {
        int r = call(ctx);
        if (r && !*rc)
            *rc = r;
    }
    return (nl_now() - t0) / (double)reps;
}

/* The copy roofs copy whole floats: a 16-bit problem of an odd count
 * copies one 2-byte element more, which no measurement can see. */
static double time_copy(nl_copy_kind kind, const void *src, void *dst, size_t bytes, size_t reps)
{
    double t0 = nl_now();
    for (size_t k = 0; k < reps; k++)
        nl_copy(kind, src, dst, (bytes + sizeof(float) - 1) / sizeof(float));
    return (nl_now() - t0) / (double)reps;
}

typedef struct {
    nl_forward_fn fn;
    const float *beta;
    const nl_bench_data *b;
} f32_call;

static int call_f32(void *ctx)
{
    const f32_call *c = ctx;
    return c->fn(c->b->x, c->b->gamma, c->beta, c->b->eps, c->b->rows, c->b->d, c->b->y);
}

int nl_bench_time(nl_forward_fn fn, nl_norm norm, const nl_bench_data *b,
                  size_t samples, nl_bench_row *row)
{
    f32_call c = {fn, norm == NL_LAYERNORM ? b->beta : NULL, b};
    return nl_bench_time_call(call_f32, &c, b->x, b->y, b->rows * b->d * sizeof(float),
                              samples, row);
}

int nl_bench_time_call(nl_bench_call call, void *ctx, const void *src, void *dst,
                       size_t bytes_each_way, size_t samples, nl_bench_row *row)
{
    int rc = 0;
    if (samples == 0)
        samples = 1;

    /* Warm-up: page tables, caches, the thread pool, CPU clocks. */
    time_call(call, ctx, 1, &rc);
    for (int c = 0; c < NL_COPY_KINDS; c++)
        time_copy((nl_copy_kind)c, src, dst, bytes_each_way, 1);
    double once = time_call(call, ctx, 1, &rc);
    size_t reps = once >= MIN_SAMPLE_S ? 1 : (size_t)ceil(MIN_SAMPLE_S / fmax(once, 1e-9));
    if (reps > MAX_REPS)
        reps = MAX_REPS;

    double *kern = malloc(samples * sizeof *kern);
    double *copy = malloc(NL_COPY_KINDS * samples * sizeof *copy);
    double *ratio = malloc(samples * sizeof *ratio);
    if (!kern || !copy || !ratio) {
        free(kern), free(copy), free(ratio);
        return NL_ENOMEM;
    }
    // @snippet bench-pairing
    for (size_t s = 0; s < samples && !rc; s++) {
        /* Alternate the order so neither side always runs on a cache or
         * clock state the other left behind. */
        if (s % 2 == 0)
            kern[s] = time_call(call, ctx, reps, &rc);
        for (int c = 0; c < NL_COPY_KINDS; c++)
            copy[c * samples + s] = time_copy((nl_copy_kind)c, src, dst, bytes_each_way, reps);
        if (s % 2 == 1)
            kern[s] = time_call(call, ctx, reps, &rc);
    }
    // @end
    if (rc) {
        free(kern), free(copy), free(ratio);
        return rc;
    }

    /* The roof is the fastest way this machine copied these bytes in this
     * run: choosing a slower one would flatter every kernel. */
    double bytes = 2.0 * (double)bytes_each_way;
    int roof = 0;
    double roof_median = INFINITY;
    for (int c = 0; c < NL_COPY_KINDS; c++) {
        /* nl_summarize sorts in place: sort a scratch copy (ratio, not
         * needed yet) so that the pairs stay in step. */
        memcpy(ratio, copy + c * samples, samples * sizeof *ratio);
        double med = nl_summarize(ratio, samples).median;
        row->copy_gbps_by_kind[c] = bytes / med / 1e9;
        if (med < roof_median)
            roof_median = med, roof = c;
    }
    for (size_t s = 0; s < samples; s++)
        ratio[s] = copy[roof * samples + s] / kern[s];
    nl_stats k = nl_summarize(kern, samples);
    nl_stats f = nl_summarize(ratio, samples);

    row->samples = samples;
    row->reps = reps;
    row->median_s = k.median;
    row->p10_s = k.p10;
    row->p90_s = k.p90;
    row->gbps = bytes / k.median / 1e9;
    row->copy_gbps = bytes / roof_median / 1e9;
    row->roof = nl_copy_name((nl_copy_kind)roof);
    row->frac_copy = f.median;
    row->frac_p10 = f.p10;
    row->frac_p90 = f.p90;
    free(kern), free(copy), free(ratio);
    return 0;
}
