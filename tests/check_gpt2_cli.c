/* check_gpt2_cli.c — chapter 12's files and commands: llm.c's checkpoint
 * layout and the converted model's, read back bit for bit; bad files
 * refused with a message naming what is wrong; `normlab convert` then
 * `normlab logits` agreeing with an independent forward of the original;
 * no output written over a file without --force, nor over a non-file. */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpt2/gpt2.h"
#include "harness.h"

#define TINY "tests/fixtures/gpt2/tiny.bin"

static void make_dir(void) { nl_scratch_clear(); }
static void remove_dir(void) { nl_scratch_clear(); }
#define at nl_scratch_name

static const nl_gpt2_config cfg = {12, 29, 2, 2, 16, 32};

START_TEST(fixture_is_what_the_generator_writes)
{
    /* tests/fixtures/gpt2/tiny.bin is `gpt2-random tiny.bin`: seed 1 and
     * the defaults below; regenerating it must give the same bytes */
    const nl_gpt2_config tiny = {8, 13, 1, 1, 8, 16};
    nl_gpt2 m, f;
    ck_assert_int_eq(nl_gpt2_random(&m, &tiny, 1), NL_OK);
    ck_assert_msg(nl_gpt2_read(TINY, &f) == NL_OK, "%s", nl_last_error());
    size_t n = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        n += m.count[i];
    ck_assert_msg(!memcmp(m.mem, f.mem, n * sizeof(float)),
                  TINY " differs from nl_gpt2_random(seed 1): regenerate it with "
                  "build/gpt2-random " TINY " (after removing it)");
    nl_gpt2_free(&m);
    nl_gpt2_free(&f);
}
END_TEST

START_TEST(both_layouts_read_back_bit_for_bit)
{
    nl_gpt2 m, d, r, rf, back;
    ck_assert_int_eq(nl_gpt2_random(&m, &cfg, 3), NL_OK);
    ck_assert_int_eq(nl_gpt2_write(at("ln.bin"), &m, 0), NL_OK);
    ck_assert_msg(nl_gpt2_read(at("ln.bin"), &back) == NL_OK, "%s", nl_last_error());
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        ck_assert_msg(m.count[i] == back.count[i] &&
                          (!m.count[i] || !memcmp(m.t[i], back.t[i], m.count[i] * 4)),
                      "llm.c layout: tensor %d did not read back as written", i);
    struct stat st;
    stat(at("ln.bin"), &st);
    /* llm.c's size: 1024 + 4 x (Vp C + T C + L (12 C^2 + 13 C) + 2 C) */
    size_t C = 16, L = 2, want = 1024 + 4 * (32 * C + 12 * C + L * (12 * C * C + 13 * C) + 2 * C);
    ck_assert_msg((size_t)st.st_size == want, "llm.c layout: %lld bytes, expected %zu",
                  (long long)st.st_size, want);
    nl_gpt2_free(&back);
    for (int v = 0; v < 4; v++) {
        nl_gpt2_convert_opts o = nl_gpt2_convert_default();
        o.norm = (v & 1) ? NL_GPT2_CRMSNORM : NL_GPT2_RMSNORM;
        o.deferred = v >> 1;
        ck_assert_int_eq(nl_gpt2_to_double(&m, &d), NL_OK);
        ck_assert_int_eq(nl_gpt2_convert(&d, &o, &r), NL_OK);
        ck_assert_int_eq(nl_gpt2_to_float(&r, &rf), NL_OK);
        ck_assert_int_eq(nl_gpt2_write(at("rms.bin"), &rf, 1), NL_OK);
        ck_assert_msg(nl_gpt2_read(at("rms.bin"), &back) == NL_OK, "%s", nl_last_error());
        ck_assert_msg(back.norm == rf.norm && back.deferred == rf.deferred &&
                          back.width == rf.width,
                      "variant %d: norm %d deferred %d width %zu read back as %d %d %zu", v,
                      rf.norm, rf.deferred, rf.width, back.norm, back.deferred, back.width);
        for (int i = 0; i < NL_GPT2_NTENSORS; i++)
            ck_assert_msg(rf.count[i] == back.count[i] &&
                              (!rf.count[i] || !memcmp(rf.t[i], back.t[i], rf.count[i] * 4)),
                          "converted layout, variant %d: tensor %d did not read back", v, i);
        nl_gpt2_free(&d);
        nl_gpt2_free(&r);
        nl_gpt2_free(&rf);
        nl_gpt2_free(&back);
    }
    nl_gpt2_free(&m);
}
END_TEST

/* A copy of the tiny fixture with header int k set to v (or cut to `len`
 * bytes, or `extra` bytes added); returns its path. */
