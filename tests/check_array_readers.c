/* check_array_readers.c — the .npy and .safetensors readers on files a
 * person (or an attacker) could hand them: each refusal must say what is
 * wrong with the file, a header must not cost more memory than its
 * tensors need, and what NumPy itself reads (Python 2's 4L) is read. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"

#define at nl_scratch_name

static const char *write_bytes(const char *name, const void *data, size_t n)
{
    const char *path = at(name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
    return path;
}

/* A .npy of version 1.0 with `dict` as its header and `data` after it. */
static const char *write_npy(const char *name, const char *dict, const void *data, size_t n)
{
    char head[256];
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    ck_assert(total <= sizeof head);
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (char)((total - 10) & 0xff), head[9] = (char)((total - 10) >> 8);
    memcpy(head + 10, dict, len);
    memset(head + 10 + len, ' ', total - 11 - len);
    head[total - 1] = '\n';
    const char *path = at(name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f && fwrite(head, 1, total, f) == total && fwrite(data, 1, n, f) == n &&
                  fclose(f) == 0, "cannot write %s", path);
    return path;
}

static void expect_npy_error(const char *path, const char *want, const char *not_this)
{
    nl_array a;
    ck_assert_msg(nl_npy_read(path, &a) == NL_EARG, "%s was read; expected a refusal saying '%s'",
                  path, want);
    ck_assert_msg(strstr(nl_last_error(), want), "expected '%s' in the message, got: %s", want,
                  nl_last_error());
    ck_assert_msg(!not_this || !strstr(nl_last_error(), not_this),
                  "the message says '%s', which is not what is wrong: %s", not_this, nl_last_error());
}

/* 9 bytes that start with the magic are a truncated .npy, not "not .npy";
 * a version-2 file cut inside its length is truncated, not of an unknown
 * version. */
START_TEST(npy_short_prefix_is_called_truncated)
{
    expect_npy_error(write_bytes("nine.npy", "\x93NUMPY\x01\x00\x10", 9), "truncated",
                     "does not start with");
    expect_npy_error(write_bytes("v2.npy", "\x93NUMPY\x02\x00\x10\x00", 10), "truncated",
                     "not one this reader knows");
    expect_npy_error(write_bytes("seven.npy", "\x93NUMPY\x01", 7), "truncated", "does not start with");
    expect_npy_error(write_bytes("v9.npy", "\x93NUMPY\x09\x00\x10\x00\x00\x00", 12),
                     "version 9.0 is not one this reader knows", NULL);
    expect_npy_error(write_bytes("nope.npy", "PK\x03\x04 zip", 8), "does not start with", NULL);
}
END_TEST

/* A pipe cannot be sought: the reader says so rather than "truncated". */
START_TEST(npy_from_a_pipe_says_it_cannot_seek)
{
    int fd[2];
    ck_assert_msg(pipe(fd) == 0, "pipe: %s", strerror(errno));
    char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    char head[128] = "\x93NUMPY\x01\x00";
    head[8] = 118;
    memset(head + 10, ' ', 118);
    memcpy(head + 10, dict, sizeof dict - 1);
    head[127] = '\n';
    float data[2] = {1, 2};
    ck_assert(write(fd[1], head, 128) == 128 && write(fd[1], data, 8) == 8);
    close(fd[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fd[0]);
    expect_npy_error(path, "cannot seek (a pipe?)", "truncated");
    close(fd[0]);
}
END_TEST

/* numpy.load reads headers that Python 2 wrote, where a shape is (4L, 8L). */
START_TEST(npy_python2_long_shape_is_read)
{
    float data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const char *path = write_npy("py2.npy", "{'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (2L, 4L), }", data, sizeof data);
    nl_array a;
    ck_assert_msg(nl_npy_read(path, &a) == NL_OK, "shape (2L, 4L) refused: %s", nl_last_error());
    ck_assert_msg(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 4 && a.count == 8,
                  "shape (2L, 4L) read as %zu dims (%zu, %zu)", a.ndim, a.shape[0], a.shape[1]);
    ck_assert(!memcmp(a.data, data, sizeof data));
    nl_array_free(&a);
    expect_npy_error(write_npy("py2bad.npy", "{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2LL, 4), }", data, sizeof data), "bad number", NULL);
}
END_TEST

/* 8-byte little-endian length, the JSON header, then `data`. */
static const char *write_st(const char *name, const char *json, size_t jlen, const void *data,
                            size_t n)
{
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)((uint64_t)jlen >> (8 * i));
    const char *path = at(name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f && fwrite(len8, 1, 8, f) == 8 && fwrite(json, 1, jlen, f) == jlen &&
                  fwrite(data, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
    return path;
}

static void expect_st_error(const char *path, const char *tensor, const char *want)
{
    nl_array a;
    ck_assert_msg(nl_safetensors_read(path, tensor, &a) == NL_EARG,
                  "%s was read; expected a refusal saying '%s'", path, want);
    ck_assert_msg(strstr(nl_last_error(), want), "expected '%s' in the message, got: %s", want,
                  nl_last_error());
}

START_TEST(safetensors_offsets_must_be_numbers)
{
    float data[2] = {1, 2};
    const char *j = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[\"a\",\"b\"]}}";
    expect_st_error(write_st("str.safetensors", j, strlen(j), data, 8), NULL,
                    "data_offsets must be two numbers");
    const char *h = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0.5,8.5]}}";
    expect_st_error(write_st("half.safetensors", h, strlen(h), data, 8), NULL, "bad data_offsets");
    /* no tensor at all (the fuzzer's first find: qsort of no names, UB) */
    expect_st_error(write_st("empty.safetensors", "{}", 2, data, 0), NULL, "holds 0 tensors (none)");
    expect_st_error(write_st("notobj.safetensors", "{\"w\":[1]}", 9, data, 0), NULL,
                    "tensor 'w' is not a JSON object");
}
END_TEST

