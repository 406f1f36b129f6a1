/* bench_provenance.c — the "# " lines at the top of a bench CSV: the
 * machine, compiler, date, peer, device and the command line, so that the
 * numbers never travel without where they came from. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cli/bench.h"
#include "core/sizes.h"
#include "simd/simd.h"

static void cpu_name(char *buf, size_t n)
{
    struct utsname u;
    snprintf(buf, n, "%s", uname(&u) == 0 ? u.machine : "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && !strncmp(line, "model name", 10)) {
            colon++;
            colon += strspn(colon, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, n, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static void opencl_device(char *buf, size_t n)
{
    nl_cl_device_info dev[64];
    int count = nl_opencl_devices(dev, 64), chosen = nl_opencl_pick(NULL);
    if (count > 0 && chosen >= 0 && chosen < count && chosen < 64)
        snprintf(buf, n, "%s (%s, %s)", dev[chosen].name, dev[chosen].platform,
                 dev[chosen].version);
    else
        snprintf(buf, n, "none: %s", nl_last_error());
}

/* The command as typed: words the shell would split are quoted, so the
 * line can be pasted back; a control character (a newline in a file name)
 * is written as \ooo, since it would end the "# " comment. */
static void command_line(const bench_options *o, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "command: normlab");
    for (int i = 0; i < o->argc && len + 8 < n; i++) {
        const char *q = strpbrk(o->argv[i], " \t\"$") ? "'" : "";
        len += (size_t)snprintf(buf + len, n - len, " %s", q);
        for (const unsigned char *c = (const unsigned char *)o->argv[i]; *c && len + 8 < n; c++)
            len += (size_t)snprintf(buf + len, n - len, *c < 0x20 || *c == 0x7f ? "\\%03o" : "%c",
                                    *c);
        len += (size_t)snprintf(buf + len, n - len, "%s", q);
    }
}

size_t bench_provenance(const bench_options *o, int opencl_rows, char lines[][512], size_t max)
{
    size_t k = 0;
    char text[256];
    if (max < 12)
        return 0;
    snprintf(lines[k++], 512, "normlab bench%s",
             o->quick ? " --quick: a smoke test, not numbers to quote" : "");
    cpu_name(text, sizeof text);
    snprintf(lines[k++], 512, "cpu: %s, %d cores online, %.1f GiB memory", text, bench_cores(),
             nl_phys_memory() / (1024.0 * 1024.0 * 1024.0));
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    snprintf(lines[k++], 512, "caches: L2 %.1f MiB per core, last level %.1f MiB, from %s "
             "(0: not reported)", l2 / (1024.0 * 1024.0), l3 / (1024.0 * 1024.0),
             !strcmp(nl_cache_source(), "sysfs") ? "the core's sysfs entries"
             : *nl_cache_source() ? "sysconf (getconf)" : "nowhere");
    /* _best and _omp run other rungs (the same bits) by CPU: say which */
    const char *rv = getenv("NORMLAB_RUNGS");
    rv = rv && *rv ? rv : NULL; /* empty: unset */
    int forced = rv && (!strcmp(rv, "block") || !strcmp(rv, "row"));
    snprintf(lines[k++], 512, "rungs: %s (the fast rungs' shape that _best and _omp take out of "
             "cache; %s%s)", nl_rungs_name(nl_rungs_active()),
             forced ? "NORMLAB_RUNGS=" : rv ? "NORMLAB_RUNGS is neither block nor row, so "
                                             "this CPU's choice" : "this CPU's choice",
             forced ? rv : "");
    /* which width the rows ran at: a run capped by NORMLAB_ISA on a wider
     * CPU must not pass for one of that CPU's own paths (bench --goals
     * holds the AVX2 goals to rows labelled avx2) */
    const char *active = nl_isa_name(nl_isa_active()), *cpu = nl_isa_name(nl_isa_cpu());
    if (strcmp(active, cpu))
        snprintf(lines[k++], 512, "isa: %s (the SIMD path _best and _omp took; NORMLAB_ISA=%s "
                 "capped this CPU's %s)", active, getenv("NORMLAB_ISA"), cpu);
    else
        snprintf(lines[k++], 512, "isa: %s (the SIMD path _best and _omp took: this CPU's "
                 "widest)", active);
#if defined(__clang__)
    snprintf(lines[k++], 512, "compiler: clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(lines[k++], 512, "compiler: gcc %s", __VERSION__);
#else
    snprintf(lines[k++], 512, "compiler: unknown");
#endif
    time_t now = time(NULL);
    struct tm tm;
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    snprintf(lines[k++], 512, "date: %s", text);
    snprintf(lines[k++], 512, "peer: %s", nl_onednn_unavailable() ? nl_onednn_unavailable()
                                                                  : nl_onednn_version());
    if (opencl_rows) {
        opencl_device(text, sizeof text);
        snprintf(lines[k++], 512, "opencl device: %s", text);
        /* The experiment knobs change the layout: a run must say it used them. */
        static const char *const knobs[] = {"NORMLAB_CL_PER_ITEM", "NORMLAB_CL_MAX_LOCAL",
                                            "NORMLAB_CL_KERNELS"};
        int len = snprintf(lines[k], 512, "opencl settings:");
        for (size_t i = 0; i < sizeof knobs / sizeof *knobs && len < 400; i++)
            if (getenv(knobs[i]))
                len += snprintf(lines[k] + len, (size_t)(512 - len), " %s=%.100s", knobs[i],
                                getenv(knobs[i]));
        if (len > (int)strlen("opencl settings:"))
            k++;
    }
    command_line(o, lines[k++], 512);
    snprintf(lines[k++], 512, "columns: times in seconds per call; gbps counts bytes read + "
             "written (bytes_per_elem per element); frac_copy = copy time / kernel time, median "
             "of paired samples; roof = the fastest copy of the same bytes in the same run "
             "(device: the device's own copy)");
    return k;
}
