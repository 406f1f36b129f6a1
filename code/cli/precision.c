/* precision.c — `normlab precision`: chapter 8's numbers, computed here
 * and now. Every figure in the chapter's prose comes from this output. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "core/sizes.h"
#include "normlab.h"

static void help(FILE *to)
{
    fprintf(to,
"usage: normlab precision [--rows R] [--d D] [--seed S] [--histogram FILE [--force]]\n"
"\n"
"Runs the scalar kernel of every cast order (llama, gemma, t5_f32w, torch)\n"
"on bf16 and fp16 data and compares it with the same norm in double:\n"
"worst and mean error in ulps of the output dtype, and the share of\n"
"outputs that are correctly rounded (within 0.5 ulp). Data: Python's\n"
"random.gauss(0, 1) after random.seed(S), once as drawn (unit) and once\n"
"with every 97th channel scaled by 100-1000 (outliers). Then the spread of\n"
"per-row worst errors, how often Llama's and Gemma's orders disagree, fp16\n"
"statistics without the fp32 upcast, and eps in fp16.\n"
"Defaults: --rows 128 --d 4096 --seed 0.\n"
"\n"
"  --histogram FILE  also write the per-row histogram as a table for gnuplot\n"
"                    (scripts/book/plot-precision.sh); an existing FILE is kept\n"
"                    unless --force is given\n");
}

static const nl_cast orders[] = {NL_CAST_LLAMA, NL_CAST_GEMMA, NL_CAST_T5_F32W, NL_CAST_TORCH};

static int error_table(size_t rows, size_t d, uint64_t seed)
{
    printf("error against the double reference, %zu x %zu, eps 1e-6 (ulps of the output dtype)\n",
           rows, d);
    printf("%-8s %-5s %-9s %8s %9s %10s\n", "order", "dtype", "data", "max", "mean", "rounded");
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (int dt = NL_DT_BF16; dt <= NL_DT_F16; dt++)
            for (int outl = 0; outl < 2; outl++) {
                nl_ulp_stats s;
                const nl_half_impl *h = nl_half_scalar_of(orders[o], (nl_dtype)dt);
                if (nl_half_measure(h, rows, d, outl, seed, 1e-6f, &s) != NL_OK) {
                    fprintf(stderr, "normlab precision: %s: %s\n", h->name, nl_last_error());
                    return 1;
                }
                printf("%-8s %-5s %-9s %8.3f %9.3f %9.2f%%\n", nl_cast_name(orders[o]),
                       nl_dtype_name((nl_dtype)dt), outl ? "outliers" : "unit", s.max_ulp,
                       s.mean_ulp, 100.0 * s.frac_rounded);
            }
    return 0;
}

/* The histogram's numbers as a whitespace table: bucket, then rows per
 * order; written to a temporary and renamed, never over a user's file
 * without --force. */
static int write_histogram(const char *path, int force, const nl_ulp_stats s[2])
{
    if (!force && access(path, F_OK) == 0) {
        fprintf(stderr, "normlab precision: %s exists; not overwritten (--force to replace it)\n", path);
        return 2;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "normlab precision: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(f, "# worst_ulps llama_bf16_rows gemma_bf16_rows\n");
    for (size_t b = 0; b < NL_ULP_BUCKETS; b++) {
        double e = nl_ulp_bucket_edge(b);
        if (isinf(e))
            fprintf(f, "\">2\" %zu %zu\n", s[0].row_hist[b], s[1].row_hist[b]);
        else
            fprintf(f, "\"<=%.2f\" %zu %zu\n", e, s[0].row_hist[b], s[1].row_hist[b]);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "normlab precision: writing %s failed\n", path);
        return 2;
    }
    return 0;
}

static int histogram(size_t rows, size_t d, uint64_t seed, const char *path, int force)
{
    printf("\nrows by their worst output (ulps), outlier data, %zu rows of %zu\n", rows, d);
    printf("%-10s %-22s %-22s\n", "worst <=", "llama bf16", "gemma bf16");
    nl_ulp_stats s[2];
    for (int k = 0; k < 2; k++)
        if (nl_half_measure(nl_half_scalar_of(k ? NL_CAST_GEMMA : NL_CAST_LLAMA, NL_DT_BF16),
                            rows, d, 1, seed, 1e-6f, &s[k]) != NL_OK)
            return 1;
    for (size_t b = 0; b < NL_ULP_BUCKETS; b++) {
        double e = nl_ulp_bucket_edge(b);
        char edge[16], bars[2][40];
        snprintf(edge, sizeof edge, isinf(e) ? "more" : "%.2f", e);
        for (int k = 0; k < 2; k++) {
            size_t len = (s[k].row_hist[b] * 16 + rows - 1) / rows;
            memset(bars[k], '#', len);
            bars[k][len] = '\0';
        }
        printf("%-10s %5zu %-16s %5zu %-16s\n", edge, s[0].row_hist[b], bars[0],
               s[1].row_hist[b], bars[1]);
    }
    return path ? write_histogram(path, force, s) : 0;
}