/* The format's README forbids two tensors of one name; Python keeps the
 * last, we kept the first: refuse, naming it. */
START_TEST(safetensors_duplicate_names_are_refused)
{
    float data[4] = {1, 2, 3, 4};
    const char *j = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
    const char *path = write_st("dup.safetensors", j, strlen(j), data, 16);
    expect_st_error(path, "w", "tensor 'w' is named twice");
    expect_st_error(path, "v", "tensor 'w' is named twice");
    /* an escaped spelling of the same name is the same name */
    const char *e = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"\\u0077\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
    expect_st_error(write_st("dup2.safetensors", e, strlen(e), data, 16), "w", "named twice");
    /* and distinct names still read, the one asked for */
    const char *ok = "{\"__metadata__\":{\"format\":\"pt\"},"
                     "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                     "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
    nl_array a;
    ck_assert_msg(nl_safetensors_read(write_st("ok.safetensors", ok, strlen(ok), data, 16), "b",
                                      &a) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(a.count == 2 && ((float *)a.data)[0] == 3, "tensor b read wrong");
    nl_array_free(&a);
}
END_TEST

/* The peak resident size of this process, in MB. */
static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* A 20 MB header of 360 000 small tensors cost 842 MB as a cJSON tree;
 * walked in place it costs the header and 8 bytes a name. And a header
 * longer than the file is refused before it is allocated. */
START_TEST(safetensors_header_memory_is_bounded)
{
    const size_t target = 20u << 20;
    char *json = malloc(target + 128);
    ck_assert(json);
    size_t n = 0;
    json[n++] = '{';
    for (size_t i = 0; n < target; i++)
        n += (size_t)sprintf(json + n, "%s\"t%zu\":{\"dtype\":\"F32\",\"shape\":[1],"
                             "\"data_offsets\":[0,4]}", i ? "," : "", i);
    json[n++] = '}';
    float one = 1;
    const char *path = write_st("big.safetensors", json, n, &one, 4);
    free(json);
    double before = peak_mb();
    nl_array a;
    ck_assert_msg(nl_safetensors_read(path, "t7", &a) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(a.count == 1 && ((float *)a.data)[0] == 1, "t7 read wrong");
    nl_array_free(&a);
    double grew = peak_mb() - before;
    ck_assert_msg(grew < 100, "reading one tensor of a %zu MB header raised the peak memory by "
                  "%.0f MB: the header must be walked, not built as a tree", n >> 20, grew);
    /* the length says 100 MB, the file holds 60 bytes */
    const char *j = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    const char *liar = write_st("liar.safetensors", j, strlen(j), &one, 4);
    FILE *f = fopen(liar, "r+b");
    unsigned char len8[8] = {0, 0, 0x40, 0x06, 0, 0, 0, 0}; /* 0x06400000 = 100 MiB */
    ck_assert(f && fwrite(len8, 1, 8, f) == 8 && fclose(f) == 0);
    expect_st_error(liar, NULL, "truncated: the header claims 104857600 bytes");
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("array_readers");
    TCase *tc = tcase_create("readers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, npy_short_prefix_is_called_truncated);
    tcase_add_test(tc, npy_from_a_pipe_says_it_cannot_seek);
    tcase_add_test(tc, npy_python2_long_shape_is_read);
    tcase_add_test(tc, safetensors_offsets_must_be_numbers);
    tcase_add_test(tc, safetensors_duplicate_names_are_refused);
    tcase_add_test(tc, safetensors_header_memory_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}
