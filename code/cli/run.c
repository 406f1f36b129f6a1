/* run.c — `normlab run IMPL --x X.npy --gamma G.npy ... --out Y.npy`:
 * any registered implementation on a reader's own arrays.
 *
 * This file is the command: the options of every mode, picking the mode,
 * reading .npy and .safetensors inputs, and refusing to overwrite a file
 * unless --force says so, before anything is read or computed. What the
 * modes call back into (inputs by name, their dtype, writing outputs) is
 * in run_io.c, so that calls go one way: here -> modes -> run_io.c. Every
 * check runs before anything is written, and every message names the
 * file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "run.h"

static const run_mode *const modes[] = {
#define RUN_MODE(var) &var,
#include "run_modes.def"
#undef RUN_MODE
};
enum { NMODES = sizeof modes / sizeof modes[0] };

static void help(FILE *to)
{
    fprintf(to,
"usage: normlab run IMPL --x X --gamma G [--beta B] [--eps E] [--cast ORDER]\n"
"                   [--dtype bf16|f16|f32] --out Y.npy [--force]\n"
"\n"
"Runs one registered implementation (normlab impls lists them) on arrays\n"
"you made in NumPy or PyTorch, and writes its output as .npy.\n"
"\n"
"  X, G, B   FILE.npy (format 1.0-3.0, little-endian, C order) or\n"
"            FILE.safetensors[:TENSOR] (F32, F16, BF16; TENSOR may be left\n"
"            out when the file holds one tensor). x is 2-D (rows, d);\n"
"            gamma and beta are 1-D of length d.\n"
"  dtypes    '<f4' float32, '<f2' float16; bf16 arrives as 16-bit raw\n"
"            ('<u2', as x.view(np.uint16) saves it, or '|V2', as\n"
"            ml_dtypes.bfloat16 saves it): say --dtype bf16. Y has x's dtype.\n"
"  IMPL      an f32 implementation (rmsnorm_avx512, ...) for float32 data,\n"
"            or a bf16/fp16 one (rmsnorm_llama_bf16, ...). An f32 name on\n"
"            16-bit data runs the scalar kernel of --cast for that dtype.\n"
"  --cast    llama | gemma | t5 | t5_f32w (RMSNorm), torch (LayerNorm):\n"
"            where the model rounds to its dtype (chapter 8). The weight is\n"
"            stored in x's dtype, except t5_f32w (float32); gemma's weight is\n"
"            the offset w of (1 + w), as Gemma checkpoints store it.\n"
"  --eps     added to the variance inside the root (default 1e-5; models\n"
"            state theirs in config.json: normlab config)\n"
"  --force   replace an existing output file (never done otherwise)\n"
"\n"
"Exit status: 0 done; 2 bad usage or bad input (named on stderr, nothing\n"
"written); 1 the implementation failed.\n");
}

static int is_output(const run_mode *m, const char *name)
{
    for (int i = 0; i < RUN_MAX_FILES && m->outputs[i]; i++)
        if (!strcmp(m->outputs[i], name))
            return 1;
    return 0;
}

static int is_input(const run_mode *m, const char *name)
{
    if (!strcmp(name, "x") || !strcmp(name, "gamma") || !strcmp(name, "beta"))
        return 1;
    for (int i = 0; i < RUN_MAX_FILES && m->inputs[i]; i++)
        if (!strcmp(m->inputs[i], name))
            return 1;
    return 0;
}

/* "the forward and fused modes": every mode that takes file option
 * `name` (--out belongs to two), for the message that refuses it. */
static const char *owners_of(const char *name, char *buf, size_t size)
{
    size_t n = 0, len = 0;
    const run_mode *own[NMODES];
    for (size_t i = 0; i < NMODES; i++)
        if (is_input(modes[i], name) || is_output(modes[i], name))
            own[n++] = modes[i];
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " and ",
                                own[i]->name);
    if (len < size)
        snprintf(buf + len, size - len, n > 1 ? " modes" : " mode");
    return buf;
}

