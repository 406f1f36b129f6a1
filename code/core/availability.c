/* availability.c — can this implementation run on this machine?  The
 * instruction set is code/simd/isa.c's question, the OpenCL device
 * code/opencl/'s; this file only asks them in turn. */
#include "normlab.h"

#include "simd/simd.h"

const char *nl_impl_unavailable(const nl_impl *impl)
{
    const char *why = nl_isa_unavailable(impl->requires);
    if (why)
        return why;
    if (impl->requires & NL_REQ_OPENCL)
        return nl_opencl_unavailable();
    return NULL;
}
