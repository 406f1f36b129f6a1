/* check_train_cli.c — `normlab train` and `normlab sample` as a reader
 * runs them (chapter 13): a short run writes its CSV and a model that
 * `normlab logits`, `sample` and `convert` read; the starting loss is the
 * cross-entropy of `normlab logits` on the same batch; a trained LayerNorm
 * model converted to RMSNorm gives the same logits and the same sampled
 * text; bad input stops with a message naming it and writes nothing; no
 * file is replaced without --force, and none that is not a regular file. */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpt2/train.h"
#include "harness.h"

#define WORDS "tests/fixtures/train/words.txt"
#define at nl_scratch_name

/* A model small enough to train in a blink: one layer, 16 channels,
 * context 16, two sequences a batch. */
#define SMALL "--layers", "1", "--channels", "16", "--heads", "2", "--context", "16", \
              "--batch", "2", "--threads", "1"

static void expect_exit(const nl_run_result *r, int code, const char *what)
{
    ck_assert_msg(r->exited && r->code == code, "%s: exited %d (%s), expected %d\nstdout: "
                  "%.1500s\nstderr: %.1500s", what, r->code, r->exited ? "exit" : "signal",
                  code, r->out, r->err);
}

/* The rows of a CSV normlab train wrote, after its comments and header. */
static size_t csv_rows(const char *path, char rows[][256], size_t max)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "%s was not written", path);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && line[0] == '#')
        ck_assert_msg(strchr(line, '='), "%s: a comment line of key=value words: %s", path,
                      line);
    ck_assert_msg(!strncmp(line, "norm,seed,threads,step,", 23),
                  "%s: the header should start norm,seed,threads,step,", path);
    while (n < max && fgets(rows[n], 256, f))
        n++;
    fclose(f);
    return n;
}

