/* bench.c — `normlab bench`: every implementation, on shapes from in-cache
 * to far beyond the last-level cache, on one and on all cores, measured
 * against a copy of the same bytes taken in the same run; with --opencl,
 * the OpenCL kernels against the device's own copy.  This file holds the
 * command's options; bench.h lists the files that do the rest. */
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "commands.h"
#include "core/sizes.h"

/* Full run: one shape that fits in cache, the two common LLM activations
 * (hidden 4096 at 4096 tokens, hidden 1024 at 16384 tokens), and two
 * meant to be beyond the last-level cache: 256 MiB and 512 MiB of input.
 * Some virtual machines report an L3 of several hundred MiB, so the run
 * adds a wider shape when the largest moves less than twice the reported
 * L3 (beyond_cache), and every block says which regime it is in. */
static const nl_shape full_shapes[] = {
    {256, 1024}, {4096, 4096}, {16384, 1024}, {8192, 8192}, {16384, 8192},
};
/* Quick run (under a minute): the in-cache shape and one LLM shape. */
static const nl_shape quick_shapes[] = {{256, 1024}, {4096, 4096}};
/* Chapter 12's rows, on GPT-2's own shapes: T = 1024 tokens at the widths
 * of GPT-2 small, medium and XL (C = 768, 1024, 1600) for the norms; the
 * 124M model's C = 768 at 64, 256 and 1024 tokens for the matmuls. */
static const nl_shape gpt2_shapes[] = {{1024, 768}, {1024, 1024}, {1024, 1600}};
static const nl_shape gpt2_quick_shapes[] = {{1024, 768}};
static const nl_shape flashnorm_shapes[] = {{64, 768}, {256, 768}, {1024, 768}};
static const nl_shape flashnorm_quick_shapes[] = {{64, 768}, {256, 768}};
#define FULL_SAMPLES 21  /* odd, so the median is one measured sample */
#define QUICK_SAMPLES 7
#define MAX_THREADS 4096
#define MAX_SAMPLES 100000

static void usage(FILE *to)
{
    fprintf(to,
        "usage: normlab bench [OPTIONS]\n"
        "       normlab bench --opencl [OPTIONS]   (OpenCL kernels: same options, CSV)\n"
        "\n"
        "Checks every implementation against the double reference, then times it.\n"
        "Each kernel sample is paired with samples of three copies of the same bytes\n"
        "(memcpy, a plain loop, non-temporal stores) on the same threads; the fastest\n"
        "copy is the roof, and 'of copy' = copy time / kernel time is the headline.\n"
        "OpenCL kernels are paired with the device's own copy of the same bytes\n"
        "(roof 'device'); host<->device transfers are timed apart (h2d_gbps, d2h_gbps).\n"
        "Every option takes its value as '--opt VALUE' or '--opt=VALUE'.\n"
        "\n"
        "  --quick            fewer shapes (256x1024, 4096x4096) and %d samples: < 1 minute\n"
        "  --shape RxD[,RxD]  shapes to run (repeatable); default 256x1024, 4096x4096,\n"
        "                     16384x1024, 8192x8192, 16384x8192, and one of width 8192\n"
        "                     moving twice the reported L3 when 16384x8192 moves less\n"
        "  --threads N[,N]    OpenMP thread counts; default 1 and every core\n"
        "                     (single-threaded implementations run at the first count only)\n"
        "  --samples N        timed samples per measurement (default %d; alias --reps)\n"
        "  --impl NAME[,NAME] only these implementations ('onednn' is the peer); OpenCL\n"
        "                     ones run with --opencl or when named here, so that\n"
        "                     --impl rmsnorm_omp,rmsnorm_opencl puts both in one table,\n"
        "                     one CSV and one figure\n"
        "  --opencl           the OpenCL implementations instead of the CPU ones\n"
        "  --device SPEC      the OpenCL device, as for `normlab devices`\n"
        "                     (default $NORMLAB_CL_DEVICE, else the first GPU, else 0)\n"
        "  --no-peer          leave out the oneDNN peer\n"
        "  --csv FILE         also write one CSV row per measurement; an existing FILE\n"
        "                     is never overwritten unless --force is given\n"
        "  --force            allow --csv to replace FILE\n"
        "  --note TEXT        add '# TEXT' to the CSV's header comments (repeatable;\n"
        "                     one line of printable UTF-8: a line break or other\n"
        "                     control or separator character is refused)\n"
        "  --fused            fused add + norm against the unfused pair (chapter 9): each\n"
        "                     checked bit for bit against its pair; 'of copy' counts the\n"
        "                     bytes each must move (4 floats per element fused, 5 unfused)\n"
        "  --gpt2             chapter 12: the original GPT-2's LayerNorm against the\n"
        "                     converted model's RMSNorm and Pre-CRMSNorm, on T=1024 tokens\n"
        "                     at C=768, 1024, 1600 (--quick: 768); one thread\n"
        "  --flashnorm        chapter 12: FlashNorm against RMSNorm then a blocked C matmul,\n"
        "                     and the RMSNorm pass alone, on GPT-2's qkv and fc\n"
        "                     (C=768 -> 3C, 4C) at T=64, 256, 1024\n"
        "                     tokens (--quick: 64, 256); one thread\n"
        "  --dtype T[,T]      data types: f32 (default), bf16, f16. A bf16/fp16 row moves\n"
        "                     half the bytes, and its copy roof copies those same bytes;\n"
        "                     its max_err and tol are ulps from its scalar cast order.\n"
        "                     Scalar bf16/fp16 kernels run only when named by --impl\n"
        "  --show [FILE]      measure nothing: print the table of an earlier run's CSV\n"
        "                     (default $NORMLAB_BENCH_CSV, else book/data/bench-reference.csv),\n"
        "                     narrowed by --shape, --threads and --impl\n"
        "  --goals FILE       measure nothing: hold earlier runs (one --goals per run's\n"
        "                     CSV) to the course's goals (code/cli/bench_goals.def): per\n"
        "                     goal, how many out-of-cache rows meet it, the lowest, median\n"
        "                     and highest value, and the lowest rows of a goal not met\n"
        "  --help             this text\n"
        "\n"
        "NORMLAB_CL_MAX_LOCAL=N caps the OpenCL work-group size.\n"
        "\n"
        "Exit status: 0 all measured, 1 an implementation failed its check or a run,\n"
        "or none of those asked for can run here, 2 bad arguments.\n",
        QUICK_SAMPLES, FULL_SAMPLES);
}

