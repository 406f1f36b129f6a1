/* errors.c — OpenCL status codes by name.  "CL_OUT_OF_RESOURCES" tells a
 * reader where to look; "-5" sends them to cl.h. */
#include <stdio.h>

#include "opencl/internal.h"

#define NAME(code) \
    case code:     \
        return #code;

const char *nl_cl_error_name(int code)
{
    switch (code) {
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_IMAGE_FORMAT_MISMATCH)
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE)
        NAME(CL_LINKER_NOT_AVAILABLE)
        NAME(CL_LINK_PROGRAM_FAILURE)
        NAME(CL_DEVICE_PARTITION_FAILED)
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        NAME(CL_INVALID_IMAGE_SIZE)
        NAME(CL_INVALID_SAMPLER)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_GL_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_MIP_LEVEL)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_INVALID_PROPERTY)
        NAME(CL_INVALID_IMAGE_DESCRIPTOR)
        NAME(CL_INVALID_COMPILER_OPTIONS)
        NAME(CL_INVALID_LINKER_OPTIONS)
        NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
    /* Newer and extension codes, spelled as numbers so that the 1.2
     * headers we build against need not define them. */
    case -69:
        return "CL_INVALID_PIPE_SIZE";
    case -70:
        return "CL_INVALID_DEVICE_QUEUE";
    case -71:
        return "CL_INVALID_SPEC_ID";
    case -72:
        return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    static _Thread_local char unknown[48];
    snprintf(unknown, sizeof unknown, "unknown OpenCL error %d", code);
    return unknown;
}

int nl_cl_fail(const char *what, cl_int err)
{
    nl_set_error("%s: %s (%d)", what, nl_cl_error_name(err), (int)err);
    return NL_EDEVICE;
}