/* FILE.safetensors[:TENSOR] or FILE.npy */
static int read_input(const char *spec, nl_array *out)
{
    const char *ext = strstr(spec, ".safetensors");
    while (ext && ext[12] != '\0' && ext[12] != ':')
        ext = strstr(ext + 1, ".safetensors");
    if (!ext)
        return nl_npy_read(spec, out);
    size_t n = (size_t)(ext + 12 - spec);
    char *file = malloc(n + 1);
    if (!file)
        return NL_ENOMEM;
    memcpy(file, spec, n);
    file[n] = '\0';
    int rc = nl_safetensors_read(file, ext[12] == ':' ? ext + 13 : NULL, out);
    free(file);
    return rc;
}

static int parse_eps(const char *v, void *dest)
{
    char *end;
    double e = strtod(v, &end);
    if (end == v || *end || !(e >= 0) || e > 1e30) {
        nl_set_error("not a number from 0 to 1e30");
        return 0;
    }
    *(float *)dest = (float)e;
    return 1;
}

static int parse_cast(const char *v, void *dest)
{
    if ((*(int *)dest = nl_cast_parse(v)) >= 0)
        return 1;
    nl_set_error("not one of llama, gemma, t5, t5_f32w, torch");
    return 0;
}

static int parse_dtype(const char *v, void *dest)
{
    if ((*(int *)dest = nl_dtype_parse(v)) >= 0)
        return 1;
    nl_set_error("not one of f32, bf16, f16");
    return 0;
}

/* The file options of every mode ("--x", "--residual-out", ...), each an
 * option of the one parser; which mode runs is decided after parsing. */
enum { RUN_MAX_NAMES = RUN_MAX_FILES * 2 + 3 };
static size_t file_option_names(const char *names[RUN_MAX_NAMES * 4])
{
    static const char *const base[] = {"x", "gamma", "beta"};
    size_t n = 0;
    for (size_t i = 0; i < 3; i++)
        names[n++] = base[i];
    for (size_t m = 0; m < NMODES; m++)
        for (int k = 0; k < 2 * RUN_MAX_FILES; k++) {
            const char *f = k < RUN_MAX_FILES ? modes[m]->inputs[k] : modes[m]->outputs[k - RUN_MAX_FILES];
            if (!f)
                continue;
            size_t j = 0;
            while (j < n && strcmp(names[j], f))
                j++;
            if (j == n && n < RUN_MAX_NAMES * 4)
                names[n++] = f;
        }
    return n;
}

static int parse(int argc, char **argv, run_ctx *ctx)
{
    const char *names[RUN_MAX_NAMES * 4], *paths[RUN_MAX_NAMES * 4] = {0};
    char spelled[RUN_MAX_NAMES * 4][48];
    size_t nnames = file_option_names(names);
    nl_option opts[RUN_MAX_NAMES * 4 + 4] = {
        {"--force", NL_OPT_FLAG, &ctx->force, 0, NULL, NULL},
        {"--eps", NL_OPT_CUSTOM, &ctx->eps, 0, parse_eps, NULL},
        {"--cast", NL_OPT_CUSTOM, &ctx->cast, 0, parse_cast, NULL},
        {"--dtype", NL_OPT_CUSTOM, &ctx->dtype, 0, parse_dtype, NULL},
    };
    for (size_t k = 0; k < nnames; k++) {
        snprintf(spelled[k], sizeof spelled[k], "--%s", names[k]);
        opts[4 + k] = (nl_option){spelled[k], NL_OPT_TEXT, &paths[k], 0, NULL, NULL};
    }
    nl_positional words;
    int code;
    if (!nl_options_parse("run", opts, 4 + nnames, argc, argv, &words, help, &code))
        return code ? code : -1;
    if (words.count > 1)
        return nl_usage_error("run", "one IMPL only, got '%s' and '%s'", words.word[0], words.word[1]);
    if (words.count == 1)
        ctx->impl = words.word[0];
    /* the given file options, in table order */
    int nfiles = 0;
    for (size_t k = 0; k < nnames; k++)
        if (paths[k]) {
            names[nfiles] = names[k];
            paths[nfiles++] = paths[k];
        }
    if (!ctx->impl)
        return run_fail("no IMPL given (normlab impls lists them; normlab run --help)");
    /* the first mode whose trigger is given, else the default */
    for (size_t m = 0; m < NMODES && !ctx->mode; m++)
        for (int k = 0; k < nfiles; k++)
            if (modes[m]->trigger && !strcmp(names[k], modes[m]->trigger))
                ctx->mode = modes[m];
    for (size_t m = 0; m < NMODES && !ctx->mode; m++)
        if (!modes[m]->trigger)
            ctx->mode = modes[m];
    for (int k = 0; k < nfiles; k++) {
        if (is_input(ctx->mode, names[k])) {
            ctx->in_name[ctx->n_in] = names[k];
            ctx->in_path[ctx->n_in++] = paths[k];
        } else if (is_output(ctx->mode, names[k])) {
            ctx->out_name[ctx->n_out] = names[k];
            ctx->out_path[ctx->n_out++] = paths[k];
        } else {
            char owners[128];
            return run_fail("--%s belongs to the %s of run, not to the %s mode (selected by "
                            "--%s)", names[k], owners_of(names[k], owners, sizeof owners),
                            ctx->mode->name, ctx->mode->trigger ? ctx->mode->trigger : "default");
        }
    }
    if (!run_input(ctx, "x") || !run_input(ctx, "gamma"))
        return run_fail("--x and --gamma are required (normlab run --help)");
    if (ctx->n_out == 0)
        return run_fail("no output file given (--%s)", ctx->mode->outputs[0]);
    return 0;
}