/* ------------------------------------------------- options with a list */

static int add_shapes(const char *text, void *dest)
{
    bench_options *o = dest;
    char buf[512];
    if (strlen(text) >= sizeof buf) {
        nl_set_error("the list is too long");
        return 0;
    }
    strcpy(buf, text);
    size_t before = o->nshapes;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nshapes == BENCH_MAX_LIST) {
            nl_set_error("at most %d shapes", BENCH_MAX_LIST);
            return 0;
        }
        if (!nl_parse_shape(tok, &o->shapes[o->nshapes]))
            return 0;
        o->nshapes++;
    }
    if (o->nshapes == before) {
        nl_set_error("a shape is ROWSxD, e.g. 4096x4096");
        return 0;
    }
    return 1;
}

static int set_threads(const char *text, void *dest)
{
    bench_options *o = dest;
    return (o->nthreads = nl_parse_count_list(text, MAX_THREADS, o->threads, BENCH_MAX_LIST)) != 0;
}

/* The first character of a note that may not stand in a CSV comment, as
 * a name for the message, or NULL when there is none. A note is one line
 * of UTF-8: no C0 or C1 control (CR, LF, VT, FF, RS, NEL: some readers end
 * a line at each), no DEL, no U+2028/U+2029 (line and paragraph
 * separators), and no byte that is not UTF-8 (a bare 0x85 made the CSV
 * invalid UTF-8). A tab is an ordinary space here. */
static const char *bad_note_char(const char *text, char *name, size_t n)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        unsigned c = *p;
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        unsigned long cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        for (size_t k = 1; k < len; k++) {
            if ((p[k] & 0xc0) != 0x80) {
                len = 0;
                break;
            }
            cp = cp << 6 | (p[k] & 0x3f);
        }
        if (len == 0 || (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) {
            snprintf(name, n, "byte 0x%02X, which is not UTF-8", c);
            return name;
        }
        if ((cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
            cp == 0x2029) {
            snprintf(name, n, "U+%04lX, a %s", cp, cp == 0x2028 || cp == 0x2029 ? "separator"
                                                   : "control character");
            return name;
        }
        p += len;
    }
    return NULL;
}

static int add_goal_file(const char *path, void *dest)
{
    bench_options *o = dest;
    if (o->ngoal_files == BENCH_MAX_LIST) {
        nl_set_error("at most %d runs at once", BENCH_MAX_LIST);
        return 0;
    }
    o->goal_files[o->ngoal_files++] = path;
    return 1;
}

