/* check_bench.c — the benchmark's plumbing: the copy roofs copy, the CSV
 * says what it claims and never clobbers a file, shapes and arguments are
 * refused when they are wrong, and validation catches a wrong kernel.
 * Nothing here times anything: speed belongs to `normlab bench` itself. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench/bench.h"
#include "simd/simd.h"
#include "harness.h"

/* ------------------------------------------------------------- helpers */

static char tmpdir[64]; /* "/tmp/normlab-check-bench-XXXXXX" */

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/normlab-check-bench-XXXXXX");
    ck_assert_msg(mkdtemp(tmpdir) != NULL, "cannot create a temporary folder: %s", strerror(errno));
}

static void remove_tmpdir(void)
{
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) {
        /* a leftover folder in /tmp is harmless */
    }
}

static void path_in_tmp(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s && *s != '\n'; s++)
        n += *s == c;
    return n;
}

/* `normlab bench ARGS...`: its exit code; both streams are in bench_run.
 * A crash or a hang fails the test at once. */
static nl_run_result bench_run;
static int run_bench(const char *const *args)
{
    const char *argv[40] = {"bench"};
    size_t k = 1;
    for (; *args && k < 39; args++)
        argv[k++] = *args;
    argv[k] = NULL;
    nl_run_normlab(&bench_run, argv, NULL);
    ck_assert_msg(bench_run.exited && !bench_run.timed_out,
                  "normlab bench %s did not exit by itself (signal %d, or killed after %.0f s)"
                  "\nstderr: %s", argv[1] ? argv[1] : "", bench_run.code, nl_run_time_limit(),
                  bench_run.err);
    return bench_run.code;
}

/* Parsers print why they refuse; these tests check the refusal, so the
 * messages go to /dev/null for a clean log. */
