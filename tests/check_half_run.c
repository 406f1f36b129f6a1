/* check_half_run.c — `normlab run` on arrays in files (chapter 8).
 *
 * The arrays are written here in C, in NumPy's own .npy layout, run
 * through the program, and the output compared bit for bit with calling
 * the kernel directly; every bad input must be refused with exit 2, a
 * message naming the file, and no output written. Where /usr/bin/python3
 * (or $NL_PYTHON) has NumPy, np.save's bytes are compared with ours and
 * np.load reads what normlab wrote. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static void make_dir(void) { nl_scratch_clear(); }
static void remove_dir(void) { nl_scratch_clear(); }
#define at nl_scratch_name

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void save(const char *name, nl_elem e, size_t ndim, size_t r, size_t c, const void *data,
                 int as_void)
{
    nl_array a = {.elem = e, .ndim = ndim, .shape = {r, c}, .data = (void *)data};
    ck_assert_msg(nl_npy_write(at(name), &a, as_void, 1) == NL_OK, "writing %s: %s", name,
                  nl_last_error());
}

/* rows x d gauss data in dtype dt as raw bits (or floats for f32). */
static void *make_data(nl_dtype dt, size_t n, double mean, double std, uint64_t seed)
{
    float *f = malloc(n * sizeof *f);
    nl_fill_gauss(f, n, mean, std, seed);
    if (dt == NL_DT_F32)
        return f;
    uint16_t *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = nl_half_from_float(dt, f[i]);
    free(f);
    return h;
}

static nl_elem elem_of(nl_dtype dt)
{
    return dt == NL_DT_F32 ? NL_ELEM_F32 : dt == NL_DT_F16 ? NL_ELEM_F16 : NL_ELEM_U16;
}

/* Every bf16/fp16 implementation through files, and one f32 one. */
static const char *const cases[] = {
    "rmsnorm_llama_bf16", "rmsnorm_gemma_bf16", "rmsnorm_t5_f32w_bf16",
    "layernorm_torch_bf16", "rmsnorm_llama_f16", "layernorm_torch_f16",
};

START_TEST(run_matches_the_kernel_bit_for_bit)
{
    make_dir();
    const nl_half_impl *h = nl_find_half_impl(cases[_i]);
    ck_assert_ptr_nonnull(h);
    size_t rows = 5, d = 37;
    nl_dtype dt = h->dtype, wdt = nl_cast_weight_dtype(h->cast, dt);
    void *x = make_data(dt, rows * d, 0.3, 2.0, 1);
    void *g = make_data(wdt, d, h->cast == NL_CAST_GEMMA ? 0.0 : 1.0, 0.2, 2);
    void *b = make_data(wdt, d, 0.0, 0.5, 3);
    int as_void = _i % 2; /* bf16 both as '<u2' and as '|V2' */
    save("x.npy", elem_of(dt), 2, rows, d, x, as_void);
    save("g.npy", elem_of(wdt), 1, d, 0, g, 0);
    save("b.npy", elem_of(wdt), 1, d, 0, b, 0);
    const char *args[16] = {"run", h->name, "--x", at("x.npy"), "--gamma", at("g.npy"),
                            "--eps", "1e-6", "--out", at("y.npy"), NULL};
    if (h->norm == NL_LAYERNORM) {
        args[10] = "--beta";
        args[11] = at("b.npy");
    }
    nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "normlab run %s exited %d: %s", h->name, r.code, r.err);

    nl_array y;
    ck_assert_msg(nl_npy_read(at("y.npy"), &y) == NL_OK, "reading the output: %s", nl_last_error());
    ck_assert_msg(y.ndim == 2 && y.shape[0] == rows && y.shape[1] == d && y.elem == elem_of(dt),
                  "output is %s of %zu dims, expected %zu x %zu of x's dtype", y.descr, y.ndim,
                  rows, d);
    if (dt == NL_DT_BF16)
        ck_assert_str_eq(y.descr, as_void ? "|V2" : "<u2");
    uint16_t *want = malloc(rows * d * 2);
    ck_assert_int_eq(h->fn(dt, x, g, b, 1e-6f, rows, d, want), 0);
    ck_assert_msg(memcmp(want, y.data, rows * d * 2) == 0,
                  "%s through normlab run differs from calling the kernel: the file path "
                  "lost or reordered bits (dtype, eps or gamma/beta mix-up?)", h->name);
    nl_array_free(&y);
    free(x), free(g), free(b), free(want);
    remove_dir();
}
END_TEST

