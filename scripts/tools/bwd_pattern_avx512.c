/* bwd_pattern_avx512.c — `make bwd-pattern`: how close to the copy the
 * backward's access pattern itself can get on one thread, beside the
 * stream rung, all timed in one run (chapter 10, "Where the time goes").
 *
 *   copy      read x, stream x to dx: the roof, 8 bytes per element
 *   pattern   read x and dy, stream x + dy to dx: the backward's 12 bytes,
 *             one pass, no arithmetic to speak of
 *   twopass4  four rows at a time: a pass summing x*dy, then the four rows
 *             re-read (from L2) and streamed out: the rung's shape
 *   twopass4, next ...  the same with the next four rows asked for into
 *             L2: in the dx pass (the stream rung's schedule until
 *             "Both passes ask" in chapter 10's lab notebook), in the
 *             first pass, or x in the first and dy in the dx pass (the
 *             rung's now)
 *   the stream and skew rungs on the same arrays
 *
 * Each sample times the copy and then every kernel; a kernel's fraction
 * of copy is (12 / its time) / (8 / that sample's copy time), and the
 * median and the 10th..90th percentile over samples are printed.
 * Usage: bwd-pattern [ROWS D SAMPLES] (default 16384 8192 9). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "normlab.h"

enum { NK = 10 }; /* kernels timed */
static size_t R = 16384, D = 8192;
static float *x, *dy, *dx, *gam, *dg, *db, *mu, *rs;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void copy(void)
{
    for (size_t i = 0; i < R * D; i += 16)
        _mm512_stream_ps(dx + i, _mm512_load_ps(x + i));
    _mm_sfence();
}

static void pattern(void)
{
    for (size_t i = 0; i < R * D; i += 16)
        _mm512_stream_ps(dx + i, _mm512_add_ps(_mm512_load_ps(x + i), _mm512_load_ps(dy + i)));
    _mm_sfence();
}

/* Four rows at a time, two passes; the next four rows' x and dy are
 * asked for into L2 in the pass named (NONE: not at all). */
enum { NONE, SUM, OUT };
static inline __attribute__((always_inline)) void two_passes(int x_at, int dy_at)
{
    for (size_t r = 0; r + 4 <= R; r += 4) {
        const float *a = x + r * D, *b = dy + r * D;
        const int more = r + 8 <= R;
        const float *na = a + 4 * D, *nb = b + 4 * D;
        __m512 s = _mm512_setzero_ps();
        for (size_t i = 0; i < 4 * D; i += 16) {
            if (more && x_at == SUM)
                _mm_prefetch((const char *)(na + i), _MM_HINT_T1);
            if (more && dy_at == SUM)
                _mm_prefetch((const char *)(nb + i), _MM_HINT_T1);
            s = _mm512_fmadd_ps(_mm512_load_ps(a + i), _mm512_load_ps(b + i), s);
        }
        __m512 m = _mm512_set1_ps(_mm512_reduce_add_ps(s) * 1e-9f);
        for (size_t i = 0; i < 4 * D; i += 16) {
            if (more && x_at == OUT)
                _mm_prefetch((const char *)(na + i), _MM_HINT_T1);
            if (more && dy_at == OUT)
                _mm_prefetch((const char *)(nb + i), _MM_HINT_T1);
            _mm512_stream_ps(dx + r * D + i,
                             _mm512_fmadd_ps(_mm512_load_ps(a + i), m, _mm512_load_ps(b + i)));
        }
    }
    _mm_sfence();
}
static void twopass4(void) { two_passes(NONE, NONE); }
static void pf_dx(void) { two_passes(OUT, OUT); }
static void pf_sum(void) { two_passes(SUM, SUM); }
static void pf_both(void) { two_passes(SUM, OUT); }

static const nl_bwd_impl *ln_rung, *rms_rung, *ln_skew, *rms_skew;
static void run_rung(const nl_bwd_impl *im)
{
    int ln = im->norm == NL_LAYERNORM;
    im->fn(x, gam, ln ? mu : NULL, rs, dy, R, D, dx, dg, ln ? db : NULL);
}
static void ln_stream(void) { run_rung(ln_rung); }
static void rms_stream(void) { run_rung(rms_rung); }
static void ln_skewed(void) { run_rung(ln_skew); }
static void rms_skewed(void) { run_rung(rms_skew); }