static const char *altered(const char *name, int k, int32_t v, long len, int extra)
{
    FILE *f = fopen(TINY, "rb");
    ck_assert_msg(f != NULL, "cannot open " TINY);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (k >= 0)
        memcpy(buf + 4 * k, &v, 4);
    if (len >= 0)
        n = (size_t)len;
    n += (size_t)extra;
    const char *path = at(name);
    f = fopen(path, "wb");
    ck_assert(f != NULL && fwrite(buf, 1, n, f) == n);
    fclose(f);
    return path;
}

static const struct {
    const char *name;
    int k;
    int32_t v;
    long len;
    int extra;
    const char *says;
} bad[] = {
    {"magic.bin", 0, 12345, -1, 0, "magic 12345"},
    {"bf16.bin", 1, 5, -1, 0, "bf16"},
    {"version.bin", 1, 4, -1, 0, "version 4"},
    {"short.bin", -1, 0, 2000, 0, "truncated"},
    {"header.bin", -1, 0, 100, 0, "shorter than the 1024-byte header"},
    {"long.bin", -1, 0, -1, 8, "too long"},
    {"channels.bin", 6, -8, -1, 0, "channels = -8"},
    {"heads.bin", 5, 3, -1, 0, "not a multiple of num_heads"},
    {"padded.bin", 7, 4, -1, 0, "smaller than vocab_size"},
    /* 2^30 channels and layers: the counts overflow 64 bits */
    {"huge.bin", 6, 1 << 30, -1, 0, "does not fit"},
};
#define NBAD (sizeof bad / sizeof bad[0])

START_TEST(bad_files_are_refused_by_name)
{
    const char *path = altered(bad[_i].name, bad[_i].k, bad[_i].v, bad[_i].len, bad[_i].extra);
    if (!strcmp(bad[_i].name, "huge.bin")) { /* 2^30 layers as well as channels */
        FILE *f = fopen(path, "r+b");
        int32_t v = 1 << 30;
        ck_assert(f && fseek(f, 4 * 4, SEEK_SET) == 0 && fwrite(&v, 4, 1, f) == 1);
        fclose(f);
    }
    static nl_run_result r;
    const char *args[] = {"logits", "--model", path, "--tokens", "1", "--out", at("l.npy"), NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.exited && r.code == 2, "a %s: normlab logits exited %d, expected 2\n%s",
                  bad[_i].name, r.code, r.err);
    ck_assert_msg(strstr(r.err, bad[_i].says) && strstr(r.err, path),
                  "a %s: the message should name the file and say '%s'; it said: %s",
                  bad[_i].name, bad[_i].says, r.err);
    ck_assert_msg(access(at("l.npy"), F_OK) != 0, "a refused model must leave no output");
}
END_TEST