static int disagreement(size_t rows, size_t d, uint64_t seed)
{
    printf("\nllama vs gemma on the same model (weight offsets w ~ gauss(0, sigma)):\n");
    printf("%-5s %-8s %s\n", "dtype", "sigma", "outputs that differ");
    static const double sig[] = {0.01, 0.1, 1.0};
    for (int dt = NL_DT_BF16; dt <= NL_DT_F16; dt++)
        for (size_t k = 0; k < 3; k++) {
            size_t differ, total;
            if (nl_half_llama_gemma_differ((nl_dtype)dt, rows, d, sig[k], seed, &differ, &total))
                return 1;
            printf("%-5s %-8g %zu of %zu (%.1f%%)\n", nl_dtype_name((nl_dtype)dt), sig[k], differ,
                   total, 100.0 * (double)differ / (double)total);
        }
    /* the worked example: x*r = 1 + 2^-8, offset 2^-9 */
    float xr = 1.0f + 0x1p-8f;
    float g = xr * (1.0f + 0x1p-9f);
    float l = nl_bf16_to_float(nl_bf16_from_float(nl_bf16_to_float(nl_bf16_from_float(xr)) *
                                                  nl_bf16_to_float(nl_bf16_from_float(1.0f + 0x1p-9f))));
    printf("example: x*r = %.8g, w = 2^-9: gemma %.8g -> bf16 %.8g; llama weight bf16(1 + w) = %g, "
           "bf16(x*r) = %g -> %.8g\n", (double)xr, (double)g,
           (double)nl_bf16_to_float(nl_bf16_from_float(g)),
           (double)nl_bf16_to_float(nl_bf16_from_float(1.0f + 0x1p-9f)),
           (double)nl_bf16_to_float(nl_bf16_from_float(xr)), (double)l);
    return 0;
}

static void fp16_overflow(void)
{
    printf("\nfp16 statistics without the fp32 upcast: a row of 4096 equal values\n");
    printf("%-8s %-14s %-14s %s\n", "x", "sum x^2 (fp16)", "sum x^2 (fp32)", "rsqrt(mean + 1e-6), fp16 stats");
    /* 4 and the next fp16 after it: the threshold, scanned for below. */
    static const float xs[] = {1.0f, 4.0f, 4.00390625f, 16.0f, 255.0f, 256.0f, 300.0f};
    uint16_t row[4096];
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        for (size_t i = 0; i < 4096; i++)
            row[i] = nl_fp16_from_float(xs[k]);
        float s16 = nl_fp16_sumsq_no_upcast(row, 4096);
        float ms16 = nl_fp16_to_float(nl_fp16_from_float(s16 / 4096.0f));
        float r16 = 1.0f / sqrtf(ms16 + 1e-6f);
        printf("%-8g %-14g %-14g %g\n", (double)xs[k], (double)s16,
               (double)xs[k] * (double)xs[k] * 4096.0, (double)r16);
    }
    /* Every positive fp16 value from 1 to the largest finite one, in order
     * of its bits (the order of value): the first whose 4096 squares sum
     * to Inf, and how many of the values above it keep the sum finite. */
    uint16_t first_inf = 0;
    size_t above = 0, finite_above = 0;
    for (uint16_t h = nl_fp16_from_float(1.0f); h < 0x7c00; h++) {
        for (size_t i = 0; i < 4096; i++)
            row[i] = h;
        int inf = isinf(nl_fp16_sumsq_no_upcast(row, 4096));
        if (first_inf) {
            above++;
            finite_above += !inf;
        } else if (inf) {
            first_inf = h;
        }
    }
    printf("the sum of squares first reaches Inf at x = %.9g: at 4 it stops at 32768, where "
           "fp16's spacing is 32 and adding 16 is a tie, kept even\n",
           (double)nl_fp16_to_float(first_inf));
    printf("of the %zu fp16 values above it, up to %g, %zu keep the sum finite\n", above,
           (double)nl_fp16_to_float(0x7bff), finite_above);
    /* Round to nearest: x^2 goes to Inf from halfway between 65504 and
     * the next step, 65536, i.e. from 65520. */
    printf("fp16: largest finite %g; a square rounds to Inf from x^2 >= 65520, |x| >= %.6g, "
           "so for fp16 inputs from 256 itself; smallest normal %g\n",
           (double)nl_fp16_to_float(0x7bff), sqrt(65520.0), (double)nl_fp16_to_float(0x0400));
}

