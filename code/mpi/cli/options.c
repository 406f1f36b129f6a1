/* options.c — normlab-mpi's command line, with the conventions of the
 * normlab program: --opt V and --opt=V, --help to stdout and exit 0, and
 * a message naming the option and exit 2 for anything wrong. Every rank
 * parses the same argv; only rank 0 speaks. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/cli/program.h"

static const char usage_text[] =
    "usage: mpirun -np P normlab-mpi --norm ln|rms --rows R --d D --shard hidden|rows\n"
    "                   [--method sums|chan|chan-ordered] [--dtype f32|bf16]\n"
    "                   [--mean M] [--std S] [--seed N] [--eps E] [--repeat N]\n"
    "\n"
    "Normalises R rows of width D split over the P ranks: each owns a slice of\n"
    "the columns (--shard hidden, tensor parallelism) or of the rows (--shard rows),\n"
    "combines the row statistics across ranks, and checks the gathered output\n"
    "against the serial double reference.\n"
    "\n"
    "  --norm ln|rms       LayerNorm or RMSNorm\n"
    "  --rows R            rows (0 allowed); --d D  row width (>= 1; D < P allowed)\n"
    "  --shard hidden|rows split the columns or the rows over the ranks\n"
    "  --method sums|chan  LayerNorm over a split row: (sum, sum of squares) in float\n"
    "                      with MPI_SUM, or (n, mean, M2) merged by the Chan MPI_Op\n"
    "                      (default chan). chan-ordered: the same summaries gathered\n"
    "                      on rank 0, merged there in rank order (MPI_Reduce_local)\n"
    "                      and broadcast: one bracketing for every MPI and every P,\n"
    "                      checked bit for bit against the serial fold.\n"
    "                      RMSNorm always sends its sum of squares.\n"
    "  --dtype f32|bf16    storage type of x and y (default f32). bf16: every rank\n"
    "                      holds its slice of x in bf16 (the same data rounded to\n"
    "                      bf16), widens it to float, computes and combines the\n"
    "                      statistics exactly as for f32, normalises, and rounds y\n"
    "                      to bf16 once at the end (chapter 8's one-cast order).\n"
    "                      The error is then against the double reference on the\n"
    "                      same bf16 inputs, in ulps of bf16 (tol 1 ulp); the bytes\n"
    "                      of the statistics are the same, those of x and y half.\n"
    "  --mean M --std S    the data: Gaussian of mean M (default 0), std S (default 1)\n"
    "  --seed N            random seed (default 1); --eps E (default 1e-5)\n"
    "  --repeat N          timed steps (default 5, at most 100000)\n"
    "\n"
    "Exit: 0 when the max error is within the tolerance, 1 when it is not, 2 for\n"
    "a usage error.\n";

static void complain(int speak, const char *fmt, ...)
{
    if (!speak)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("normlab-mpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (try normlab-mpi --help)\n", stderr);
    va_end(ap);
}

static int parse_count(const char *v, size_t max, size_t *out)
{
    char *end;
    if (*v < '0' || *v > '9')
        return 0;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || errno == ERANGE || n > max)
        return 0;
    *out = (size_t)n;
    return 1;
}

/* A finite double; 0 when it is not one, with *tiny set when it is a
 * number too small for a double (1e-400), which deserves its own message. */
static int parse_real_or_tiny(const char *v, double *out, int *tiny)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    *tiny = end != v && !*end && errno == ERANGE && fabs(x) <= DBL_MIN;
    if (end == v || *end || errno == ERANGE || !isfinite(x))
        return 0;
    *out = x;
    return 1;
}

static int parse_real(const char *v, double *out)
{
    int tiny;
    return parse_real_or_tiny(v, out, &tiny);
}

/* "must be a finite number" is wrong for 1e-400: it is finite, only too
 * small for a double to hold. */
static void complain_real(int speak, const char *name, const char *v, int tiny, const char *rule)
{
    if (tiny)
        complain(speak, "%s '%s' is too small for a double (it underflows; the smallest "
                        "normal double is 2.2e-308): give 0", name, v);
    else
        complain(speak, "%s must be %s, got '%s'", name, rule, v);
}