/* The logits .npy that `normlab logits` wrote, as doubles (T x V). */
static double *read_logits(const char *path, size_t T, size_t V)
{
    nl_array a;
    ck_assert_msg(nl_npy_read(path, &a) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(a.elem == NL_ELEM_F32 && a.ndim == 2 && a.shape[0] == T && a.shape[1] == V,
                  "%s: expected float32 (%zu, %zu), got ndim %zu (%zu, %zu)", path, T, V, a.ndim,
                  a.shape[0], a.ndim > 1 ? a.shape[1] : 0);
    double *y = malloc(T * V * sizeof *y);
    for (size_t k = 0; k < T * V; k++)
        y[k] = ((float *)a.data)[k];
    nl_array_free(&a);
    return y;
}

START_TEST(convert_then_logits_matches_the_original)
{
    static const char *variants[][2] = {{NULL, NULL}, {"--crms", NULL}, {"--flashnorm", NULL},
                                        {"--crms", "--flashnorm"}};
    nl_gpt2 m, d;
    ck_assert_int_eq(nl_gpt2_random(&m, &cfg, 11), NL_OK);
    ck_assert_int_eq(nl_gpt2_write(at("m.bin"), &m, 0), NL_OK);
    ck_assert_int_eq(nl_gpt2_to_double(&m, &d), NL_OK);
    /* every length up to max_seq_len, the longest here */
    const char *tokens = "3,1,4,1,5,9,2,6,5,3,5,8";
    int tok[12] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    size_t T = 12, V = (size_t)cfg.vocab_size;
    double *want = malloc(T * V * sizeof *want);
    ck_assert_int_eq(nl_gpt2_logits_d(&d, tok, T, want), NL_OK);
    static nl_run_result r;
    for (int v = 0; v < 4; v++) {
        const char *cargs[] = {"convert", "--in", at("m.bin"), "--out", at("r.bin"), "--force",
                               variants[v][0], variants[v][1], NULL};
        nl_run_normlab(&r, cargs, NULL);
        ck_assert_msg(r.exited && r.code == 0, "normlab convert %s %s exited %d: %s",
                      variants[v][0] ? variants[v][0] : "", variants[v][1] ? variants[v][1] : "",
                      r.code, r.err);
        const char *largs[] = {"logits", "--model", at("r.bin"), "--tokens", tokens, "--out",
                               at("l.npy"), "--force", NULL};
        nl_run_normlab(&r, largs, NULL);
        ck_assert_msg(r.exited && r.code == 0, "normlab logits exited %d: %s", r.code, r.err);
        double *got = read_logits(at("l.npy"), T, V);
        double err = nl_gpt2_rel_error(got, want, T * V);
        ck_assert_msg(err <= 1e-5,
                      "normlab convert %s %s, then normlab logits: off by %.3g of the logits' "
                      "scale from the original's double forward, expected <= 1e-5",
                      variants[v][0] ? variants[v][0] : "", variants[v][1] ? variants[v][1] : "",
                      err);
        free(got);
    }
    /* and the original itself, in float */
    const char *largs[] = {"logits", "--model", at("m.bin"), "--tokens", tokens, "--out",
                           at("l.npy"), "--force", NULL};
    nl_run_normlab(&r, largs, NULL);
    double *got = read_logits(at("l.npy"), T, V);
    ck_assert_msg(nl_gpt2_rel_error(got, want, T * V) <= 1e-5, "the original in float: %.3g",
                  nl_gpt2_rel_error(got, want, T * V));
    free(got);
    free(want);
    nl_gpt2_free(&m);
    nl_gpt2_free(&d);
}
END_TEST

START_TEST(outputs_are_never_overwritten_without_force)
{
    static nl_run_result r;
    FILE *f = fopen(at("keep.bin"), "w");
    fputs("mine", f);
    fclose(f);
    const char *c1[] = {"convert", "--in", TINY, "--out", at("keep.bin"), NULL};
    nl_run_normlab(&r, c1, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "--force"), "convert over a file: %d %s", r.code,
                  r.err);
    const char *l1[] = {"logits", "--model", TINY, "--tokens", "1", "--out", at("keep.bin"), NULL};
    nl_run_normlab(&r, l1, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "--force"), "logits over a file: %d %s", r.code,
                  r.err);
    f = fopen(at("keep.bin"), "r");
    char buf[8] = {0};
    ck_assert(fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    ck_assert_msg(!strcmp(buf, "mine"), "the user's file was changed: '%s'", buf);
    /* not a regular file: refused even with --force */
    mkdir(at("sub"), 0700);
    const char *c2[] = {"convert", "--in", TINY, "--out", at("sub"), "--force", NULL};
    nl_run_normlab(&r, c2, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "only a regular file"), "convert over a folder: "
                  "%d %s", r.code, r.err);
    const char *l2[] = {"logits", "--model", TINY, "--tokens", "1", "--out", "/dev/null",
                        "--force", NULL};
    nl_run_normlab(&r, l2, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "only a regular file"), "logits over /dev/null: "
                  "%d %s", r.code, r.err);
    /* a converted model is not converted again */
    const char *c3[] = {"convert", "--in", TINY, "--out", at("once.bin"), NULL};
    nl_run_normlab(&r, c3, NULL);
    ck_assert_int_eq(r.code, 0);
    const char *c4[] = {"convert", "--in", at("once.bin"), "--out", at("twice.bin"), NULL};
    nl_run_normlab(&r, c4, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "already"), "converting twice: %d %s", r.code,
                  r.err);
}
END_TEST

START_TEST(bad_token_lists_are_usage_errors)
{
    static nl_run_result r;
    const char *lists[] = {"1,,2", "-1", "1,2,", "a", "99999999999", "13"};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        const char *args[] = {"logits", "--model", TINY, "--tokens", lists[k], "--out",
                              at("t.npy"), NULL};
        nl_run_normlab(&r, args, NULL);
        ck_assert_msg(r.exited && r.code == 2 && *r.err,
                      "--tokens %s: exit %d, expected 2 with a message; stderr: %s", lists[k],
                      r.code, r.err);
    }
    const char *args[] = {"logits", "--model", TINY, "--tokens", "0,1,2,3,4,5,6,7,8", "--out",
                          at("t.npy"), NULL};
    nl_run_normlab(&r, args, NULL);
    ck_assert_msg(r.code == 2 && strstr(r.err, "max_seq_len"), "9 tokens for 8 positions: %d %s",
                  r.code, r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("gpt2_cli");
    TCase *tc = tcase_create("gpt2_cli");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, fixture_is_what_the_generator_writes);
    tcase_add_test(tc, both_layouts_read_back_bit_for_bit);
    tcase_add_loop_test(tc, bad_files_are_refused_by_name, 0, (int)NBAD);
    tcase_add_test(tc, convert_then_logits_matches_the_original);
    tcase_add_test(tc, outputs_are_never_overwritten_without_force);
    tcase_add_test(tc, bad_token_lists_are_usage_errors);
    suite_add_tcase(s, tc);
    return s;
}
