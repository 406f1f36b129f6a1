/* half_pattern_avx512.c — `make half-pattern`: where the 16-bit forward
 * kernels' time goes out of cache, one thread (chapter 8's lab notebook,
 * "The limit").
 * Every line is timed once in every sample, and its fraction of the copy
 * is taken against the copy of the same sample, so that a busy neighbour
 * moves both:
 *
 *   copy            the roof, as the bench takes it: the faster of the
 *                   streamed copy and memcpy of the 2 + 2 bytes an element
 *   bare 1 pass     the pipe rung's access pattern with no arithmetic: each
 *                   64 bytes of x or-ed with a constant and streamed to y;
 *                   then with ordinary stores, and with each line 4 KiB or
 *                   16 KiB ahead asked for into L2, as the streamed copy does
 *   bare 2 pass     the f32stats rung's: per row an or-reduction over x from
 *                   memory, then the row again from L1, or-ed and streamed;
 *                   "+pf" asks for x 16 KiB past the next row's line into
 *                   L2, as that rung does
 *   2M pages        x and y on 2 MiB pages (madvise MADV_HUGEPAGE, which a
 *                   THP setting of "madvise" honours), against the copy on
 *                   the same pages
 *   kernels         the fast rungs as `normlab bench` calls them, then with
 *                   y moved 1 KiB and 2 KiB + 64 B along its page (x and y
 *                   from the same allocator share their page offset: a
 *                   4 KiB alias between a store and a later load), in place
 *                   (y = x), and on 2 MiB pages
 *   L2 ns/16        each kernel on rows that stay in L2: the best time of
 *                   32 rows less that of 16, per 16 elements: its arithmetic
 *                   alone, without what a call does once
 *
 * The median and the 10th..90th percentiles over samples are printed.
 * Usage: half-pattern [ROWS D SAMPLES [bf16|f16]] (default 16384 8192 7 bf16).
 * The bare patterns move bits and do not depend on the dtype. */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench/bench.h"
#include "normlab.h"

static size_t R = 16384, D = 8192;

/* ---- the bare access patterns: bf16 bits, no arithmetic ---- */

static void bare1(const uint16_t *x, uint16_t *y)
{
    const __m512i k = _mm512_set1_epi16(1);
    for (size_t i = 0; i < R * D; i += 32)
        _mm512_stream_si512((__m512i *)(y + i), _mm512_or_si512(_mm512_load_si512(x + i), k));
    _mm_sfence();
}

/* the same asking for the line `ahead` bytes on into L2, as the bench's
 * streamed copy does (16 KiB) */
static void bare1_pf(const uint16_t *x, uint16_t *y, size_t ahead)
{
    const __m512i k = _mm512_set1_epi16(1);
    for (size_t i = 0; i < R * D; i += 32) {
        _mm_prefetch((const char *)(x + i) + ahead, _MM_HINT_T1);
        _mm512_stream_si512((__m512i *)(y + i), _mm512_or_si512(_mm512_load_si512(x + i), k));
    }
    _mm_sfence();
}

/* the same with ordinary stores, which bring y's lines into the caches */
static void bare1_plain(const uint16_t *x, uint16_t *y)
{
    const __m512i k = _mm512_set1_epi16(1);
    for (size_t i = 0; i < R * D; i += 32)
        _mm512_store_si512((__m512i *)(y + i), _mm512_or_si512(_mm512_load_si512(x + i), k));
}