static int cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}

int main(int argc, char **argv)
{
    size_t samples = 9;
    if (argc == 4) {
        R = strtoul(argv[1], NULL, 10), D = strtoul(argv[2], NULL, 10);
        samples = strtoul(argv[3], NULL, 10);
    } else if (argc != 1) {
        fprintf(stderr, "usage: bwd-pattern [ROWS D SAMPLES]\n");
        return 2;
    }
    if (R < 4 || R % 4 || D < 16 || D % 16 || samples < 3 || samples > 1000) {
        fprintf(stderr, "bwd-pattern: ROWS a multiple of 4, D a multiple of 16, 3..1000 samples\n");
        return 2;
    }
    ln_rung = nl_find_bwd_impl("layernorm_bwd_avx512_stream");
    rms_rung = nl_find_bwd_impl("rmsnorm_bwd_avx512_stream");
    ln_skew = nl_find_bwd_impl("layernorm_bwd_avx512_skew");
    rms_skew = nl_find_bwd_impl("rmsnorm_bwd_avx512_skew");
    if (!ln_rung || !rms_rung || !ln_skew || !rms_skew || nl_bwd_impl_unavailable(ln_rung)) {
        fprintf(stderr, "bwd-pattern: the AVX-512 stream rung does not run here\n");
        return 1;
    }
    size_t n = R * D;
    x = nl_alloc(n * 4), dy = nl_alloc(n * 4), dx = nl_alloc(n * 4);
    gam = nl_alloc(D * 4), dg = nl_alloc(D * 4), db = nl_alloc(D * 4);
    mu = nl_alloc(R * 4), rs = nl_alloc(R * 4);
    double *t = calloc(NK * samples, sizeof *t), *f = calloc(samples, sizeof *f);
    if (!x || !dy || !dx || !gam || !dg || !db || !mu || !rs || !t || !f) {
        fprintf(stderr, "bwd-pattern: out of memory for %zu x %zu\n", R, D);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(i % 1000) * 1e-3f, dy[i] = x[i] - 0.5f;
    memset(dx, 0, n * 4);
    for (size_t i = 0; i < D; i++)
        gam[i] = 1.0f, dg[i] = db[i] = 0.0f;
    for (size_t r = 0; r < R; r++)
        mu[r] = 0.5f, rs[r] = 3.4f;
    void (*fn[NK])(void) = {copy,       pattern,   twopass4,   pf_dx,      pf_sum,
                            pf_both,    rms_stream, ln_stream, rms_skewed, ln_skewed};
    const char *name[NK] = {"copy (roof)", "pattern", "twopass4", "twopass4, next in dx pass",
                            "twopass4, next in 1st pass", "twopass4, next x 1st, dy dx",
                            "rmsnorm_bwd_avx512_stream",
                            "layernorm_bwd_avx512_stream", "rmsnorm_bwd_avx512_skew",
                            "layernorm_bwd_avx512_skew"};
    for (size_t s = 0; s < samples; s++)
        for (int k = 0; k < NK; k++) {
            double a = now();
            fn[k]();
            t[k * samples + s] = now() - a;
        }
    printf("bwd-pattern: %zu x %zu, 1 thread, %zu samples; fraction of copy per sample pair\n",
           R, D, samples);
    printf("%-28s %9s %6s %13s\n", "kernel", "ms", "frac", "p10..p90");
    char line[NK][96];
    /* t[0..samples) stays the copy's, in sample order: kernels are sorted
     * after their fractions are taken, the copy last */
    for (int k = NK - 1; k >= 0; k--) {
        double bytes = k == 0 ? 8.0 : 12.0;
        for (size_t s = 0; s < samples; s++)
            f[s] = (bytes / t[k * samples + s]) / (8.0 / t[s]);
        qsort(f, samples, sizeof *f, cmp);
        qsort(t + k * samples, samples, sizeof *t, cmp);
        snprintf(line[k], sizeof line[k], "%-28s %9.1f %6.2f %6.2f..%4.2f", name[k],
                 1e3 * t[k * samples + samples / 2], f[samples / 2], f[samples / 10],
                 f[samples - 1 - samples / 10]);
    }
    for (int k = 0; k < NK; k++)
        puts(line[k]);
    return 0;
}