START_TEST(a_short_run_writes_its_csv_and_model)
{
    static nl_run_result r;
    const char *args[] = {"train", "--text", WORDS, SMALL, "--steps", "4", "--val-every", "3",
                          "--csv", at("c.csv"), "--out", at("trained.bin"), NULL};
    nl_run_normlab(&r, args, NULL);
    expect_exit(&r, 0, "a short training run");
    ck_assert_msg(strstr(r.err, "step 3/4") && strstr(r.err, "step 4/4"),
                  "progress on stderr should name the evaluated steps:\n%s", r.err);
    char rows[8][256];
    ck_assert_int_eq(csv_rows(at("c.csv"), rows, 8), 5);
    for (size_t s = 0; s <= 4; s++) {
        char norm[32];
        unsigned seed, threads, step;
        double loss, val, ms, norms, total;
        int k = sscanf(rows[s], "%31[^,],%u,%u,%u,%lf,%lf,%lf,%lf,%lf", norm, &seed, &threads,
                       &step, &loss, &val, &ms, &norms, &total);
        ck_assert_msg(k == 9 && !strcmp(norm, "layernorm") && seed == 1 && threads == 1 &&
                          step == s && isfinite(loss) && loss > 0,
                      "row %zu of the CSV: %s", s, rows[s]);
        ck_assert_msg(!isnan(val) == (s == 0 || s == 3 || s == 4),
                      "row %zu: the validation loss is measured at steps 0, 3 and 4 only: %s",
                      s, rows[s]);
        ck_assert_msg(s == 0 ? isnan(ms) : ms > 0 && norms >= 0 && norms < ms,
                      "row %zu: ms a step and in norms: %s", s, rows[s]);
    }
    nl_gpt2 m;
    ck_assert_msg(nl_gpt2_read(at("trained.bin"), &m) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(m.norm == NL_GPT2_LAYERNORM && m.cfg.vocab_size == 256 &&
                      m.cfg.channels == 16 && m.cfg.num_layers == 1,
                  "the model written is not the one trained");
    nl_gpt2_free(&m);
}
END_TEST

/* The starting model's loss on the first batch is the cross-entropy of
 * `normlab logits` on those tokens: one forward, two programs. */
START_TEST(starting_loss_is_what_normlab_logits_gives)
{
    const nl_gpt2_config c = {16, 256, 2, 2, 16, 256};
    nl_gpt2 m;
    ck_assert_int_eq(nl_gpt2_random(&m, &c, 6), NL_OK);
    ck_assert_int_eq(nl_gpt2_write(at("r.bin"), &m, 0), NL_OK);
    nl_gpt2_free(&m);
    static nl_run_result r;
    const char *train[] = {"train", "--init", at("r.bin"), "--text", WORDS, "--batch", "1",
                           "--steps", "0", "--csv", at("c.csv"), NULL};
    nl_run_normlab(&r, train, NULL);
    expect_exit(&r, 0, "train --steps 0");
    char rows[2][256];
    ck_assert_int_eq(csv_rows(at("c.csv"), rows, 2), 1);
    double loss;
    ck_assert(sscanf(rows[0], "%*[^,],%*u,%*u,%*u,%lf", &loss) == 1);

    FILE *f = fopen(WORDS, "rb");
    unsigned char bytes[17];
    ck_assert(f && fread(bytes, 1, 17, f) == 17);
    fclose(f);
    char tokens[128];
    size_t n = 0;
    for (int t = 0; t < 16; t++)
        n += (size_t)snprintf(tokens + n, sizeof tokens - n, "%s%u", t ? "," : "", bytes[t]);
    const char *logits[] = {"logits", "--model", at("r.bin"), "--tokens", tokens, "--out",
                            at("l.npy"), NULL};
    nl_run_normlab(&r, logits, NULL);
    expect_exit(&r, 0, "normlab logits");
    nl_array a;
    ck_assert_msg(nl_npy_read(at("l.npy"), &a) == NL_OK, "%s", nl_last_error());
    const float *y = a.data;
    double ce = 0;
    for (size_t t = 0; t < 16; t++) {
        const float *row = y + t * 256;
        double max = row[0], sum = 0;
        for (size_t v = 1; v < 256; v++)
            if (row[v] > max)
                max = row[v];
        for (size_t v = 0; v < 256; v++)
            sum += exp(row[v] - max);
        ce += log(sum) - (row[bytes[t + 1]] - max);
    }
    ce /= 16;
    nl_array_free(&a);
    ck_assert_msg(fabs(loss - ce) <= 1e-5 * ce, "train's starting loss %.6f; the cross-entropy "
                  "of normlab logits on the same 16 tokens is %.6f", loss, ce);
}
END_TEST

/* Trained a few steps, converted by chapter 12's `normlab convert`: the
 * same logits to float rounding, and the same text from the same seed. */
START_TEST(a_trained_model_converts_with_the_same_logits_and_text)
{
    static nl_run_result r, a, b;
    const char *train[] = {"train", "--text", WORDS, SMALL, "--steps", "8", "--lr", "3e-3",
                           "--out", at("ln.bin"), NULL};
    nl_run_normlab(&r, train, NULL);
    expect_exit(&r, 0, "training the model to convert");
    const char *convert[] = {"convert", "--in", at("ln.bin"), "--out", at("rms.bin"), NULL};
    nl_run_normlab(&r, convert, NULL);
    expect_exit(&r, 0, "normlab convert of the trained model");
    const char *tokens = "78,111,114,109,115,32,116,97,107,101,32,97,32,114,111,119";
    const char *la[] = {"logits", "--model", at("ln.bin"), "--tokens", tokens, "--out",
                        at("a.npy"), NULL};
    const char *lb[] = {"logits", "--model", at("rms.bin"), "--tokens", tokens, "--out",
                        at("b.npy"), NULL};
    nl_run_normlab(&r, la, NULL);
    expect_exit(&r, 0, "logits of the trained model");
    nl_run_normlab(&r, lb, NULL);
    expect_exit(&r, 0, "logits of the converted model");
    nl_array x, y;
    ck_assert(nl_npy_read(at("a.npy"), &x) == NL_OK && nl_npy_read(at("b.npy"), &y) == NL_OK);
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.count; k++) {
        double xk = ((float *)x.data)[k], yk = ((float *)y.data)[k];
        if (fabs(xk - yk) > diff)
            diff = fabs(xk - yk);
        if (fabs(xk) > scale)
            scale = fabs(xk);
    }
    nl_array_free(&x);
    nl_array_free(&y);
    ck_assert_msg(diff / scale <= 1e-5, "the converted model's logits are %.3g of their scale "
                  "from the trained model's (chapter 12's float bound: 1e-5)", diff / scale);
    const char *sa[] = {"sample", "--model", at("ln.bin"), "--seed", "7", "--length", "120",
                        "--prompt", "A norm ", "--threads", "1", NULL};
    const char *sb[] = {"sample", "--model", at("rms.bin"), "--seed", "7", "--length", "120",
                        "--prompt", "A norm ", "--threads", "1", NULL};
    nl_run_normlab(&a, sa, NULL);
    expect_exit(&a, 0, "sampling the trained model");
    nl_run_normlab(&b, sb, NULL);
    expect_exit(&b, 0, "sampling the converted model");
    ck_assert_msg(!strncmp(a.out, "A norm ", 7) && strlen(a.out) == 7 + 120 + 1,
                  "sample prints the prompt, 120 bytes and a line break: %zu bytes",
                  strlen(a.out));
    ck_assert_msg(!strcmp(a.out, b.out), "the same seed gave other text from the converted "
                  "model:\n%s\n---\n%s", a.out, b.out);
}
END_TEST