static int saved_stderr = -1;
static void quiet_stderr(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
        dup2(nul, 2);
        close(nul);
    }
}
static void restore_stderr(void)
{
    fflush(stderr);
    if (saved_stderr >= 0) {
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
}

/* ----------------------------------------------------------- copy roofs */

START_TEST(copy_kernels_copy_exactly)
{
    /* Odd sizes and a destination off the 16-byte grid exercise the
     * slicing and the streaming path's unaligned head and tail. */
    const size_t sizes[] = {0, 1, 3, 15, 16, 17, 1000, 4099};
    const int thread_counts[] = {1, 2, 3};
    size_t cap = 4099 + 8;
    float *src = nl_alloc(cap * sizeof *src), *dst = nl_alloc(cap * sizeof *dst);
    ck_assert(src && dst);
    for (size_t i = 0; i < cap; i++)
        src[i] = (float)i + 0.25f;
    for (int kind = 0; kind < NL_COPY_KINDS; kind++)
        for (size_t ti = 0; ti < 3; ti++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (size_t off = 0; off < 2; off++) {
#ifdef _OPENMP
                    omp_set_num_threads(thread_counts[ti]);
#endif
                    size_t n = sizes[si];
                    for (size_t i = 0; i < cap; i++)
                        dst[i] = -1.0f;
                    nl_copy((nl_copy_kind)kind, src, dst + off, n);
                    for (size_t i = 0; i < n; i++)
                        NL_ASSERT_EACH(dst[off + i] == src[i],
                                      "%s copy of %zu floats on %d threads (dst offset %zu): "
                                      "element %zu is %g, expected %g",
                                      nl_copy_name((nl_copy_kind)kind), n, thread_counts[ti], off,
                                      i, dst[off + i], src[i]);
                    ck_assert_msg(dst[off + n] == -1.0f && (off == 0 || dst[0] == -1.0f),
                                  "%s copy of %zu floats wrote outside its destination",
                                  nl_copy_name((nl_copy_kind)kind), n);
                }
    nl_free(src);
    nl_free(dst);
}
END_TEST

START_TEST(copy_kinds_have_names)
{
    ck_assert_str_eq(nl_copy_name(NL_COPY_MEMCPY), "memcpy");
    ck_assert_str_eq(nl_copy_name(NL_COPY_LOOP), "loop");
    ck_assert_str_eq(nl_copy_name(NL_COPY_STREAM), "stream");
}
END_TEST

/* ------------------------------------------------------------------ CSV */

START_TEST(csv_header_lists_the_promised_columns)
{
    /* The columns every consumer (plot script, book, lead) relies on, in
     * this order at the start of the header. */
    const char *cols = nl_csv_columns();
    ck_assert_msg(strncmp(cols, "impl,norm,rows,d,threads,", 25) == 0,
                  "the CSV header must start with impl,norm,rows,d,threads; it is '%s'", cols);
    const char *must[] = {",median_s,", ",p10_s,", ",p90_s,", ",gbps,", ",copy_gbps,",
                          ",frac_copy,", ",max_err,", ",peer,", ",roof,", ",speedup,"};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++)
        ck_assert_msg(strstr(cols, must[i]) != NULL, "the CSV header lacks the column %s: '%s'",
                      must[i], cols);
}
END_TEST

START_TEST(csv_rows_match_the_header)
{
    make_tmpdir();
    char path[PATH_MAX];
    path_in_tmp(path, sizeof path, "rows.csv");
    const char *notes[] = {"cpu: test", "commit: abc"};
    FILE *f = nl_csv_open(path, 0, notes, 2);
    ck_assert_msg(f != NULL, "nl_csv_open refused a new file %s", path);

    nl_bench_row ok = {0};
    ok.impl = "layernorm_naive";
    ok.norm = "LayerNorm";
    ok.rows = 4096, ok.d = 1024, ok.threads = 2;
    ok.status = "ok";
    ok.samples = 21, ok.reps = 1;
    ok.median_s = 0.0125, ok.p10_s = 0.012, ok.p90_s = 0.013;
    ok.gbps = 2.684, ok.copy_gbps = 10.5, ok.roof = "stream";
    ok.frac_copy = 0.25, ok.frac_p10 = 0.24, ok.frac_p90 = 0.26;
    ok.speedup = 1.0, ok.max_err = 1.5e-6, ok.tol = 2e-5;
    for (int c = 0; c < NL_COPY_KINDS; c++)
        ok.copy_gbps_by_kind[c] = 10.0 + c;
    nl_csv_row(f, &ok);

    /* A row that was never timed: its numbers are empty fields, not 0. */
    nl_bench_row bad = ok;
    bad.status = "invalid";
    bad.peer = 1;
    bad.median_s = bad.p10_s = bad.p90_s = bad.gbps = bad.copy_gbps = NAN;
    bad.frac_copy = bad.frac_p10 = bad.frac_p90 = bad.speedup = NAN;
    bad.roof = NULL;
    bad.max_err = 0.5;
    nl_csv_row(f, &bad);
    ck_assert_int_eq(fclose(f), 0);

    char *text = slurp(path);
    ck_assert(text != NULL);
    ck_assert_msg(strncmp(text, "# cpu: test\n# commit: abc\n", 26) == 0,
                  "the notes must open the file as '# ' lines; it starts '%.60s'", text);
    char *header = text + 26;
    ck_assert_msg(strncmp(header, nl_csv_columns(), strlen(nl_csv_columns())) == 0,
                  "the header must follow the notes");
    size_t commas = count_char(header, ',');
    char *row1 = strchr(header, '\n') + 1;
    char *row2 = strchr(row1, '\n') + 1;
    ck_assert_msg(count_char(row1, ',') == commas && count_char(row2, ',') == commas,
                  "every row needs as many fields as the header (%zu commas)", commas);
    const char *want1 = "layernorm_naive,LayerNorm,4096,1024,2,0,ok,21,1,1.250000e-02,";
    const char *want2 = "layernorm_naive,LayerNorm,4096,1024,2,1,invalid,21,1,,,,,,,,,,,5.000e-01,";
    ck_assert_msg(strncmp(row1, want1, strlen(want1)) == 0,
                  "first row reads '%.80s'", row1);
    ck_assert_msg(strstr(row1, ",stream,0.2500,") != NULL, "roof and frac_copy missing: '%.200s'", row1);
    ck_assert_msg(strncmp(row2, want2, strlen(want2)) == 0,
                  "an untimed row must leave its timing fields empty; it reads '%.120s'", row2);
    remove_tmpdir();
}
END_TEST

START_TEST(csv_never_overwrites_without_force)
{
    make_tmpdir();
    char path[PATH_MAX];
    path_in_tmp(path, sizeof path, "mine.csv");
    write_file(path, "results I care about\n");
    quiet_stderr();
    FILE *f = nl_csv_open(path, 0, NULL, 0);
    restore_stderr();
    ck_assert_msg(f == NULL, "nl_csv_open opened an existing file without force");
    ck_assert_str_eq(slurp(path), "results I care about\n");

    f = nl_csv_open(path, 1, NULL, 0);
    ck_assert_msg(f != NULL, "with force, nl_csv_open should replace the file");
    fclose(f);
    ck_assert_msg(strncmp(slurp(path), "impl,", 5) == 0, "with force the file holds a new header");
    remove_tmpdir();
}
END_TEST

/* --------------------------------------------------------------- shapes */

START_TEST(shapes_parse_and_refuse)
{
    nl_shape s;
    ck_assert(nl_parse_shape("4096x1024", &s) && s.rows == 4096 && s.d == 1024);
    ck_assert(nl_parse_shape("3X5", &s) && s.rows == 3 && s.d == 5);
    const char *bad[] = {"", "x", "4096", "4x", "x4", "0x4", "4x0", "-4x4", "4x-4", "+4x4",
                         "4x4x4", "4kx4", "4 x4", "99999999999999999999999x4",
                         "4294967296x4294967296", /* rows*d overflows 64 bits */
                         "1000000x1000000"};      /* 8 TB: more than any test machine */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        nl_set_error("%s", "");
        int ok = nl_parse_shape(bad[i], &s);
        ck_assert_msg(!ok, "the shape '%s' should be refused", bad[i]);
        ck_assert_msg(nl_last_error()[0] != '\0',
                      "nl_parse_shape refused '%s' without saying why in nl_last_error(): the "
                      "program's message would be empty", bad[i]);
    }
}
END_TEST