static int add_note(const char *text, void *dest)
{
    bench_options *o = dest;
    char what[64];
    if (strpbrk(text, "\r\n")) {
        nl_set_error("a note is one line (a line break would end its '#' comment and corrupt "
                     "the CSV)");
        return 0;
    }
    if (bad_note_char(text, what, sizeof what)) {
        nl_set_error("a note is one line of printable UTF-8; it holds %s (a CSV reader may end "
                     "the line there or refuse the file)", what);
        return 0;
    }
    if (o->nnotes == BENCH_MAX_LIST - 12) {
        nl_set_error("too many notes");
        return 0;
    }
    o->notes[o->nnotes++] = text;
    return 1;
}

/* A shape of width 8192 moving at least twice the reported L3 (input and
 * output), appended when the full run's largest does not, and when it
 * fits this machine's memory. */
static void beyond_cache(bench_options *o)
{
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    const size_t d = 8192, step = 1024;
    double largest = 0;
    for (size_t i = 0; i < o->nshapes; i++)
        if (nl_shape_bytes(o->shapes[i]) > largest)
            largest = nl_shape_bytes(o->shapes[i]);
    if (l3 <= 0 || largest >= 2 * l3 || o->nshapes == BENCH_MAX_LIST)
        return;
    size_t rows = (size_t)(2 * l3 / (2.0 * sizeof(float) * (double)d)) / step * step + step;
    if (nl_check_shape(rows, d, 2))
        o->shapes[o->nshapes++] = (nl_shape){rows, d};
}

/* ----------------------------------------------------------------- main */

/* --dtype f32,bf16: the data types whose rows to time. */
static int add_dtypes(const char *v, void *dest)
{
    int *bits = dest;
    if (!*v) {
        /* an empty list selected nothing, and the default (every f32 row,
         * 47 s) ran instead */
        nl_set_error("needs a non-empty value (f32, bf16 or f16)");
        return 0;
    }
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        char name[16];
        if (n == 0 || (p[n] == ',' && !p[n + 1])) {
            nl_set_error("an empty name in the list '%s'", v);
            return 0;
        }
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        int dt = nl_dtype_parse(name);
        if (dt < 0) {
            nl_set_error("'%s' is not f32, bf16 or f16", name);
            return 0;
        }
        *bits |= 1 << dt;
        p += n + (p[n] == ',');
    }
    return 1;
}

/* --impl rmsnorm_naive with --dtype bf16 measured nothing and blamed
 * reasons it never printed: an f32 kernel (or the f32 peer) runs only
 * when --dtype keeps f32. */
static int f32_names_have_f32(const bench_options *o)
{
    if (!o->impls || bench_wants_dtype(o, NL_DT_F32))
        return 1;
    for (const char *p = o->impls; *p;) {
        size_t n = strcspn(p, ",");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (nl_find_impl(name) || !strcmp(name, "onednn"))
            return nl_usage_error("bench", "--impl %s is an f32 kernel, and --dtype leaves f32 "
                                  "out: add f32 to --dtype, or name a bf16/fp16 kernel "
                                  "(normlab impls --chapter 8)", name) == 0;
        p += n + (p[n] == ',');
    }
    return 1;
}

/* A backward kernel on a row where the norm's output does not depend on x
 * (LayerNorm of 2 values is +-1, RMSNorm of 1 is its sign) has a gradient
 * of order eps: the float result is all rounding, and its check failed as
 * "invalid" for no fault of the kernel (gradcheck refuses the same). */
static int backward_shapes_defined(const bench_options *o)
{
    for (const char *p = o->impls; p && *p;) {
        size_t n = strcspn(p, ",");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        const nl_bwd_impl *b = nl_find_bwd_impl(name);
        size_t least = b && b->norm == NL_LAYERNORM ? 3 : 2;
        for (size_t i = 0; b && i < o->nshapes; i++)
            if (o->shapes[i].d < least)
                return nl_usage_error("bench", "--impl %s on --shape %zux%zu: %s of %zu value%s is "
                                      "%s whatever x is, so its gradient is of order eps and all "
                                      "float rounding; give d >= %zu", name, o->shapes[i].rows,
                                      o->shapes[i].d, nl_norm_name(b->norm), o->shapes[i].d,
                                      o->shapes[i].d == 1 ? "" : "s",
                                      b->norm == NL_LAYERNORM ? "+-1 (or 0)" : "its sign", least) == 0;
        p += n + (p[n] == ',');
    }
    return 1;
}