START_TEST(sampling_is_seeded)
{
    static nl_run_result a, b, c;
    const char *s1[] = {"sample", "--model", "tests/fixtures/gpt2/tiny.bin", "--seed", "3",
                        "--length", "60", NULL};
    const char *s2[] = {"sample", "--model", "tests/fixtures/gpt2/tiny.bin", "--seed", "4",
                        "--length", "60", NULL};
    nl_run_normlab(&a, s1, NULL);
    nl_run_normlab(&b, s1, NULL);
    nl_run_normlab(&c, s2, NULL);
    expect_exit(&a, 0, "sample");
    ck_assert_msg(!memcmp(a.out, b.out, 62), "seed 3 twice gave two texts");
    ck_assert_msg(memcmp(a.out, c.out, 62), "seeds 3 and 4 gave the same 60 tokens");
    const char *g1[] = {"sample", "--model", "tests/fixtures/gpt2/tiny.bin", "--seed", "3",
                        "--length", "30", "--temperature", "0", NULL};
    const char *g2[] = {"sample", "--model", "tests/fixtures/gpt2/tiny.bin", "--seed", "4",
                        "--length", "30", "--temperature", "0", NULL};
    nl_run_normlab(&a, g1, NULL);
    nl_run_normlab(&b, g2, NULL);
    ck_assert_msg(a.code == 0 && !memcmp(a.out, b.out, 32), "at temperature 0 the seed must "
                  "not matter");
}
END_TEST

/* ------------------------------------------------------------ refusals */
static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(data, 1, n, f) == n);
    fclose(f);
}

static void make_inputs(void)
{
    nl_scratch_clear();
    const nl_gpt2_config c = {8, 256, 1, 2, 8, 256};
    nl_gpt2 m;
    ck_assert_int_eq(nl_gpt2_random(&m, &c, 2), NL_OK);
    ck_assert_int_eq(nl_gpt2_write(at("m.bin"), &m, 0), NL_OK);
    /* the same model cut short, and one with a NaN weight */
    FILE *f = fopen(at("m.bin"), "rb");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_file(at("short.bin"), buf, n - 100);
    ((float *)m.t[NL_T_LNFW])[3] = NAN;
    ck_assert_int_eq(nl_gpt2_write(at("nan.bin"), &m, 0), NL_OK);
    nl_gpt2_free(&m);
    int32_t h[256] = {20240326, 3, 8};
    write_file(at("magic.bin"), h, sizeof h);
}