/* The regime label follows the reported cache sizes. */
/* The core's own sysfs entries win over sysconf, whatever getconf says:
 * a fake cache folder (L1d 48K, L1i 64K, L2 2048K, L3 32M) is read back
 * as 2 MiB and 32 MiB, the instruction cache ignored; a bf16 pass is sized
 * by its own bytes. */
static void put(const char *dir, int index, const char *field, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/index%d", dir, index);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/index%d/%s", dir, index, field);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s\n", value);
    fclose(f);
}

START_TEST(cache_sizes_come_from_the_cores_sysfs_first)
{
    char dir[] = "/tmp/nl-cache-sysfs-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *levels[][3] = {{"1", "Data", "48K"}, {"1", "Instruction", "64K"},
                               {"2", "Unified", "2048K"}, {"3", "Unified", "32M"}};
    for (int i = 0; i < 4; i++) {
        put(dir, i, "level", levels[i][0]);
        put(dir, i, "type", levels[i][1]);
        put(dir, i, "size", levels[i][2]);
    }
    setenv("NORMLAB_CACHE_SYSFS", dir, 1);
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    ck_assert_msg(l2 == 2048.0 * 1024 && l3 == 32.0 * 1024 * 1024,
                  "sysfs says L2 2048K, L3 32M; read %.0f and %.0f bytes", l2, l3);
    ck_assert_str_eq(nl_cache_source(), "sysfs");
    /* 4096x4096 in bf16 moves 64 MiB: beyond this 32 MiB L3; 2048x4096 32 MiB fits */
    ck_assert_str_eq(nl_bytes_regime(4096.0 * 4096 * 4, 1), "memory");
    ck_assert_str_eq(nl_bytes_regime(2048.0 * 4096 * 4, 1), "L3");
    /* no sysfs entries: sysconf, named as such (or nothing, where it reports none) */
    char none[600];
    snprintf(none, sizeof none, "%s/absent", dir);
    setenv("NORMLAB_CACHE_SYSFS", none, 1);
    nl_cache_sizes(&l2, &l3);
    ck_assert_msg(!strcmp(nl_cache_source(), "sysconf") || (l2 == 0 && l3 == 0),
                  "without sysfs the source must be sysconf, got '%s'", nl_cache_source());
    unsetenv("NORMLAB_CACHE_SYSFS");
    for (int i = 0; i < 4; i++) {
        char path[600];
        const char *fields[] = {"level", "type", "size"};
        for (int f = 0; f < 3; f++) {
            snprintf(path, sizeof path, "%s/index%d/%s", dir, i, fields[f]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/index%d", dir, i);
        rmdir(path);
    }
    rmdir(dir);
}
END_TEST

START_TEST(shapes_know_their_cache_regime)
{
    double l2, l3;
    nl_cache_sizes(&l2, &l3);
    if (l2 <= 0 || l3 <= 0)
        NL_SKIP("this system reports no L2 or L3 size (sysconf): no regime to check");
    nl_shape tiny = {1, 16};
    size_t rows = (size_t)(l3 / (2 * sizeof(float) * 1024)) + 1;
    nl_shape big = {rows, 1024}, mid = {(size_t)(l2 / (2 * sizeof(float) * 1024)) + 1, 1024};
    ck_assert_str_eq(nl_shape_regime(tiny, 1), "L2");
    ck_assert_msg(!strcmp(nl_shape_regime(big, 1), "memory"),
                  "%zux1024 moves %.0f bytes, more than the reported L3 of %.0f: expected "
                  "'memory', got '%s'", rows, nl_shape_bytes(big), l3, nl_shape_regime(big, 1));
    if (nl_shape_bytes(mid) <= l3)
        ck_assert_msg(!strcmp(nl_shape_regime(mid, 1), "L3"),
                      "just past one core's L2 but within L3: expected 'L3', got '%s'",
                      nl_shape_regime(mid, 1));
}
END_TEST

START_TEST(count_lists_parse_and_refuse)
{
    size_t v[4];
    ck_assert_uint_eq(nl_parse_count_list("1,2,8", 100, v, 4), 3);
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 8);
    size_t a = nl_parse_count_list("1,,2", 100, v, 4), b = nl_parse_count_list("0", 100, v, 4),
           c = nl_parse_count_list("1,2,3,4,5", 100, v, 4),
           d = nl_parse_count_list("two", 100, v, 4), e = nl_parse_count_list("1,101", 100, v, 4);
    ck_assert_msg(a == 0 && b == 0 && c == 0 && d == 0 && e == 0,
                  "empty items, zero, too many values, words and values above the bound must "
                  "be refused (got %zu %zu %zu %zu %zu values)", a, b, c, d, e);
    ck_assert_msg(strstr(nl_last_error(), "101"),
                  "the reason should name the value refused, '101'; it was: %s", nl_last_error());
}
END_TEST

