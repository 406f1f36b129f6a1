/* fuzz_safetensors.c — libFuzzer entry point for the .safetensors reader:
 * any bytes as a file, read twice, once for "the only tensor" and once for
 * a tensor by name (the seeds' names), each either an array that agrees
 * with its shape or a refusal naming the file. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = nl_fuzz_file(data, size, path, sizeof path);
    static const char *const names[] = {NULL, "a", "weight"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        nl_array a;
        nl_fuzz_check(nl_safetensors_read(path, names[i], &a), path, &a);
    }
    close(fd);
    return 0;
}