static const struct {
    const char *what;
    const char *args[24];
    int code;
    const char *says;
} refusals[] = {
    {"a truncated checkpoint", {"--init", "SCRATCH/short.bin", NULL}, 2, "truncated"},
    {"a shard of the wrong magic", {"--data", "SCRATCH/magic.bin", NULL}, 2, "magic 20240326"},
    {"a sequence longer than the context",
     {"--init", "SCRATCH/m.bin", "--seq", "9", NULL}, 2, "longer than the model's context"},
    {"a NaN in the weights", {"--init", "SCRATCH/nan.bin", NULL}, 1, "not a number"},
    {"a loss that diverges", {SMALL, "--optimizer", "sgd", "--lr", "10", "--val-every", "1",
                              "--steps", "40", NULL}, 1, "diverged"},
    {"a byte beyond the vocabulary", {SMALL, "--vocab", "100", NULL}, 2,
     "beyond the model's vocabulary of 100"},
    {"--init with a shape", {"--init", "SCRATCH/m.bin", "--layers", "2", NULL}, 2, "--init"},
    {"a missing file", {"--init", "SCRATCH/none.bin", NULL}, 2, "none.bin"},
    {"both kinds of data", {"--data", "SCRATCH/magic.bin", NULL}, 2, "one of --text"},
};

START_TEST(bad_input_is_named_and_nothing_written)
{
    const char *args[32];
    size_t k = 0;
    char paths[4][512];
    size_t np = 0;
    args[k++] = "train";
    if (strcmp(refusals[_i].args[0], "--data") || !strcmp(refusals[_i].what, "both kinds of data")) {
        args[k++] = "--text";
        args[k++] = WORDS;
    }
    for (const char *const *a = refusals[_i].args; *a && np < 4; a++) {
        if (!strncmp(*a, "SCRATCH/", 8)) {
            snprintf(paths[np], sizeof paths[np], "%s", at(*a + 8));
            args[k++] = paths[np++];
        } else {
            args[k++] = *a;
        }
    }
    args[k++] = "--out";
    args[k++] = at("out.bin");
    args[k++] = "--csv";
    args[k++] = at("out.csv");
    args[k] = NULL;
    static nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    expect_exit(&r, refusals[_i].code, refusals[_i].what);
    ck_assert_msg(strstr(r.err, refusals[_i].says), "%s: the message should say '%s':\n%s",
                  refusals[_i].what, refusals[_i].says, r.err);
    ck_assert_msg(access(at("out.bin"), F_OK) != 0 && access(at("out.csv"), F_OK) != 0,
                  "%s: nothing may be written", refusals[_i].what);
}
END_TEST

START_TEST(nothing_is_replaced_without_force)
{
    static nl_run_result r;
    write_file(at("keep.bin"), "mine", 4);
    const char *args[] = {"train", "--text", WORDS, SMALL, "--steps", "1", "--out",
                          at("keep.bin"), NULL};
    nl_run_normlab(&r, args, NULL);
    expect_exit(&r, 2, "--out over an existing file");
    ck_assert_msg(strstr(r.err, at("keep.bin")) && strstr(r.err, "--force"),
                  "the refusal should name the file and --force:\n%s", r.err);
    char buf[8] = {0};
    FILE *f = fopen(at("keep.bin"), "rb");
    ck_assert(f && fread(buf, 1, 8, f) == 4 && !memcmp(buf, "mine", 4));
    fclose(f);
    const char *forced[] = {"train", "--text", WORDS, SMALL, "--steps", "1", "--out",
                            at("keep.bin"), "--force", NULL};
    nl_run_normlab(&r, forced, NULL);
    expect_exit(&r, 0, "--out over an existing file with --force");
    nl_gpt2 m;
    ck_assert_msg(nl_gpt2_read(at("keep.bin"), &m) == NL_OK, "%s", nl_last_error());
    nl_gpt2_free(&m);
    /* a folder is no file to write, --force or not */
    mkdir(at("dir"), 0700);
    const char *dir[] = {"train", "--text", WORDS, SMALL, "--steps", "1", "--csv", at("dir"),
                         "--force", NULL};
    nl_run_normlab(&r, dir, NULL);
    expect_exit(&r, 2, "--csv naming a folder");
    ck_assert_msg(strstr(r.err, "not a regular file") || strstr(r.err, "directory"),
                  "the refusal should say it is no regular file:\n%s", r.err);
}
END_TEST