/* ------------------------------------------------------------ validation */

static int layernorm_without_beta(const float *x, const float *gamma, const float *beta,
                                  float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    const nl_impl *naive = nl_find_impl("layernorm_naive");
    static float zeros[4096];
    return naive->fn(x, gamma, zeros, eps, rows, d, y);
}

START_TEST(validation_catches_a_wrong_kernel)
{
    nl_bench_data b;
    ck_assert_int_eq(nl_bench_data_new(&b, 300, 64, 42), 0);
    const nl_impl *naive = nl_find_impl("layernorm_naive");
    ck_assert(naive != NULL);
    int rc;
    double good = nl_bench_validate(NL_LAYERNORM, naive->fn, &b, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(good <= naive->tol, "layernorm_naive is off by %g on bench data (tol %g)", good,
                  naive->tol);
    double bad = nl_bench_validate(NL_LAYERNORM, layernorm_without_beta, &b, &rc);
    ck_assert_msg(bad > 1e-2, "a LayerNorm that ignores beta was off by only %g: the bench data "
                  "must use a non-zero beta, or validation cannot catch it", bad);
    nl_bench_data_free(&b);
}
END_TEST

START_TEST(bench_data_is_the_same_on_any_thread_count)
{
    nl_bench_data a, b;
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    ck_assert_int_eq(nl_bench_data_new(&a, 37, 19, 7), 0);
#ifdef _OPENMP
    omp_set_num_threads(3);
#endif
    ck_assert_int_eq(nl_bench_data_new(&b, 37, 19, 7), 0);
    ck_assert_msg(memcmp(a.x, b.x, 37 * 19 * sizeof(float)) == 0,
                  "the inputs differ between 1 and 3 threads: comparisons across runs would be off");
    nl_bench_data_free(&a);
    nl_bench_data_free(&b);
}
END_TEST

START_TEST(timing_fills_every_field)
{
    /* What a measurement records, not how fast anything was. */
    nl_bench_data b;
    ck_assert_int_eq(nl_bench_data_new(&b, 8, 40, 3), 0);
    const nl_impl *naive = nl_find_impl("rmsnorm_naive");
    nl_bench_row row = {0};
    ck_assert_int_eq(nl_bench_time(naive->fn, NL_RMSNORM, &b, 3, &row), 0);
    ck_assert_msg(row.samples == 3 && row.reps >= 1, "samples %zu, reps %zu", row.samples, row.reps);
    ck_assert_msg(row.p10_s <= row.median_s && row.median_s <= row.p90_s && row.median_s > 0,
                  "times must be ordered p10 <= median <= p90 and positive: %g %g %g", row.p10_s,
                  row.median_s, row.p90_s);
    ck_assert_msg(row.roof && (!strcmp(row.roof, "memcpy") || !strcmp(row.roof, "loop") ||
                               !strcmp(row.roof, "stream")),
                  "the roof must name one of the copies, got '%s'", row.roof ? row.roof : "(null)");
    double best = 0;
    for (int c = 0; c < NL_COPY_KINDS; c++) {
        ck_assert_msg(isfinite(row.copy_gbps_by_kind[c]) && row.copy_gbps_by_kind[c] > 0,
                      "the %s copy was not measured", nl_copy_name((nl_copy_kind)c));
        best = fmax(best, row.copy_gbps_by_kind[c]);
    }
    ck_assert_msg(row.copy_gbps == best, "the roof (%g GB/s) must be the fastest copy (%g GB/s)",
                  row.copy_gbps, best);
    ck_assert_msg(isfinite(row.frac_copy) && row.frac_copy > 0 && isfinite(row.gbps),
                  "fraction of copy and GB/s must be filled in");
    nl_bench_data_free(&b);
}
END_TEST

START_TEST(onednn_peer_agrees_with_the_reference)
{
    if (nl_onednn_unavailable())
        NL_SKIP(nl_onednn_unavailable());
    /* Odd widths and a second shape: the cached primitive must be rebuilt. */
    const size_t shapes[][2] = {{5, 7}, {33, 1000}, {5, 7}};
    for (size_t k = 0; k < 3; k++) {
        nl_bench_data b;
        ck_assert_int_eq(nl_bench_data_new(&b, shapes[k][0], shapes[k][1], 11 + k), 0);
        int rc;
        double err = nl_bench_validate(NL_LAYERNORM, nl_onednn_layernorm, &b, &rc);
        ck_assert_msg(rc == 0, "oneDNN failed on %zux%zu: %s", shapes[k][0], shapes[k][1],
                      nl_last_error());
        ck_assert_msg(err <= 2e-5, "oneDNN's LayerNorm is off by %g on %zux%zu: are scale and "
                      "shift passed as gamma and beta?", err, shapes[k][0], shapes[k][1]);
        nl_bench_data_free(&b);
    }
    nl_onednn_release();
}
END_TEST

/* ------------------------------------------------------- the command line */

/* Every run also names a tiny shape and one implementation, so that a
 * regression that accepts a bad argument costs milliseconds, not a
 * full benchmark. */
#define TINY "--shape", "2x8", "--samples", "1", "--impl", "rmsnorm_naive", "--no-peer"

START_TEST(bad_arguments_exit_2_with_a_message)
{
    const char *const cases[][12] = {
        {"--bogus", TINY},
        {"--shape", "12abc", TINY},
        {"--shape", "4096", TINY},
        {"--shape", "0x8", TINY},
        {"--shape", "99999999999999999999999x4", TINY},
        {"--shape", "4294967296x4294967296", TINY},
        {"--shape", "1000000x1000000", TINY},
        {"--threads", "0", TINY},
        {"--threads", "two", TINY},
        {"--samples", "-1", TINY},
        {"--impl", "no_such_impl", "--shape", "2x8", "--samples", "1"},
        {TINY, "--csv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = run_bench(cases[i]);
        const char *msg = bench_run.err;
        ck_assert_msg(rc == 2, "normlab bench %s %s should exit 2, got %d", cases[i][0],
                      cases[i][1] ? cases[i][1] : "", rc);
        ck_assert_msg(msg && strstr(msg, "normlab") != NULL,
                      "normlab bench %s %s exits 2 without saying why", cases[i][0],
                      cases[i][1] ? cases[i][1] : "");
    }
}
END_TEST

/* A 16-bit kernel named without --dtype (whose default is f32 alone) is
 * left out by the dtype filter: the run must fail and say which option
 * was missing, not point at reasons it never printed. */
START_TEST(a_16_bit_kernel_without_dtype_says_so)
{
    const char *const args[] = {"--impl", "rmsnorm_llama_bf16", "--shape", "2x8", "--samples",
                                "1", NULL};
    int rc = run_bench(args);
    ck_assert_msg(rc == 1 && strstr(bench_run.err, "nothing to measure") &&
                      strstr(bench_run.err, "--dtype bf16"),
                  "normlab bench --impl rmsnorm_llama_bf16 without --dtype should exit 1 and "
                  "name --dtype bf16; exit %d, stderr: %s", rc, bench_run.err);
}
END_TEST

/* The CSV's "# rungs:" line says which shape of fast rung ran and why:
 * NORMLAB_RUNGS by its value when it names a shape, and when it names
 * neither, that it was ignored (the library ignores it then), not that it
 * was set. */
START_TEST(the_rungs_line_says_what_chose_the_shape)
{
    static const struct { const char *env, *want; } cases[] = {
        {"NORMLAB_RUNGS=block", "# rungs: block (the fast rungs' shape that _best and _omp take "
                                "out of cache; NORMLAB_RUNGS=block)"},
        {"NORMLAB_RUNGS=row", "# rungs: row (the fast rungs' shape that _best and _omp take out "
                              "of cache; NORMLAB_RUNGS=row)"},
        {"NORMLAB_RUNGS=blokc", "NORMLAB_RUNGS is neither block nor row, so this CPU's choice)"},
    };
    make_tmpdir();
    char csv[PATH_MAX];
    path_in_tmp(csv, sizeof csv, "rungs.csv");
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *const argv[] = {"bench", "--impl", "rmsnorm_naive", "--shape", "2x8",
                                    "--samples", "1", "--csv", csv, "--force", NULL};
        const char *const env[] = {cases[k].env, NULL};
        nl_run_normlab(&bench_run, argv, env);
        ck_assert_msg(bench_run.exited && bench_run.code == 0, "normlab bench with %s failed: %s",
                      cases[k].env, bench_run.err);
        const char *text = slurp(csv);
        ck_assert_msg(strstr(text, cases[k].want), "with %s the CSV should say \"%s\":\n%s",
                      cases[k].env, cases[k].want, text);
    }
    remove_tmpdir();
}
END_TEST

START_TEST(help_exits_0)
{
    const char *const args[] = {"--help", NULL};
    ck_assert_int_eq(run_bench(args), 0);
}
END_TEST

START_TEST(existing_csv_is_left_alone)
{
    make_tmpdir();
    char csv[PATH_MAX];
    path_in_tmp(csv, sizeof csv, "mine.csv");
    write_file(csv, "a student's results\n");
    const char *const args[] = {TINY, "--csv", csv, NULL};
    int rc = run_bench(args);
    ck_assert_msg(rc == 2, "normlab bench --csv EXISTING should exit 2, got %d", rc);
    ck_assert_str_eq(slurp(csv), "a student's results\n");
    ck_assert_msg(strstr(bench_run.err, "--force") != NULL,
                  "the refusal should tell the user about --force");
    remove_tmpdir();
}
END_TEST

START_TEST(tiny_run_writes_a_csv)
{
    make_tmpdir();
    char csv[PATH_MAX];
    path_in_tmp(csv, sizeof csv, "run.csv");
    const char *const args[] = {"--shape", "3x5,2x8", "--samples", "2", "--threads", "1,2",
                                "--impl", "layernorm_naive,rmsnorm_naive", "--csv", csv, NULL};
    int rc = run_bench(args);
    ck_assert_msg(rc == 0, "a tiny benchmark run failed (exit %d): %s", rc, bench_run.err);
    char *text = slurp(csv);
    size_t rows = 0, comments = 0;
    int header = 0;
    for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (*line == '#')
            comments++;
        else if (!strncmp(line, "impl,", 5))
            header++;
        else if (*line != '\n')
            rows++;
    }
    ck_assert_msg(header == 1, "expected one header line, found %d", header);
    ck_assert_msg(comments >= 4, "expected provenance comments (cpu, compiler, date, ...), found %zu",
                  comments);
    /* Two single-threaded implementations run at the first thread count
     * only: 2 shapes x 2 implementations. */
    ck_assert_msg(rows == 4, "expected 4 measurement rows, found %zu:\n%s", rows, text);
    /* The last column is the SIMD path the dispatchers took, as the header
     * names it: the program's own CPU, which valgrind's may not be (it
     * hides AVX-512 from this test, not from the program it starts).
     * (Under qemu the system reports no cache sizes, and no regime is named.) */
    const char *isa_line = strstr(text, "# isa: ");
    ck_assert_msg(isa_line, "the CSV should say which SIMD path ran:\n%s", text);
    char isa[16] = "", end[32];
    int known = 0;
    if (sscanf(isa_line, "# isa: %15[a-z0-9]", isa) == 1)
        for (int k = NL_ISA_SCALAR; k <= NL_ISA_NEON; k++)
            known |= !strcmp(isa, nl_isa_name((nl_isa)k));
    ck_assert_msg(known,
                  "the CSV's isa line names no SIMD path normlab knows:\n%s", text);
    snprintf(end, sizeof end, ",L2,%s\n", isa);
    ck_assert_msg(strstr(text, end) || strstr(text, "# caches: L2 0.0"),
                  "tiny shapes fit any L2: their rows should end in the regime 'L2', then the "
                  "path '%s':\n%s", isa, text);

    /* --show reads it back: the table the book prints from a CSV. */
    const char *const show[] = {"--show", csv, "--shape", "2x8", NULL};
    rc = run_bench(show);
    ck_assert_msg(rc == 0, "normlab bench --show %s failed (exit %d): %s", csv, rc, bench_run.err);
    text = bench_run.out;
    ck_assert_msg(strstr(text, "== 2x8") && strstr(text, "rmsnorm_naive") && !strstr(text, "== 3x5"),
                  "--show --shape 2x8 should print the 2x8 block only:\n%s", text);
    remove_tmpdir();
}
END_TEST

