/* bench_entries.c — what `normlab bench` can time, as one table of row
 * kinds.  Each kind appends the entries it has; an entry says how to check
 * and time itself (hooks), which device and dtype it is, and how many
 * bytes one element moves.
 *
 * Adding rows of a new kind (another chapter's registry: bf16 storage,
 * fused add+norm, backward kernels): write one collect function that walks
 * that registry and fills a bench_entry per implementation (dtype, bytes
 * per element, `impl` pointing to its own registry entry, and `check` and
 * `time` hooks that adapt its signature to an nl_bench_data), then add one
 * line to `kinds` below.  The run, the table and the CSV need no change.
 * A kind asks what the options select through bench_select.c, never
 * through this file: the table calls the kinds, not the other way. */
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/options.h"
#include "opencl/measure.h"

/* ------------------------------------------------------------ the kinds */

/* --opencl, --fused, --gpt2 and --flashnorm ask for their own rows instead
 * of the f32 registry's. */
static int bench_other_kind(const bench_options *o)
{
    return o->opencl || o->fused || o->gpt2 || o->flashnorm;
}

/* The f32 forward registry's host kernels, against the host's copy. */
static size_t cpu_kernels(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n && k < max; i++) {
        if ((all[i].requires & NL_REQ_OPENCL) || !bench_listed(o->impls, all[i].name) ||
            (bench_other_kind(o) && !o->impls) || !bench_wants_dtype(o, NL_DT_F32))
            continue;
        out[k++] = (bench_entry){
            .name = all[i].name, .norm = all[i].norm, .device = "cpu", .dtype = "f32",
            .bytes_per_elem = 8, .tol = all[i].tol,
            .threaded = (all[i].requires & NL_REQ_OPENMP) != 0,
            .unavailable = nl_impl_unavailable(&all[i]), .fn = all[i].fn};
    }
    return k;
}

/* The oneDNN peer: the same as our naive float LayerNorm's bound. */
static size_t peer(const bench_options *o, bench_entry *out, size_t max)
{
    if (o->no_peer || max == 0 || !bench_listed(o->impls, "onednn") ||
        (bench_other_kind(o) && !o->impls) ||
        !bench_wants_dtype(o, NL_DT_F32))
        return 0;
    out[0] = (bench_entry){.name = "onednn", .norm = NL_LAYERNORM, .device = "cpu",
                           .dtype = "f32", .bytes_per_elem = 8, .tol = 2e-5, .threaded = 1,
                           .peer = 1, .unavailable = nl_onednn_unavailable(),
                           .fn = nl_onednn_layernorm};
    return 1;
}

static int opencl_time(const bench_entry *e, const nl_bench_data *b, size_t samples,
                       nl_bench_row *row)
{
    return nl_cl_bench_time(e->norm, b, samples, row);
}

/* The registry's OpenCL kernels, against the device's own copy: a device
 * kernel against the host's copy roof would compare unlike things.  They
 * run with --opencl, or when --impl names them. */
static size_t opencl_kernels(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_impl *all = nl_impls(&n);
    for (size_t i = 0; i < n && k < max; i++) {
        if (!(all[i].requires & NL_REQ_OPENCL) || !(o->opencl || o->impls) ||
            !bench_listed(o->impls, all[i].name) || !bench_wants_dtype(o, NL_DT_F32))
            continue;
        out[k++] = (bench_entry){
            .name = all[i].name, .norm = all[i].norm, .device = "opencl", .dtype = "f32",
            .bytes_per_elem = 8, .tol = all[i].tol,
            .unavailable = nl_impl_unavailable(&all[i]), .fn = all[i].fn,
            .time = opencl_time};
    }
    return k;
}

static int is_peer(const char *name)
{
    return !strcmp(name, "onednn");
}

static const struct {
    size_t (*collect)(const bench_options *o, bench_entry *out, size_t max);
    int (*knows)(const char *name); /* names --impl accepts beyond the f32 registry */
} kinds[] = {
    {cpu_kernels, NULL},
    {peer, is_peer},
    {opencl_kernels, NULL},
    {bench_half_entries, bench_half_knows},
    {bench_fused_entries, bench_fused_knows},
    {bench_backward_entries, bench_backward_knows},
    {bench_gpt2_entries, bench_gpt2_knows},
};

size_t bench_collect(const bench_options *o, bench_entry *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        k += kinds[i].collect(o, out + k, max - k);
    return k;
}

static int known(const char *name)
{
    if (nl_find_impl(name))
        return 1;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].knows && kinds[i].knows(name))
            return 1;
    return 0;
}

int bench_check_names(const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (!known(name))
            return nl_usage_error("bench", "--impl '%s': no implementation '%s' (normlab impls "
                                  "lists them)", list, name) == 0;
        p += n + (comma != NULL);
    }
    return 1;
}