START_TEST(an_llm_c_shard_trains)
{
    int32_t h[256] = {20240520, 1, 2000};
    uint16_t tok[2000];
    for (int i = 0; i < 2000; i++)
        tok[i] = (uint16_t)(i * 7 % 300);
    FILE *f = fopen(at("s.bin"), "wb");
    ck_assert(f && fwrite(h, sizeof h, 1, f) == 1 && fwrite(tok, 2, 2000, f) == 2000);
    fclose(f);
    static nl_run_result r;
    const char *args[] = {"train", "--data", at("s.bin"), SMALL, "--vocab", "300", "--steps",
                          "2", NULL};
    nl_run_normlab(&r, args, NULL);
    expect_exit(&r, 0, "training on an llm.c shard");
    ck_assert_msg(strstr(r.out, "vocabulary 300") && strstr(r.out, "1800 tokens to train on"),
                  "the summary should say the vocabulary and the tokens held out:\n%s", r.out);
    const char *beyond[] = {"train", "--data", at("s.bin"), SMALL, "--vocab", "256", NULL};
    nl_run_normlab(&r, beyond, NULL);
    expect_exit(&r, 2, "a shard with tokens beyond the vocabulary");
    ck_assert_msg(strstr(r.err, "beyond the model's vocabulary of 256"), "%s", r.err);
}
END_TEST

START_TEST(an_rmsnorm_model_trains_samples_and_refuses_conversion)
{
    static nl_run_result r;
    const char *train[] = {"train", "--text", WORDS, SMALL, "--norm", "rmsnorm", "--steps", "2",
                           "--out", at("rms.bin"), NULL};
    nl_run_normlab(&r, train, NULL);
    expect_exit(&r, 0, "training an RMSNorm model");
    nl_gpt2 m;
    ck_assert_msg(nl_gpt2_read(at("rms.bin"), &m) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(m.norm == NL_GPT2_RMSNORM_GAIN && m.count[NL_T_LN1W] && !m.count[NL_T_LN1B],
                  "an RMSNorm model keeps its gains and has no beta");
    nl_gpt2_free(&m);
    const char *sample[] = {"sample", "--model", at("rms.bin"), "--length", "10", NULL};
    nl_run_normlab(&r, sample, NULL);
    expect_exit(&r, 0, "sampling an RMSNorm model");
    const char *convert[] = {"convert", "--in", at("rms.bin"), "--out", at("x.bin"), NULL};
    nl_run_normlab(&r, convert, NULL);
    expect_exit(&r, 2, "converting an RMSNorm model");
    ck_assert_msg(strstr(r.err, "no LayerNorm"), "%s", r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("train_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, make_inputs, nl_scratch_clear);
    tcase_add_test(tc, a_short_run_writes_its_csv_and_model);
    tcase_add_test(tc, starting_loss_is_what_normlab_logits_gives);
    tcase_add_test(tc, a_trained_model_converts_with_the_same_logits_and_text);
    tcase_add_test(tc, sampling_is_seeded);
    tcase_add_loop_test(tc, bad_input_is_named_and_nothing_written, 0,
                        sizeof refusals / sizeof refusals[0]);
    tcase_add_test(tc, nothing_is_replaced_without_force);
    tcase_add_test(tc, an_llm_c_shard_trains);
    tcase_add_test(tc, an_rmsnorm_model_trains_samples_and_refuses_conversion);
    suite_add_tcase(s, tc);
    return s;
}
