/* platform.c — placeholder until the OpenCL host code lands (issue 6). */
#include "normlab.h"

const char *nl_opencl_unavailable(void) { return "OpenCL host code not built yet"; }