static void bare2(const uint16_t *x, uint16_t *y, int pf)
{
    for (size_t r = 0; r < R; r++) {
        const uint16_t *a = x + r * D;
        __m512i s0 = _mm512_setzero_si512(), s1 = s0;
        for (size_t i = 0; i < D; i += 64) {
            s0 = _mm512_or_si512(s0, _mm512_load_si512(a + i));
            s1 = _mm512_or_si512(s1, _mm512_load_si512(a + i + 32));
        }
        /* the row's "statistic" feeds the output pass, as 1/rms does */
        __m512i k = _mm512_and_si512(_mm512_or_si512(s0, s1), _mm512_set1_epi16(1));
        for (size_t i = 0; i < D; i += 32) {
            if (pf && r + 1 < R)
                _mm_prefetch((const char *)((uintptr_t)(a + D + i) + 16384), _MM_HINT_T1);
            _mm512_stream_si512((__m512i *)(y + r * D + i),
                                _mm512_or_si512(_mm512_load_si512(a + i), k));
        }
    }
    _mm_sfence();
}

/* ---- the lines ---- */

typedef struct {
    const char *label;
    int kind; /* 0 copy, 1 bare1, 2 bare2, 3 bare2+pf, 4 kernel, 5 streamed copy, 6 bare1 plain */
    const nl_half_impl *impl;
    const uint16_t *x;
    uint16_t *y;
    int roof; /* the line whose times it is divided into: the copy on its pages */
} line;

/* the rungs, %s the dtype */
static const char *FAST[] = {"rmsnorm_llama_%s_avx512_f32stats", "rmsnorm_llama_%s_avx512_pipe",
                             "rmsnorm_llama_%s_avx512_split",    "rmsnorm_llama_%s_avx512_block",
                             "rmsnorm_gemma_%s_avx512_f32stats", "rmsnorm_gemma_%s_avx512_pipe",
                             "rmsnorm_gemma_%s_avx512_split",    "rmsnorm_gemma_%s_avx512_block",
                             "layernorm_torch_%s_avx512_f32stats", "layernorm_torch_%s_avx512_pipe",
                             "layernorm_torch_%s_avx512_split",  "layernorm_torch_%s_avx512_block"};
enum { NFAST = sizeof FAST / sizeof *FAST, MAXL = 11 + 5 * NFAST };
static nl_dtype DT = NL_DT_BF16;

static float *gam;
static uint16_t *gam16, *beta;

static int call(const nl_half_impl *im, const uint16_t *x, size_t rows, uint16_t *y)
{
    const void *g = nl_cast_weight_dtype(im->cast, im->dtype) == NL_DT_F32 ? (void *)gam
                                                                          : (void *)gam16;
    return im->fn(im->dtype, x, g, beta, 1e-5f, rows, D, y);
}

static int run(const line *l, const uint16_t *x, uint16_t *y)
{
    switch (l->kind) {
    case 9: nl_copy(NL_COPY_MEMCPY, (const float *)x, (float *)y, R * D / 2); return 0;
    case 10: nl_copy(NL_COPY_STREAM, (const float *)l->x, (float *)l->y, R * D / 2); return 0;
    case 11: bare1_pf(l->x, l->y, 16384); return 0;
    case 1: bare1(x, y); return 0;
    case 2: bare2(x, y, 0); return 0;
    case 3: bare2(x, y, 1); return 0;
    case 0:
    case 5: nl_copy(NL_COPY_STREAM, (const float *)x, (float *)y, R * D / 2); return 0;
    case 6: bare1_plain(x, y); return 0;
    case 7: bare1_pf(x, y, 4096); return 0;
    case 8: bare1_pf(x, y, 16384); return 0;
    default: return call(l->impl, l->x, R, l->y);
    }
}

static int cmp(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}

