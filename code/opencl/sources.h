/* sources.h — the kernel sources compiled into the library.
 * mk/opencl.mk turns each .cl file of code/opencl/kernels into one entry of
 * nl_cl_embedded at build time, so the binary runs from any folder. */
#ifndef NL_OPENCL_SOURCES_H
#define NL_OPENCL_SOURCES_H

#include <stddef.h>

typedef struct {
    const char *name; /* "layernorm.cl" */
    const char *text;
} nl_cl_source;

extern const nl_cl_source nl_cl_embedded[];
extern const size_t nl_cl_embedded_count;

#endif
