/* platform.c — which OpenCL devices exist, and which one normlab uses.
 * Devices are numbered across all platforms in the order the ICD loader
 * reports them; `normlab devices` prints that numbering. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opencl/internal.h"

enum { MAX_PLATFORMS = 16, MAX_DEVICES = 64 };

typedef struct {
    cl_platform_id platform[MAX_DEVICES];
    cl_device_id device[MAX_DEVICES];
    int n;
} device_table;

/* The process that first called into OpenCL.  Drivers start threads on
 * first use (PoCL does so while listing platforms) and threads do not
 * survive fork(): a child that calls OpenCL after its parent did waits
 * forever.  Better a clear error than a hang. */
static pid_t cl_pid;

int nl_cl_forked(void)
{
    if (cl_pid == 0)
        cl_pid = getpid();
    if (cl_pid == getpid())
        return 0;
    nl_set_error("OpenCL was first used by process %ld, and this is a child forked from it; "
                 "the driver's threads do not survive fork(), so use OpenCL only after "
                 "forking (or run Check with CK_FORK=no)", (long)cl_pid);
    return 1;
}

static int enumerate(device_table *t)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    t->n = 0;
    if (nl_cl_forked())
        return NL_EUNAVAIL;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
        const char *vendors = getenv("OCL_ICD_VENDORS");
        nl_set_error("no OpenCL platform: the ICD loader found no driver in %s%s "
                     "(install pocl-opencl-icd for a CPU device, or a GPU's OpenCL driver)",
                     vendors ? "OCL_ICD_VENDORS=" : "/etc/OpenCL/vendors",
                     vendors ? vendors : "");
        return NL_EUNAVAIL;
    }
    if (err != CL_SUCCESS)
        return nl_cl_fail("clGetPlatformIDs", err);
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        cl_device_id devs[MAX_DEVICES];
        /* A platform without devices (a driver with no card) is skipped,
         * not an error: another platform may have one. */
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd && i < MAX_DEVICES && t->n < MAX_DEVICES; i++) {
            t->platform[t->n] = plats[p];
            t->device[t->n++] = devs[i];
        }
    }
    if (t->n == 0) {
        nl_set_error("no OpenCL device: %u platform(s) found, none with a device", np);
        return NL_EUNAVAIL;
    }
    return NL_OK;
}

static void describe(cl_platform_id p, cl_device_id d, nl_cl_device_info *info)
{
    memset(info, 0, sizeof *info);
    cl_device_type type = 0;
    cl_uint cu = 0;
    cl_ulong mem = 0;
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof info->platform - 1, info->platform, NULL);
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof info->version - 1, info->version, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_work_group,
                    &info->max_work_group, NULL);
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    snprintf(info->type, sizeof info->type, "%s",
             info->is_gpu ? "GPU" : (type & CL_DEVICE_TYPE_CPU) ? "CPU"
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator" : "other");
    info->compute_units = cu;
    info->global_mem_bytes = (unsigned long long)mem;
}

int nl_opencl_devices(nl_cl_device_info *out, int max)
{
    device_table t;
    int rc = enumerate(&t);
    if (rc != NL_OK)
        return rc;
    for (int i = 0; i < t.n && i < max; i++)
        describe(t.platform[i], t.device[i], &out[i]);
    return t.n;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

static int pick(const device_table *t, const char *spec, const char *from)
{
    if (!spec || !*spec) {
        for (int i = 0; i < t->n; i++) {
            cl_device_type type = 0;
            clGetDeviceInfo(t->device[i], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type & CL_DEVICE_TYPE_GPU)
                return i;
        }
        return 0;
    }
    if (strspn(spec, "0123456789") == strlen(spec)) {
        long i = strtol(spec, NULL, 10);
        if (i < t->n)
            return (int)i;
        nl_set_error("%s%s: there are only %d OpenCL device(s), numbered from 0 "
                     "(normlab devices lists them)", from, spec, t->n);
        return NL_EARG;
    }
    for (int i = 0; i < t->n; i++) {
        nl_cl_device_info info;
        describe(t->platform[i], t->device[i], &info);
        if (contains_nocase(info.name, spec) || contains_nocase(info.platform, spec))
            return i;
    }
    nl_set_error("%s%s matches no OpenCL device or platform name "
                 "(normlab devices lists them)", from, spec);
    return NL_EARG;
}

/* The device chosen with nl_opencl_use, which outranks the environment. */
static char chosen[128];

void nl_cl_choose(const char *spec)
{
    snprintf(chosen, sizeof chosen, "%s", spec ? spec : "");
}

static int resolve(const char *spec, device_table *t)
{
    int rc = enumerate(t);
    if (rc != NL_OK)
        return rc;
    const char *from = "--device ";
    if (!spec && chosen[0])
        spec = chosen;
    else if (!spec) {
        spec = getenv("NORMLAB_CL_DEVICE");
        from = "NORMLAB_CL_DEVICE=";
    }
    return pick(t, spec, from);
}

int nl_opencl_pick(const char *spec)
{
    device_table t;
    return resolve(spec, &t);
}

int nl_cl_find(const char *spec, cl_device_id *device)
{
    device_table t;
    int i = resolve(spec, &t);
    if (i < 0)
        return i;
    *device = t.device[i];
    return NL_OK;
}

const char *nl_opencl_unavailable(void)
{
    static _Thread_local char why[512];
    if (nl_opencl_pick(NULL) >= 0)
        return NULL;
    snprintf(why, sizeof why, "%s", nl_last_error());
    return why;
}