/* Two output paths name one file when they resolve to the same inode (an
 * existing file) or to the same name in the same folder (a new one):
 * "same.npy" and "./same.npy", or a hard link, are one file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
    const char *base_a = na ? na + 1 : a, *base_b = nb ? nb + 1 : b;
    if (strcmp(base_a, base_b) != 0)
        return 0;
    char da[4096], db[4096];
    snprintf(da, sizeof da, "%.*s", na ? (int)(na - a) + 1 : 1, na ? a : ".");
    snprintf(db, sizeof db, "%.*s", nb ? (int)(nb - b) + 1 : 1, nb ? b : ".");
    return stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Moves every staged output into place, or, when the mode failed, none. */
static int finish_outputs(run_ctx *ctx, int rc)
{
    for (int i = 0; i < ctx->n_out && rc == 0; i++)
        if (ctx->staged[i] && nl_output_check(ctx->out_path[i], ctx->force) != NL_OK)
            rc = run_fail("--%s %s", ctx->out_name[i], nl_last_error());
    for (int i = 0; i < ctx->n_out; i++) {
        if (rc == 0 && ctx->staged[i] &&
            nl_npy_commit(ctx->out_path[i], ctx->staged[i], ctx->force) != NL_OK)
            rc = run_fail("--%s: %s", ctx->out_name[i], nl_last_error());
        else if (rc != 0 || !ctx->staged[i])
            nl_npy_discard(ctx->staged[i]);
        ctx->staged[i] = NULL;
    }
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_ctx ctx = {.eps = 1e-5f, .cast = -1, .dtype = -1};
    int rc = parse(argc, argv, &ctx);
    if (rc)
        return rc < 0 ? 0 : rc;
    /* refuse to overwrite before reading or computing anything */
    for (int i = 0; i < ctx.n_out; i++) {
        if (nl_output_check(ctx.out_path[i], ctx.force) != NL_OK)
            return run_fail("--%s %s", ctx.out_name[i], nl_last_error());
        for (int k = 0; k < i; k++)
            if (same_file(ctx.out_path[k], ctx.out_path[i]))
                return run_fail("--%s %s and --%s %s name the same file", ctx.out_name[k],
                                ctx.out_path[k], ctx.out_name[i], ctx.out_path[i]);
    }
    for (int i = 0; i < ctx.n_in && rc == 0; i++)
        if (read_input(ctx.in_path[i], &ctx.in[i]) != NL_OK)
            rc = run_fail("--%s: %s", ctx.in_name[i], nl_last_error());
    if (rc == 0)
        rc = ctx.mode->run(&ctx);
    rc = finish_outputs(&ctx, rc);
    for (int i = 0; i < ctx.n_in; i++)
        nl_array_free(&ctx.in[i]);
    return rc;
}
