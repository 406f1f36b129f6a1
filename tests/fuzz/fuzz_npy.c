/* fuzz_npy.c — libFuzzer entry point for the .npy reader: any bytes as a
 * file; it must read them as an array that agrees with its shape, or
 * refuse them naming the file, never crash, leak or read out of bounds. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = nl_fuzz_file(data, size, path, sizeof path);
    nl_array a;
    nl_fuzz_check(nl_npy_read(path, &a), path, &a);
    close(fd);
    return 0;
}