static void add_shape_once(bench_options *o, nl_shape s)
{
    for (size_t i = 0; i < o->nshapes; i++)
        if (o->shapes[i].rows == s.rows && o->shapes[i].d == s.d)
            return;
    o->shapes[o->nshapes++] = s;
}

/* --gpt2 and --flashnorm without --shape: GPT-2's shapes, each once. */
static void chapter12_shapes(bench_options *o)
{
    const nl_shape *g = o->quick ? gpt2_quick_shapes : gpt2_shapes;
    const nl_shape *f = o->quick ? flashnorm_quick_shapes : flashnorm_shapes;
    size_t ng = o->quick ? NL_COUNT(gpt2_quick_shapes) : NL_COUNT(gpt2_shapes);
    size_t nf = o->quick ? NL_COUNT(flashnorm_quick_shapes) : NL_COUNT(flashnorm_shapes);
    for (size_t i = 0; o->gpt2 && i < ng; i++)
        add_shape_once(o, g[i]);
    for (size_t i = 0; o->flashnorm && i < nf; i++)
        add_shape_once(o, f[i]);
}

int cmd_bench(int argc, char **argv)
{
    bench_options o = {.argc = argc, .argv = argv};
    const nl_option opts[] = {
        {"--quick", NL_OPT_FLAG, &o.quick, 0, NULL, NULL},
        {"--force", NL_OPT_FLAG, &o.force, 0, NULL, NULL},
        {"--no-peer", NL_OPT_FLAG, &o.no_peer, 0, NULL, NULL},
        {"--opencl", NL_OPT_FLAG, &o.opencl, 0, NULL, NULL},
        {"--fused", NL_OPT_FLAG, &o.fused, 0, NULL, NULL},
        {"--gpt2", NL_OPT_FLAG, &o.gpt2, 0, NULL, NULL},
        {"--flashnorm", NL_OPT_FLAG, &o.flashnorm, 0, NULL, NULL},
        {"--show", NL_OPT_MAYBE, &o.show, 0, NULL, NULL},
        {"--csv", NL_OPT_TEXT, &o.csv, 0, NULL, NULL},
        {"--impl", NL_OPT_TEXT, &o.impls, 0, NULL, NULL},
        {"--device", NL_OPT_TEXT, &o.device, 0, NULL, NULL},
        {"--samples", NL_OPT_SIZE, &o.samples, MAX_SAMPLES, NULL, "--reps"},
        {"--shape", NL_OPT_CUSTOM, &o, 0, add_shapes, NULL},
        {"--threads", NL_OPT_CUSTOM, &o, 0, set_threads, NULL},
        {"--note", NL_OPT_CUSTOM, &o, 0, add_note, NULL},
        {"--goals", NL_OPT_CUSTOM, &o, 0, add_goal_file, NULL},
        {"--dtype", NL_OPT_CUSTOM, &o.dtypes, 0, add_dtypes, NULL},
    };
    int code;
    if (!nl_options_parse("bench", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;
    if (o.show && o.ngoal_files)
        return nl_usage_error("bench", "--show and --goals each read runs; give one of them");
    if (o.show) /* an old CSV may name implementations since renamed */
        return bench_show(&o);
    if (o.ngoal_files)
        return bench_goals(&o);
    if (!bench_check_names(o.impls))
        return 2;
    if (!f32_names_have_f32(&o))
        return 2;
    if (o.device && (nl_opencl_pick(o.device) < 0 || nl_opencl_use(o.device) != NL_OK))
        return nl_usage_error("bench", "%s", nl_last_error());

    if (o.nshapes == 0 && (o.gpt2 || o.flashnorm))
        chapter12_shapes(&o);
    if (o.nshapes == 0) {
        const nl_shape *src = o.quick ? quick_shapes : full_shapes;
        o.nshapes = o.quick ? NL_COUNT(quick_shapes) : NL_COUNT(full_shapes);
        memcpy(o.shapes, src, o.nshapes * sizeof *src);
        if (!o.quick)
            beyond_cache(&o);
    }
    if (!backward_shapes_defined(&o))
        return 2;
    if (o.nthreads == 0) {
        o.threads[o.nthreads++] = 1;
        if (bench_cores() > 1)
            o.threads[o.nthreads++] = (size_t)bench_cores();
    }
    if (o.samples == 0)
        o.samples = o.quick ? QUICK_SAMPLES : FULL_SAMPLES;
    return bench_run(&o);
}