/* A note is one "# " line: a line break in it would end the comment and
 * start a data line that `bench --show` (and any CSV reader) rejects. */
START_TEST(a_note_with_a_line_break_is_refused)
{
    make_tmpdir();
    char csv[PATH_MAX];
    path_in_tmp(csv, sizeof csv, "noted.csv");
    const char *const args[] = {TINY, "--csv", csv, "--note", "first line\nsecond,line", NULL};
    int rc = run_bench(args);
    ck_assert_msg(rc == 2 && strstr(bench_run.err, "--note"),
                  "a --note holding a newline should be refused with exit 2, naming --note; "
                  "got exit %d, stderr:\n%s", rc, bench_run.err);
    ck_assert_msg(access(csv, F_OK) != 0, "the refused run should not have created %s", csv);
    const char *notes[] = {"fine", "not\rfine"};
    FILE *f = nl_csv_open(csv, 0, notes, 2);
    ck_assert_msg(f == NULL && strstr(nl_last_error(), "line break"),
                  "nl_csv_open should refuse a note with a carriage return and say why; "
                  "it %s (%s)", f ? "opened the file" : "refused", nl_last_error());
    if (f)
        fclose(f);
    remove_tmpdir();
}
END_TEST

/* The command line goes into a "# command:" comment: a file name with a
 * newline in it must not break the CSV either. */