START_TEST(f32_run_matches_kernel_and_safetensors_input)
{
    make_dir();
    size_t rows = 3, d = 16;
    float *x = make_data(NL_DT_F32, rows * d, 0, 1, 5), *g = make_data(NL_DT_F32, d, 1, 0.1, 6);
    save("x.npy", NL_ELEM_F32, 2, rows, d, x, 0);
    /* the same gamma as a tensor of a .safetensors file, beside another */
    FILE *f = fopen(at("w.safetensors"), "wb");
    char json[256];
    int n = snprintf(json, sizeof json,
                     "{\"other\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                     "\"norm.weight\":{\"dtype\":\"F32\",\"shape\":[%zu],\"data_offsets\":[8,%zu]}}",
                     d, 8 + 4 * d);
    uint64_t len = (uint64_t)n;
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)(len >> (8 * i));
    float two[2] = {0, 0};
    fwrite(len8, 1, 8, f), fwrite(json, 1, (size_t)n, f), fwrite(two, 4, 2, f), fwrite(g, 4, d, f);
    fclose(f);
    char spec[600];
    snprintf(spec, sizeof spec, "%s:norm.weight", at("w.safetensors"));
    const char *args[] = {"run", "rmsnorm_naive", "--x", at("x.npy"), "--gamma", spec,
                          "--out", at("y.npy"), NULL};
    nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 0, "normlab run exited %d: %s", r.code, r.err);
    nl_array y;
    ck_assert_int_eq(nl_npy_read(at("y.npy"), &y), NL_OK);
    float want[48];
    nl_find_impl("rmsnorm_naive")->fn(x, g, NULL, 1e-5f, rows, d, want);
    ck_assert_msg(memcmp(want, y.data, sizeof want) == 0,
                  "rmsnorm_naive through normlab run (gamma from safetensors) differs from the kernel");
    nl_array_free(&y);

    /* without :TENSOR a two-tensor file is ambiguous: the message lists them */
    const char *amb[] = {"run", "rmsnorm_naive", "--x", at("x.npy"), "--gamma",
                         at("w.safetensors"), "--out", at("z.npy"), NULL};
    nl_run_normlab(&r, amb, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "norm.weight") && !exists(at("z.npy")),
                  "a .safetensors with two tensors and no :TENSOR must exit 2 listing them; "
                  "got %d: %s", r.code, r.err);
    free(x), free(g);
    remove_dir();
}
END_TEST

/* Bytes of a hand-made .npy. */
static void raw_file(const char *name, const char *header_dict, size_t data_bytes)
{
    FILE *f = fopen(at(name), "wb");
    size_t n = strlen(header_dict);
    size_t total = (10 + n + 1 + 63) / 64 * 64;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    unsigned char l[2] = {(unsigned char)((total - 10) & 0xff), (unsigned char)((total - 10) >> 8)};
    fwrite(l, 1, 2, f);
    fwrite(header_dict, 1, n, f);
    for (size_t i = 10 + n; i < total - 1; i++)
        fputc(' ', f);
    fputc('\n', f);
    for (size_t i = 0; i < data_bytes; i++)
        fputc(0x3c, f);
    fclose(f);
}