/* One option's value into o; 0 with a message when it is bad. */
static int take(const char *name, const char *v, nl_mpi_options *o, int speak)
{
    size_t n;
    double x;
    if (!strcmp(name, "--norm")) {
        if (!strcmp(v, "ln") || !strcmp(v, "rms")) {
            o->norm = v[0] == 'l' ? NL_LAYERNORM : NL_RMSNORM;
            o->have_norm = 1;
            return 1;
        }
        complain(speak, "--norm must be ln or rms, got '%s'", v);
    } else if (!strcmp(name, "--rows")) {
        if (parse_count(v, NL_MPI_MAX_DIM, &o->rows))
            return o->have_rows = 1;
        complain(speak, "--rows must be a whole number from 0 to %d, got '%s'", NL_MPI_MAX_DIM, v);
    } else if (!strcmp(name, "--d")) {
        if (parse_count(v, NL_MPI_MAX_DIM, &o->d) && o->d >= 1)
            return o->have_d = 1;
        complain(speak, "--d must be a whole number from 1 to %d, got '%s'", NL_MPI_MAX_DIM, v);
    } else if (!strcmp(name, "--shard")) {
        if (!strcmp(v, "hidden") || !strcmp(v, "rows")) {
            o->shard_rows = v[0] == 'r';
            return o->have_shard = 1;
        }
        complain(speak, "--shard must be hidden or rows, got '%s'", v);
    } else if (!strcmp(name, "--method")) {
        if (!strcmp(v, "sums") || !strcmp(v, "chan") || !strcmp(v, "chan-ordered")) {
            o->method_chan = v[0] == 's' ? 0 : v[4] == '\0' ? 1 : 2;
            return o->have_method = 1;
        }
        complain(speak, "--method must be sums, chan or chan-ordered, got '%s'", v);
    } else if (!strcmp(name, "--dtype")) {
        if (!strcmp(v, "f32") || !strcmp(v, "bf16")) {
            o->dtype = v[0] == 'f' ? NL_DT_F32 : NL_DT_BF16;
            return 1;
        }
        complain(speak, "--dtype must be f32 or bf16, got '%s'%s", v,
                 !strcmp(v, "f16") ? " (fp16 storage is not built into normlab-mpi)" : "");
    } else if (!strcmp(name, "--mean")) {
        int tiny;
        if (parse_real_or_tiny(v, &o->mean, &tiny))
            return 1;
        complain_real(speak, name, v, tiny, "a finite number");
    } else if (!strcmp(name, "--std")) {
        int tiny;
        if (parse_real_or_tiny(v, &o->std, &tiny) && o->std >= 0.0)
            return 1;
        complain_real(speak, name, v, tiny, "a finite number >= 0");
    } else if (!strcmp(name, "--seed")) {
        if (parse_count(v, UINT64_MAX, &n))
            return o->seed = n, 1;
        complain(speak, "--seed must be a whole number >= 0, got '%s'", v);
    } else if (!strcmp(name, "--eps")) {
        if (parse_real(v, &x) && x >= 0.0 && x <= 1.0)
            return o->eps = x, 1;
        complain(speak, "--eps must be a number from 0 to 1, got '%s'", v);
    } else if (!strcmp(name, "--repeat")) {
        if (parse_count(v, 100000, &o->repeat) && o->repeat >= 1)
            return 1;
        complain(speak, "--repeat must be a whole number from 1 to 100000, got '%s'", v);
    } else {
        complain(speak, "unknown option '%s'", name);
    }
    return 0;
}

static const char *const valued[] = {"--norm", "--rows", "--d", "--shard", "--method", "--dtype",
                                     "--mean", "--std", "--seed", "--eps", "--repeat"};

int nl_mpi_parse(int argc, char **argv, int speak, nl_mpi_options *o)
{
    *o = (nl_mpi_options){.dtype = NL_DT_F32, .eps = 1e-5, .std = 1.0, .seed = 1, .repeat = 5};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            if (speak)
                fputs(usage_text, stdout);
            return 0;
        }
        if (strncmp(arg, "--", 2) != 0) {
            complain(speak, arg[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", arg);
            return 2;
        }
        char name[32];
        const char *eq = strchr(arg, '='), *value;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) {
            complain(speak, "unknown option '%s'", arg);
            return 2;
        }
        memcpy(name, arg, len);
        name[len] = '\0';
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            known |= !strcmp(name, valued[k]);
        if (!known) {
            complain(speak, "unknown option '%s'", name);
            return 2;
        }
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            complain(speak, "%s needs a value", name);
            return 2;
        }
        if (!take(name, value, o, speak))
            return 2;
    }
    const char *missing = !o->have_norm ? "--norm" : !o->have_rows ? "--rows"
                        : !o->have_d ? "--d" : !o->have_shard ? "--shard" : NULL;
    if (missing) {
        complain(speak, "%s is required", missing);
        return 2;
    }
    if (o->norm == NL_RMSNORM && o->have_method && o->method_chan) {
        complain(speak, "--method %s is for --norm ln: RMSNorm's one statistic, the sum of "
                        "squares, is a plain sum", o->method_chan == 2 ? "chan-ordered" : "chan");
        return 2;
    }
    if (o->rows * o->d > NL_MPI_MAX_VALUES) {
        complain(speak, "--rows %zu x --d %zu is more than %d values", o->rows, o->d,
                 NL_MPI_MAX_VALUES);
        return 2;
    }
    /* x is stored in float: data past FLT_MAX become Inf, the reference
     * NaN, and NaN against NaN would pass as "max error: 0". A Gaussian
     * draw stays within 10 std of its mean (Box-Muller's radius reaches
     * 8.6 std only at a uniform of 2^-53); refuse what could leave float. */
    if (fabs(o->mean) + 10.0 * o->std > FLT_MAX) {
        complain(speak, "--mean %g --std %g: the data would overflow float (largest %g): "
                        "keep |mean| + 10 std below it", o->mean, o->std, (double)FLT_MAX);
        return 2;
    }
    if (!o->have_method)
        o->method_chan = 1;
    return -1;
}