static void eps_in_fp16(void)
{
    printf("\neps stored in fp16 (smallest normal 2^-14 = %g, smallest subnormal 2^-24 = %g)\n",
           (double)nl_fp16_to_float(0x0400), (double)nl_fp16_to_float(0x0001));
    printf("%-8s %-14s %-10s %s\n", "eps", "fp16(eps)", "rel. error", "fp16(1 + eps)");
    static const double eps[] = {1e-5, 1e-6, 1e-7, 1e-8};
    for (size_t k = 0; k < 4; k++) {
        float e = nl_fp16_to_float(nl_fp16_from_float((float)eps[k]));
        printf("%-8g %-14.6g %-10.3f %g\n", eps[k], (double)e, fabs(e - eps[k]) / eps[k],
               (double)nl_fp16_to_float(nl_fp16_from_float(1.0f + (float)eps[k])));
    }
}

/* A seed is any whole number, 0 (the default) included, which a size
 * option refuses. */
static int parse_seed(const char *v, void *dest)
{
    if (!strcmp(v, "0")) {
        *(size_t *)dest = 0;
        return 1;
    }
    if (nl_parse_size(v, (size_t)1 << 62, dest))
        return 1;
    nl_set_error("not a whole number from 0 to 2^62");
    return 0;
}

/* A training update kept in bf16, as a weight stored two ways: the same
 * 100 steps of +1e-4 added to a weight of 1 (Llama's storage) and to an
 * offset of 0 (Gemma's), each rounded back to bf16 after every step. */
static void bf16_updates(void)
{
    uint16_t w = nl_bf16_from_float(1.0f), off = nl_bf16_from_float(0.0f);
    for (int k = 0; k < 100; k++) {
        w = nl_bf16_from_float(nl_bf16_to_float(w) + 1e-4f);
        off = nl_bf16_from_float(nl_bf16_to_float(off) + 1e-4f);
    }
    printf("\n100 updates of +1e-4 stored in bf16 (half a bf16 ulp at 1 is %g):\n", 0x1p-8);
    printf("weight 1 stored as is: %.9g; stored as an offset from 1: 1 + %.9g = %.9g\n",
           (double)nl_bf16_to_float(w), (double)nl_bf16_to_float(off),
           1.0 + (double)nl_bf16_to_float(off));
}

int cmd_precision(int argc, char **argv)
{
    size_t rows = 128, d = 4096, seed = 0;
    const char *hist = NULL;
    int force = 0;
    const nl_option opts[] = {
        {"--rows", NL_OPT_SIZE, &rows, 1u << 16, NULL, NULL},
        {"--d", NL_OPT_SIZE, &d, 1u << 16, NULL, NULL},
        {"--histogram", NL_OPT_TEXT, &hist, 0, NULL, NULL},
        {"--force", NL_OPT_FLAG, &force, 0, NULL, NULL},
        {"--seed", NL_OPT_CUSTOM, &seed, 0, parse_seed, NULL},
    };
    int code;
    if (!nl_options_parse("precision", opts, NL_COUNT(opts), argc, argv, NULL, help, &code))
        return code;
    if (!nl_check_shape(rows, d, 6))
        return nl_usage_error("precision", "%s", nl_last_error());

    if (hist && !force && access(hist, F_OK) == 0) {
        fprintf(stderr, "normlab precision: %s exists; not overwritten (--force to replace it)\n", hist);
        return 2;
    }
    int rc = error_table(rows, d, seed);
    if (!rc)
        rc = histogram(rows, d, seed, hist, force);
    if (!rc)
        rc = disagreement(rows, d, seed);
    if (rc)
        return rc;
    fp16_overflow();
    eps_in_fp16();
    bf16_updates();
    return 0;
}
