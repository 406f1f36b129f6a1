/* program.c — kernel sources and their build.
 * The sources are compiled into the library (mk/opencl.mk); a folder named
 * by NORMLAB_CL_KERNELS replaces them file by file, which is how the grader
 * runs a student's reduce.cl and how the tests feed in a broken kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opencl/internal.h"
#include "opencl/sources.h"

/* The override folder, checked once per build: a folder that does not
 * exist is a typo, and falling back to the embedded kernels would time or
 * grade the wrong code without a word. */
static int override_folder(const char **dir)
{
    *dir = getenv("NORMLAB_CL_KERNELS");
    if (!*dir || !**dir) {
        *dir = NULL;
        return NL_OK;
    }
    struct stat st;
    if (stat(*dir, &st) != 0) {
        nl_set_error("NORMLAB_CL_KERNELS=%s: %s (it names the folder whose .cl files replace "
                     "the built-in kernels)", *dir, strerror(errno));
        return NL_EARG;
    }
    if (!S_ISDIR(st.st_mode)) {
        nl_set_error("NORMLAB_CL_KERNELS=%s is not a folder (it names the folder whose .cl files "
                     "replace the built-in kernels)", *dir);
        return NL_EARG;
    }
    return NL_OK;
}

/* Reads `name` from the override folder if it has one, else returns the
 * embedded copy.  *owned is set when the text must be freed. */
static const char *source_of(const char *dir, const char *name, char **owned, int *overridden)
{
    *owned = NULL;
    *overridden = 0;
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        /* A file the folder does not have comes from the embedded copies;
         * one it has but that cannot be read is an error, not a fallback. */
        struct stat st;
        if (stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                nl_set_error("NORMLAB_CL_KERNELS: %s is a folder, not a kernel source file", path);
                return NULL;
            }
            char *text = nl_read_file(path, (size_t)16 << 20, NULL);
            if (!text) {
                char why[512];
                snprintf(why, sizeof why, "%s", nl_last_error());
                nl_set_error("NORMLAB_CL_KERNELS: cannot read kernel source: %s", why);
                return NULL;
            }
            *owned = text;
            *overridden = 1;
            return text;
        }
        if (errno != ENOENT) {
            nl_set_error("NORMLAB_CL_KERNELS: cannot read kernel source %s: %s", path,
                         strerror(errno));
            return NULL;
        }
    }
    for (size_t i = 0; i < nl_cl_embedded_count; i++)
        if (strcmp(nl_cl_embedded[i].name, name) == 0)
            return nl_cl_embedded[i].text;
    nl_set_error("no kernel source %s, neither embedded nor in NORMLAB_CL_KERNELS", name);
    return NULL;
}

int nl_cl_build(cl_context ctx, cl_device_id device, const char *kernel, cl_program *out)
{
    char main_file[64];
    snprintf(main_file, sizeof main_file, "%s.cl", kernel);
    const char *files[] = {"vec.cl", "reduce.cl", main_file};
    enum { NFILES = sizeof files / sizeof files[0] };

    /* A #line before each file makes the compiler's messages name the file
     * and line the reader has open, not an offset into the concatenation. */
    char lines[NFILES][96];
    const char *parts[2 * NFILES];
    char *owned[NFILES] = {NULL};
    char replaced[256] = "";
    const char *dir;
    int rc = override_folder(&dir);
    if (rc != NL_OK)
        return rc;
    for (int i = 0; i < NFILES; i++) {
        int over = 0;
        const char *text = source_of(dir, files[i], &owned[i], &over);
        if (!text) {
            rc = NL_EARG;
            goto done;
        }
        if (over) {
            size_t used = strlen(replaced);
            snprintf(replaced + used, sizeof replaced - used, "%s%s", used ? ", " : "", files[i]);
        }
        snprintf(lines[i], sizeof lines[i], "#line 1 \"%s\"\n", files[i]);
        parts[2 * i] = lines[i];
        parts[2 * i + 1] = text;
    }

    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx, 2 * NFILES, parts, NULL, &err);
    if (err != CL_SUCCESS) {
        rc = nl_cl_fail("clCreateProgramWithSource", err);
        goto done;
    }
    err = clBuildProgram(prog, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t len = 0;
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        char *log = calloc(len + 1, 1);
        if (log)
            clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
        nl_set_error("OpenCL kernel '%s' failed to build (%s)%s%s%s; compiler log:\n%s",
                     kernel, nl_cl_error_name(err),
                     replaced[0] ? " with " : "", replaced,
                     replaced[0] ? " from NORMLAB_CL_KERNELS" : "",
                     log ? log : "(no memory for the log)");
        free(log);
        clReleaseProgram(prog);
        rc = NL_EDEVICE;
        goto done;
    }
    *out = prog;
done:
    for (int i = 0; i < NFILES; i++)
        free(owned[i]);
    return rc;
}
