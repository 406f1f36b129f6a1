/* platform.c — placeholder until the OpenCL host code lands (issue 6). */
#include "normlab.h"

const char *nl_opencl_unavailable(void) { return "OpenCL host code not built yet"; }

int nl_cl_bench_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return NL_EUNAVAIL;
}
