/* bench_table.c — the one row printer of `normlab bench`: a run prints
 * its rows as they are measured, --show prints an earlier run's, both
 * through here.  The narrow form (--show) is about 80 characters, for a
 * book page; the wide form adds the spread and the error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"

#define MIB (1024.0 * 1024.0)

static const char *human_bytes(double bytes, char *buf, size_t n)
{
    if (bytes >= MIB)
        snprintf(buf, n, "%.1f MiB", bytes / MIB);
    else if (bytes >= 1024.0)
        snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
    else
        snprintf(buf, n, "%.0f B", bytes);
    return buf;
}

/* What the regime means for the numbers below it: in cache the copy is a
 * yardstick, beyond the last-level cache it is the wall (chapter 6). A
 * live run (`here`) names this machine's L3 and where its size came from;
 * --show reads another run's regime, whose machine's caches are in its
 * CSV's "# caches:" line. */
static const char *regime_words(const char *regime, int here)
{
    if (!regime || !*regime)
        return "";
    if (!strcmp(regime, "L2"))
        return "; fits L2";
    if (!here)
        return !strcmp(regime, "L3") ? "; fits L3" : "; beyond L3";
    /* say whose figure: a VM's sysconf may report the host's whole L3 */
    static char words[96];
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    snprintf(words, sizeof words, "; %s the L3 of %.0f MiB (%s)",
             !strcmp(regime, "L3") ? "fits" : "beyond", l3 / MIB,
             *nl_cache_source() ? nl_cache_source() : "unknown");
    return words;
}

/* Bytes one value of dtype takes: 2 for "bf16" and "f16", else a float's
 * (f32, and an old CSV's empty dtype). */
static size_t value_bytes(const char *dtype)
{
    int dt = dtype && *dtype ? nl_dtype_parse(dtype) : -1;
    return dt < 0 ? sizeof(float) : nl_dtype_size((nl_dtype)dt);
}

int bench_block_changes(const char *dtype, const char *last_dtype)
{
    return value_bytes(dtype) != value_bytes(last_dtype);
}

void bench_print_block(nl_shape s, size_t t, const char *regime, const char *dtype, int wide)
{
    char size[32];
    size_t vb = value_bytes(dtype);
    /* nl_shape_bytes counts float32 in and out; a 16-bit row moves half */
    human_bytes(nl_shape_bytes(s) / 2 * (double)vb / sizeof(float), size, sizeof size);
    if (vb == sizeof(float))
        printf("\n== %zux%zu (%s in, as much out), %zu thread%s%s\n", s.rows, s.d, size, t,
               t == 1 ? "" : "s", regime_words(regime, wide));
    else
        printf("\n== %zux%zu %s (%s in, as much out: %zu bytes per element, not f32's %zu), "
               "%zu thread%s%s\n", s.rows, s.d, dtype, size, 2 * vb, 2 * sizeof(float), t,
               t == 1 ? "" : "s", regime_words(regime, wide));
    printf("%-26s %9s", "implementation", "ms");
    if (wide)
        printf(" %19s", "p10..p90 ms");
    printf(" %7s %7s %7s %-6s %8s", "GB/s", "of copy", "copy", "roof", "vs naive");
    if (wide)
        printf(" %9s", "max err");
    printf("\n");
}

void bench_print_row(const nl_bench_row *r, const char *why, int wide)
{
    char name[40], speed[16] = "-";
    snprintf(name, sizeof name, "%s%s", r->impl, r->peer ? " (peer)" : "");
    if (!strcmp(r->status, "error")) {
        printf("%-26s error%s%s\n", name, why ? ": " : "", why ? why : "");
    } else if (strcmp(r->status, "ok") != 0) {
        printf("%-26s %s: max err %.2e > tol %.1e; not timed\n", name, r->status, r->max_err,
               r->tol);
    } else {
        if (isfinite(r->speedup))
            snprintf(speed, sizeof speed, "%.2fx", r->speedup);
        printf("%-26s %9.3f", name, r->median_s * 1e3);
        if (wide) {
            char spread[40];
            snprintf(spread, sizeof spread, "%.3f..%.3f", r->p10_s * 1e3, r->p90_s * 1e3);
            printf(" %19s", spread);
        }
        printf(" %7.1f %7.2f %7.1f %-6s %8s", r->gbps, r->frac_copy, r->copy_gbps,
               r->roof ? r->roof : "", speed);
        if (wide)
            printf(" %9.1e", r->max_err);
        printf("\n");
    }
    fflush(stdout);
}
