/* devices.c — `normlab devices`: the OpenCL devices this machine offers,
 * numbered as NORMLAB_CL_DEVICE and --device count them, with the one
 * normlab would use marked. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: normlab devices [--device SPEC]\n\n"
            "Lists every OpenCL platform and device and marks with '*' the one normlab\n"
            "uses. SPEC (or the environment variable NORMLAB_CL_DEVICE) is a device\n"
            "number or part of a device or platform name, case-insensitive; without\n"
            "either, normlab takes the first GPU, else device 0.\n"
            "Exits 1 when there is no OpenCL platform or device, 2 when SPEC matches none.\n");
}

int cmd_devices(int argc, char **argv)
{
    const char *spec = NULL;
    const nl_option opts[] = {{"--device", NL_OPT_TEXT, &spec, 0, NULL, NULL}};
    int code;
    if (!nl_options_parse("devices", opts, NL_COUNT(opts), argc, argv, NULL, usage, &code))
        return code;

    enum { MAX = 64 };
    nl_cl_device_info dev[MAX];
    int n = nl_opencl_devices(dev, MAX);
    if (n < 0) {
        fprintf(stderr, "normlab devices: %s\n", nl_last_error());
        return 1;
    }
    int chosen = nl_opencl_pick(spec);
    const char *last_platform = "";
    for (int i = 0; i < n && i < MAX; i++) {
        if (strcmp(dev[i].platform, last_platform) != 0)
            printf("platform: %s\n", last_platform = dev[i].platform);
        printf(" %c %2d  %-4s %s\n", i == chosen ? '*' : ' ', i, dev[i].type, dev[i].name);
        printf("        %s; %u compute units, %.1f GiB, work-groups up to %zu\n",
               dev[i].version, dev[i].compute_units,
               (double)dev[i].global_mem_bytes / (1024.0 * 1024.0 * 1024.0),
               dev[i].max_work_group);
    }
    if (chosen < 0 && spec && n > 0)
        return nl_usage_error("devices", "%s", nl_last_error());
    if (chosen < 0) {
        fprintf(stderr, "normlab devices: %s\n", nl_last_error());
        return 1;
    }
    return 0;
}