START_TEST(bad_inputs_exit_2_naming_file_and_problem_writing_nothing)
{
    make_dir();
    float x[12], g[4], g3[3];
    nl_fill_gauss(x, 12, 0, 1, 9);
    nl_fill_const(g, 4, 1.0f);
    nl_fill_const(g3, 3, 1.0f);
    save("x.npy", NL_ELEM_F32, 2, 3, 4, x, 0);
    save("g.npy", NL_ELEM_F32, 1, 4, 0, g, 0);
    save("g3.npy", NL_ELEM_F32, 1, 3, 0, g3, 0);
    save("x1d.npy", NL_ELEM_F32, 1, 12, 0, x, 0);
    save("u2.npy", NL_ELEM_U16, 2, 3, 2, x, 0);
    raw_file("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", 48);
    raw_file("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", 48);
    raw_file("f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 96);
    raw_file("short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 40);
    raw_file("nodescr.npy", "{'fortran_order': False, 'shape': (3, 4), }", 48);
    FILE *f = fopen(at("notnpy.npy"), "wb");
    fputs("x,y\n1,2\n", f);
    fclose(f);

    /* blame: the file the message must name */
    static const struct { const char *x, *g, *want, *blame; } bad[] = {
        {"be.npy", "g.npy", "big-endian", "be.npy"},
        {"fortran.npy", "g.npy", "Fortran", "fortran.npy"},
        {"f8.npy", "g.npy", "'<f8' is not supported", "f8.npy"},
        {"short.npy", "g.npy", "truncated", "short.npy"},
        {"nodescr.npy", "g.npy", "missing 'descr'", "nodescr.npy"},
        {"notnpy.npy", "g.npy", "not a .npy file", "notnpy.npy"},
        {"missing.npy", "g.npy", "cannot open", "missing.npy"},
        {"x1d.npy", "g.npy", "must be 2-D", "x1d.npy"},
        {"x.npy", "g3.npy", "d = 4", "g3.npy"},
        {"x.npy", "x.npy", "must be 1-D", "x.npy"},
        {"u2.npy", "g.npy", "--dtype bf16", "u2.npy"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"run", "rmsnorm_naive", "--x", at(bad[i].x), "--gamma",
                              at(bad[i].g), "--out", at("y.npy"), NULL};
        nl_run_result r;
        nl_run_normlab(&r, args, NULL);
        ck_assert_msg(r.exited && r.code == 2 && strstr(r.err, bad[i].want) && strstr(r.err, bad[i].blame),
                      "normlab run --x %s --gamma %s: expected exit 2 and a message naming the "
                      "file %s and containing \"%s\"; got exit %d: %s",
                      bad[i].x, bad[i].g, bad[i].blame, bad[i].want, r.code, r.err);
        ck_assert_msg(!exists(at("y.npy")), "after refusing %s, y.npy exists: nothing may be "
                      "written when the input is bad", bad[i].x);
    }
    remove_dir();
}
END_TEST

START_TEST(existing_output_is_kept_without_force)
{
    make_dir();
    float x[8], g[4];
    nl_fill_gauss(x, 8, 0, 1, 11);
    nl_fill_const(g, 4, 1.0f);
    save("x.npy", NL_ELEM_F32, 2, 2, 4, x, 0);
    save("g.npy", NL_ELEM_F32, 1, 4, 0, g, 0);
    FILE *f = fopen(at("mine.txt"), "w");
    fputs("my notes\n", f);
    fclose(f);
    const char *args[] = {"run", "rmsnorm_naive", "--x", at("x.npy"), "--gamma", at("g.npy"),
                          "--out", at("mine.txt"), NULL, NULL};
    nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    char buf[64] = "";
    f = fopen(at("mine.txt"), "r");
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_msg(r.code == 2 && strstr(r.err, "--force") && !strcmp(buf, "my notes\n"),
                  "an existing --out must be kept (exit 2, a hint at --force); got exit %d, "
                  "file now starts \"%s\": %s", r.code, buf, r.err);
    args[8] = "--force";
    nl_run_normlab(&r, args, NULL);
    nl_array y;
    ck_assert_msg(r.code == 0 && nl_npy_read(at("mine.txt"), &y) == NL_OK,
                  "with --force the output replaces the file; exit %d: %s", r.code, r.err);
    nl_array_free(&y);
    remove_dir();
}
END_TEST

/* ------------------------------------------------------------ NumPy */

static const char *python(void)
{
    const char *p = getenv("NL_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

static int have_numpy(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", python());
    return system(cmd) == 0;
}

static int files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

START_TEST(numpy_writes_the_same_bytes_and_reads_ours)
{
    if (!have_numpy())
        NL_SKIP("no Python with NumPy (/usr/bin/python3 or $NL_PYTHON): the C-written files "
                "are still checked above");
    make_dir();
    /* the same values, written by us and by np.save */
    size_t rows = 3, d = 5;
    float x[15];
    for (size_t i = 0; i < 15; i++)
        x[i] = (float)i * 0.25f - 1.0f;
    uint16_t xb[15], xh[15];
    for (size_t i = 0; i < 15; i++)
        xb[i] = nl_bf16_from_float(x[i]), xh[i] = nl_fp16_from_float(x[i]);
    save("c_f4.npy", NL_ELEM_F32, 2, rows, d, x, 0);
    save("c_f2.npy", NL_ELEM_F16, 2, rows, d, xh, 0);
    save("c_u2.npy", NL_ELEM_U16, 2, rows, d, xb, 0);
    save("c_1d.npy", NL_ELEM_F32, 1, d, 0, x, 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -c \"\n"
             "import numpy as np\n"
             "x = (np.arange(15, dtype=np.float32) * 0.25 - 1).reshape(3, 5)\n"
             "np.save('n_f4.npy', x)\n"
             "np.save('n_f2.npy', x.astype(np.float16))\n"
             "np.save('n_u2.npy', (x.view(np.uint32) >> 16).astype(np.uint16))\n"
             "np.save('n_1d.npy', x[0])\n"
             "np.save('n_v2.npy', (x.view(np.uint32) >> 16).astype(np.uint16).view('V2'))\n"
             "\"", nl_scratch_dir(), python());
    ck_assert_msg(system(cmd) == 0, "python failed: %s", cmd);
    static const char *const pairs[][2] = {{"c_f4.npy", "n_f4.npy"}, {"c_f2.npy", "n_f2.npy"},
                                           {"c_u2.npy", "n_u2.npy"}, {"c_1d.npy", "n_1d.npy"}};
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(files_equal(at(pairs[i][0]), at(pairs[i][1])),
                      "%s (ours) and %s (np.save) differ: the header layout (dict text, padding "
                      "to 64 bytes, the newline) must match NumPy's", pairs[i][0], pairs[i][1]);
    /* ml_dtypes.bfloat16 saves as '|V2': read it as bf16 and run it */
    float g[5] = {1, 1, 1, 1, 1};
    uint16_t gb[5];
    for (int i = 0; i < 5; i++)
        gb[i] = nl_bf16_from_float(g[i]);
    save("gb.npy", NL_ELEM_U16, 1, 5, 0, gb, 1);
    const char *args[] = {"run", "rmsnorm_llama_bf16", "--x", at("n_v2.npy"), "--gamma",
                          at("gb.npy"), "--out", at("y.npy"), NULL};
    nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.code == 0, "normlab run on NumPy's |V2 file exited %d: %s", r.code, r.err);
    /* and NumPy reads what we wrote, with the values the kernel gave */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -c \"\n"
             "import numpy as np\n"
             "y = np.load('y.npy')\n"
             "assert y.dtype == np.dtype('V2') and y.shape == (3, 5), (y.dtype, y.shape)\n"
             "f = (y.view(np.uint16).astype(np.uint32) << 16).view(np.float32)\n"
             "x = (np.arange(15, dtype=np.float32) * 0.25 - 1).reshape(3, 5)\n"
             "r = x / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-5)\n"
             "assert np.abs(f - r).max() <= 2 ** -7 * np.abs(r).max(), np.abs(f - r).max()\n"
             "\"", nl_scratch_dir(), python());
    ck_assert_msg(system(cmd) == 0,
                  "NumPy could not read normlab's output as a (3, 5) |V2 array close to RMSNorm");
    remove_dir();
}
END_TEST

START_TEST(impls_and_precision_list_the_16_bit_kernels)
{
    nl_run_result r;
    const char *impls[] = {"impls", NULL};
    nl_run_normlab(&r, impls, NULL);
    ck_assert_msg(r.code == 0 && strstr(r.out, "rmsnorm_gemma_bf16") && strstr(r.out, "layernorm_torch_f16"),
                  "normlab impls should list the bf16/fp16 table (exit %d):\n%s", r.code, r.out);
    const char *prec[] = {"precision", "--rows", "8", "--d", "256", NULL};
    nl_run_normlab(&r, prec, NULL);
    ck_assert_msg(r.code == 0 && strstr(r.out, "gemma") && strstr(r.out, "fp16 statistics"),
                  "normlab precision --rows 8 --d 256 exited %d:\n%s%s", r.code, r.out, r.err);
    /* Chapter 8's claim, from the scan of every fp16 value from 1 up: the
     * 4096-term fp16 sum of squares overflows from the first value above 4
     * and for every one of the 14334 values above that. */
    ck_assert_msg(strstr(r.out, "first reaches Inf at x = 4.00390625:") &&
                      strstr(r.out, "of the 14334 fp16 values above it, up to 65504, 0 keep the sum finite"),
                  "normlab precision: the fp16 sum of squares of 4096 equal values should first "
                  "overflow at 4.00390625 and for every fp16 value above it; it printed:\n%s", r.out);
    const char *bad[] = {"precision", "--d", "0", NULL};
    nl_run_normlab(&r, bad, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "--d"), "normlab precision --d 0: expected exit 2 "
                  "naming --d, got %d: %s", r.code, r.err);
}
END_TEST

START_TEST(bench_dtype_rows_carry_their_dtype)
{
    make_dir();
    const char *args[] = {"bench", "--dtype", "f32,bf16", "--shape", "8x64", "--samples", "1",
                          "--threads", "1", "--no-peer", "--impl",
                          "rmsnorm_naive,rmsnorm_llama_bf16_best,layernorm_torch_bf16",
                          "--csv", at("b.csv"), NULL};
    nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.code == 0, "normlab bench --dtype f32,bf16 exited %d: %s", r.code, r.err);
    /* each block header states the bytes its rows move: 8x64 floats are
     * 2 KiB in, the same values in bf16 1 KiB, 4 bytes per element moved */
    ck_assert_msg(strstr(r.out, "== 8x64 (2.0 KiB in, as much out)"),
                  "the f32 rows' header should say 2.0 KiB in:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "== 8x64 bf16 (1.0 KiB in, as much out: 4 bytes per element"),
                  "the bf16 rows need a header of their own stating the 16-bit bytes (1.0 KiB "
                  "in, 4 bytes per element), not the f32 figure:\n%s", r.out);
    const char *show[] = {"bench", "--show", at("b.csv"), NULL};
    static nl_run_result sh;
    nl_run_normlab(&sh, show, NULL);
    ck_assert_msg(sh.code == 0 && strstr(sh.out, "== 8x64 bf16 (1.0 KiB in"),
                  "normlab bench --show of that CSV (exit %d) should give the bf16 rows their "
                  "own header:\n%s%s", sh.code, sh.out, sh.err);
    FILE *f = fopen(at("b.csv"), "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int header = 0, bf16 = 0, f32 = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (!header) {
            header = 1;
            ck_assert_msg(strstr(line, ",dtype,") != NULL, "the CSV header should have a dtype column: %s", line);
            continue;
        }
        ck_assert_msg(strstr(line, ",ok,"), "a row is not ok: %s", line);
        bf16 += strstr(line, ",bf16,") != NULL && strstr(line, "_bf16") != NULL;
        f32 += strstr(line, "rmsnorm_naive,") == line && strstr(line, ",f32,") != NULL;
    }
    fclose(f);
    ck_assert_msg(bf16 == 2 && f32 == 1, "expected 2 bf16 rows and 1 f32 row, got %d and %d", bf16, f32);
    const char *bad[] = {"bench", "--dtype", "f64", NULL};
    nl_run_normlab(&r, bad, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "f64"), "--dtype f64: expected exit 2 naming it, "
                  "got %d: %s", r.code, r.err);
    remove_dir();
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("half_run");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, run_matches_the_kernel_bit_for_bit, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, f32_run_matches_kernel_and_safetensors_input);
    tcase_add_test(tc, bad_inputs_exit_2_naming_file_and_problem_writing_nothing);
    tcase_add_test(tc, existing_output_is_kept_without_force);
    tcase_add_test(tc, numpy_writes_the_same_bytes_and_reads_ours);
    tcase_add_test(tc, impls_and_precision_list_the_16_bit_kernels);
    tcase_add_test(tc, bench_dtype_rows_carry_their_dtype);
    suite_add_tcase(s, tc);
    return s;
}