START_TEST(a_csv_name_with_a_line_break_stays_readable)
{
    make_tmpdir();
    char csv[PATH_MAX];
    path_in_tmp(csv, sizeof csv, "odd\nname.csv");
    const char *const args[] = {TINY, "--csv", csv, NULL};
    int rc = run_bench(args);
    ck_assert_msg(rc == 0, "a run writing to a file whose name holds a newline failed (exit "
                  "%d): %s", rc, bench_run.err);
    char *text = slurp(csv);
    ck_assert_msg(text && strstr(text, "odd\\012name.csv"),
                  "the '# command:' line should write the newline as \\012; the CSV "
                  "reads:\n%s", text ? text : "(nothing)");
    const char *const show[] = {"--show", csv, NULL};
    rc = run_bench(show);
    ck_assert_msg(rc == 0 && strstr(bench_run.out, "rmsnorm_naive"),
                  "`normlab bench --show` should read that CSV back (exit %d):\n%s%s", rc,
                  bench_run.out, bench_run.err);
    remove_tmpdir();
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("bench");
    TCase *tc = tcase_create("plumbing");
    /* Two cases run real (tiny) timing loops with threaded copies; on a
     * loaded machine a descheduled OpenMP thread stalls them for a while.
     * The limit is there to catch a hang, not to judge speed. */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, copy_kernels_copy_exactly);
    tcase_add_test(tc, copy_kinds_have_names);
    tcase_add_test(tc, csv_header_lists_the_promised_columns);
    tcase_add_test(tc, csv_rows_match_the_header);
    tcase_add_test(tc, csv_never_overwrites_without_force);
    tcase_add_test(tc, shapes_parse_and_refuse);
    tcase_add_test(tc, count_lists_parse_and_refuse);
    tcase_add_test(tc, shapes_know_their_cache_regime);
    tcase_add_test(tc, cache_sizes_come_from_the_cores_sysfs_first);
    tcase_add_test(tc, validation_catches_a_wrong_kernel);
    tcase_add_test(tc, bench_data_is_the_same_on_any_thread_count);
    tcase_add_test(tc, timing_fills_every_field);
    tcase_add_test(tc, onednn_peer_agrees_with_the_reference);
    suite_add_tcase(s, tc);

    TCase *cli = tcase_create("command line");
    /* Each case starts the real binary; sanitizer builds start slowly. */
    tcase_set_timeout(cli, 120);
    tcase_add_test(cli, bad_arguments_exit_2_with_a_message);
    tcase_add_test(cli, help_exits_0);
    tcase_add_test(cli, a_16_bit_kernel_without_dtype_says_so);
    tcase_add_test(cli, the_rungs_line_says_what_chose_the_shape);
    tcase_add_test(cli, existing_csv_is_left_alone);
    tcase_add_test(cli, tiny_run_writes_a_csv);
    tcase_add_test(cli, a_note_with_a_line_break_is_refused);
    tcase_add_test(cli, a_csv_name_with_a_line_break_stays_readable);
    suite_add_tcase(s, cli);
    return s;
}