/* 2 MiB-aligned, on huge pages where the kernel grants them */
static uint16_t *huge(size_t bytes)
{
    size_t big = (bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    void *p = aligned_alloc(2u << 20, big);
    if (p)
        madvise(p, big, MADV_HUGEPAGE);
    return p;
}

static void fill(uint16_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) /* (i * golden) mod 1000 / 1000 - 0.5, in the dtype */
        p[i] = nl_half_from_float(DT, (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f);
}

int main(int argc, char **argv)
{
    size_t samples = 7;
    omp_set_num_threads(1); /* nl_copy splits over the OpenMP threads */
    if (argc == 4 || argc == 5) {
        R = strtoul(argv[1], NULL, 10), D = strtoul(argv[2], NULL, 10);
        samples = strtoul(argv[3], NULL, 10);
        int dt = argc == 5 ? nl_dtype_parse(argv[4]) : NL_DT_BF16;
        if (dt != NL_DT_BF16 && dt != NL_DT_F16) {
            fprintf(stderr, "half-pattern: the rungs are 16-bit: the dtype is bf16 or f16, "
                            "not '%s'\n", argv[4]);
            return 2;
        }
        DT = (nl_dtype)dt;
    } else if (argc != 1) {
        fprintf(stderr, "usage: half-pattern [ROWS D SAMPLES [bf16|f16]]\n");
        return 2;
    }
    if (R < 64 || D < 64 || D % 64 || samples < 3 || samples > 1000) {
        fprintf(stderr, "half-pattern: ROWS >= 64, D a multiple of 64, 3..1000 samples\n");
        return 2;
    }
    const nl_half_impl *im[NFAST];
    static char name[NFAST][64];
    for (int k = 0; k < NFAST; k++) {
        snprintf(name[k], sizeof name[k], FAST[k], nl_dtype_name(DT));
        im[k] = nl_find_half_impl(name[k]);
        if (!im[k] || nl_half_unavailable(im[k])) {
            fprintf(stderr, "half-pattern: %s does not run here\n", name[k]);
            return 1;
        }
    }
    size_t n = R * D, off1 = 512, off2 = 1056; /* elements: 1 KiB, 2 KiB + 64 B */
    uint16_t *x = nl_alloc(n * 2), *y = nl_alloc(n * 2), *yo = nl_alloc(n * 2 + 4096);
    uint16_t *xi = nl_alloc(n * 2), *xh = huge(n * 2), *yh = huge(n * 2);
    gam = nl_alloc(D * 4), gam16 = nl_alloc(D * 2), beta = nl_alloc(D * 2);
    line *L = calloc(MAXL, sizeof *L);
    double *t = calloc(MAXL * samples, sizeof *t);
    if (!x || !y || !yo || !xi || !xh || !yh || !gam || !gam16 || !beta || !L || !t) {
        fprintf(stderr, "half-pattern: out of memory for 6 arrays of %zu x %zu bf16\n", R, D);
        return 1;
    }
    /* every page touched before timing: no line pays first-touch faults */
    fill(x, n), fill(xh, n), memcpy(xi, x, n * 2);
    memset(y, 0, n * 2), memset(yo, 0, n * 2 + 4096), memset(yh, 0, n * 2);
    for (size_t i = 0; i < D; i++)
        gam[i] = 1.0f, gam16[i] = nl_half_from_float(DT, 1.0f), beta[i] = 0;
    int nl = 0;
    L[nl++] = (line){"copy (roof): the faster of the two", 0, NULL, x, y, 0};
    L[nl++] = (line){"copy, streamed", 5, NULL, x, y, 0};
    L[nl++] = (line){"copy, memcpy", 9, NULL, x, y, 0};
    L[nl++] = (line){"bare 1 pass", 1, NULL, x, y, 0};
    L[nl++] = (line){"bare 1 pass, plain stores", 6, NULL, x, y, 0};
    L[nl++] = (line){"bare 1 pass, L2 prefetch 4 KiB on", 7, NULL, x, y, 0};
    L[nl++] = (line){"bare 1 pass, L2 prefetch 16 KiB on", 8, NULL, x, y, 0};
    L[nl++] = (line){"bare 2 pass", 2, NULL, x, y, 0};
    L[nl++] = (line){"bare 2 pass+pf", 3, NULL, x, y, 0};
    int huge_copy = nl;
    L[nl++] = (line){"copy, streamed, 2M pages (their roof)", 10, NULL, xh, yh, 0};
    L[nl++] = (line){"bare 1 pass, L2 prefetch 16 KiB, 2M pages", 11, NULL, xh, yh, huge_copy};
    static char labels[MAXL][80];
    const char *how[] = {"", " y+1K", " y+2K64", " in place", " 2M pages"};
    for (int v = 0; v < 5; v++)
        for (int k = 0; k < NFAST; k++) {
            line l = {labels[nl], 4, im[k], x, y, 0};
            if (v == 1)
                l.y = yo + off1;
            if (v == 2)
                l.y = yo + off2;
            if (v == 3)
                l.x = l.y = xi;
            if (v == 4)
                l.x = xh, l.y = yh, l.roof = huge_copy;
            snprintf(labels[nl], sizeof labels[nl], "%s%s", name[k], how[v]);
            L[nl++] = l;
        }
    for (int k = 0; k < nl; k++) /* warm-up: clocks, weights' pages */
        if (run(&L[k], x, y)) {
            fprintf(stderr, "half-pattern: %s failed: %s\n", L[k].label, nl_last_error());
            return 1;
        }
    for (size_t s = 0; s < samples; s++)
        for (int k = 0; k < nl; k++) {
            double a = nl_now();
            if (k == 0) { /* the roof: the faster of the two copies */
                run(&L[0], x, y);
                double b = nl_now();
                run(&L[2], x, y);
                double c = nl_now();
                t[s] = b - a < c - b ? b - a : c - b;
                continue;
            }
            run(&L[k], x, y);
            t[k * samples + s] = nl_now() - a;
        }
    printf("half-pattern: %zu x %zu %s, 1 thread, %zu samples; fraction of the copy of the "
           "same sample\n",
           R, D, nl_dtype_name(DT), samples);
    printf("%-46s %8s %6s %11s %9s\n", "line", "ms", "frac", "p10..p90", "L2 ns/16");
    /* the arithmetic in cache: 32 rows, calls enough for ~20 ms */
    size_t cr = 32, reps = (size_t)(20e-3 / (cr * D * 0.2e-9)) + 1;
    char out[MAXL][112];
    double *frac = calloc(MAXL * samples, sizeof *frac);
    if (!frac)
        return 1;
    for (int k = 0; k < nl; k++) /* every fraction first: sorting moves the roofs' times */
        for (size_t s = 0; s < samples; s++)
            frac[k * samples + s] = t[L[k].roof * samples + s] / t[k * samples + s];
    for (int k = nl - 1; k >= 0; k--) {
        double *f = frac + k * samples;
        qsort(f, samples, sizeof *f, cmp);
        qsort(t + k * samples, samples, sizeof *t, cmp);
        char l2[16] = "";
        if (L[k].kind == 4 && L[k].x == x && L[k].y == y) {
            /* per row: the time of 32 rows less that of 16, which leaves
             * out what a call does once (widening its weights) */
            double best[2] = {1e9, 1e9};
            for (int rep = 0; rep < 6; rep++) {
                size_t rows = rep % 2 ? cr : cr / 2;
                double a = nl_now();
                for (size_t c = 0; c < reps; c++)
                    call(L[k].impl, x, rows, y);
                double e = (nl_now() - a) / (double)reps;
                best[rep % 2] = e < best[rep % 2] ? e : best[rep % 2];
            }
            double per = (best[1] - best[0]) / (double)(cr / 2);
            snprintf(l2, sizeof l2, "%9.2f", per * 1e9 * 16 / (double)D);
        }
        snprintf(out[k], sizeof out[k], "%-46s %8.1f %6.2f %5.2f..%4.2f %9s", L[k].label,
                 1e3 * t[k * samples + samples / 2], f[samples / 2], f[samples / 10],
                 f[samples - 1 - samples / 10], l2);
    }
    for (int k = 0; k < nl; k++)
        puts(out[k]);
    nl_free(x), nl_free(y), nl_free(yo), nl_free(xi), free(xh), free(yh);
    nl_free(gam), nl_free(gam16), nl_free(beta);
    free(L), free(t), free(frac);
    return 0;
}
