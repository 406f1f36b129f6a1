/* check_config_errors.c — `normlab config` on bad and odd input, run as a
 * user runs it: the built program, its stderr and its exit status.  Every
 * bad file gets a message naming the file, the key and the problem; the
 * other files in the same run are still reported.  Files a user could have
 * written by mistake (UTF-16, Latin-1, a directory, a key written twice),
 * files that probe the parser (\u0000, {NaN: 1}, deep nesting, 64 MiB of
 * values), and names the output must carry whole and escaped (long paths,
 * a tab in a file name, bytes that are not UTF-8). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "harness.h"

#define FIX "tests/fixtures/configs/"

/* `normlab config ARGS...`; a crash or a hang fails the test at once. */
static nl_run_result *run(const char *const *args)
{
    static nl_run_result r;
    const char *argv[32] = {"config"};
    size_t n = 1;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    nl_run_normlab(&r, argv, NULL);
    ck_assert_msg(r.exited && !r.timed_out, "normlab config %s did not exit by itself "
                  "(signal %d, or killed after %.0f s)\nstderr: %s",
                  args[0] ? args[0] : "", r.code, nl_run_time_limit(), r.err);
    return &r;
}

static const struct { const char *file, *key, *problem; } bad[] = {
    {FIX "bad/not-json.json", "line 3", "not JSON"},
    {FIX "bad/array.json", "top level", "expected an object"},
    {FIX "bad/eps-string.json", "rms_norm_eps", "is a string"},
    {FIX "bad/hidden-negative.json", "hidden_size", "is -4, expected a positive whole number"},
    {FIX "bad/empty.json", "empty file", "expected a JSON object"},
    {FIX "bad/no-such-file.json", "cannot open", "No such file"},
    {FIX "bad/utf16.json", "UTF-16 text (byte-order mark FF FE)", "save the file as UTF-8"},
    {FIX "bad/utf16-no-bom.json", "UTF-16 text (no byte-order mark", "save the file as UTF-8"},
    {FIX "bad/latin1.json", "not UTF-8: byte 0xE9 at line 2", "UTF-8"},
    {FIX "bad/nul-in-key.json", "\\u0000 (a NUL character) in a string at line 2", "would be cut"},
    {FIX "bad/nan-key.json", "a key at line 1 is NaN, not a string", "Python's json refuses"},
    {FIX "bad/nan-top.json", "the top level is NaN", "expected an object"},
    {FIX "bad/too-deep.json", "nested deeper than 100 levels at line 5", "nests a few"},
    {FIX "bad/text-config-string.json", "key 'text_config' is a string (\"llama\")", "expected an object"},
    {FIX "bad/text-config-array.json", "key 'text_config' is an array", "expected an object"},
    {FIX "bad/heads-over-hidden.json", "num_attention_heads is 16, more than hidden_size 8", "0 wide"},
    {FIX "bad/census-cannot-count.json", "the census could not say which layers hold the norms encoder.block",
     "no hidden size under the usual names"},
    {FIX "bad", "is a directory", "give the config.json inside it"},
};

START_TEST(each_bad_file)
{
    const char *args[] = {bad[_i].file, NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "normlab config %s: exit status %d, expected 1\nstderr: %s",
                  bad[_i].file, r->code, r->err);
    ck_assert_msg(strstr(r->err, bad[_i].file) && strstr(r->err, bad[_i].key) &&
                      strstr(r->err, bad[_i].problem),
                  "the message for %s should name the file, '%s' and '%s'; it was:\n  %s", bad[_i].file,
                  bad[_i].key, bad[_i].problem, r->err);
    ck_assert_msg(r->out[0] == '\0', "a refused file prints nothing on stdout; got:\n%s", r->out);
}
END_TEST

/* One bad file among good ones: the good ones are still reported. */
START_TEST(others_still_reported)
{
    const char *args[] = {"--tsv", FIX "gpt2.json", FIX "bad/eps-string.json", FIX "Mistral-7B-v0.1.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "a run with one bad file must exit 1, got %d", r->code);
    ck_assert_msg(strstr(r->out, "gpt2\t") && strstr(r->out, "Mistral-7B-v0.1\t"),
                  "the good files before and after the bad one should be in the table:\n%s", r->out);
    ck_assert_msg(strstr(r->err, "eps-string.json"), "the bad file should be named on stderr: %s", r->err);
}
END_TEST

START_TEST(json_lines)
{
    const char *args[] = {"--json", FIX "Qwen3-0.6B.json", FIX "bad/empty.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "exit %d, expected 1 (one file bad)", r->code);
    size_t lines = 0;
    for (const char *p = r->out; *p; p++)
        lines += *p == '\n';
    ck_assert_msg(lines == 2, "--json prints one line per file; got %zu lines:\n%s", lines, r->out);
    const char *fields[] = {"\"file\":", "\"model_type\":\"qwen3\"", "\"norm\":\"RMSNorm\"", "\"bias\":false",
                            "\"weight\":true", "\"weight_offset\":false", "\"eps\":1e-06",
                            "\"eps_key\":\"rms_norm_eps\"", "\"eps_is_default\":false", "\"hidden_size\":1024",
                            "\"num_layers\":28", "\"norms_per_layer\":4", "\"norm_layers\":113",
                            "\"norm_params\":65536", "\"params_saved\":65536", "\"error\":"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(strstr(r->out, fields[i]), "--json output lacks %s:\n%s", fields[i], r->out);
}
END_TEST

START_TEST(default_eps_is_null_key)
{
    const char *args[] = {"--json", FIX "families/olmo-1b.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    ck_assert_msg(strstr(r->out, "\"eps_key\":null") && strstr(r->out, "\"eps_is_default\":true"),
                  "olmo has no eps key: eps_key should be null and eps_is_default true:\n%s", r->out);
}
END_TEST

START_TEST(help_and_usage)
{
    const char *help[] = {"--help", NULL};
    nl_run_result *r = run(help);
    ck_assert_msg(r->code == 0, "--help should exit 0, got %d", r->code);
    const char *fields[] = {"file", "model_type", "norm", "bias", "weight_offset", "eps_key",
                            "eps_is_default", "hidden_size", "num_layers", "norms_per_layer",
                            "norm_layers", "norm_params", "params_saved"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(strstr(r->out, fields[i]), "--help should document the field %s", fields[i]);

    const char *unknown[] = {"--frobnicate", FIX "gpt2.json", NULL};
    r = run(unknown);
    ck_assert_msg(r->code == 2, "an unknown option should exit 2, got %d", r->code);
    ck_assert_msg(strstr(r->err, "--frobnicate"), "the message should name the option: %s", r->err);

    const char *none[] = {NULL};
    r = run(none);
    ck_assert_msg(r->code == 2, "no file at all is a usage error (2), got %d", r->code);
}
END_TEST

/* The nine-model table. */
START_TEST(nine_model_table)
{
    const char *args[] = {"--tsv", FIX "gpt2.json", FIX "pythia-410m.json", FIX "phi-2.json",
                          FIX "stablelm-3b-4e1t.json", FIX "TinyLlama-1.1B-Chat-v1.0.json",
                          FIX "Qwen3-0.6B.json", FIX "SmolLM2-360M.json", FIX "OLMo-2-0425-1B.json",
                          FIX "Mistral-7B-v0.1.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    const char *rows[] = {
        "phi-2\tphi\tLayerNorm\t32\t2560\t1e-05\tlayer_norm_eps\t1\t33\t168960\t84480\n",
        "Qwen3-0.6B\tqwen3\tRMSNorm\t28\t1024\t1e-06\trms_norm_eps\t4\t113\t65536\t65536\n",
        "OLMo-2-0425-1B\tolmo2\tRMSNorm\t16\t2048\t1e-06\trms_norm_eps\t4\t65\t133120\t133120\n",
    };
    for (size_t i = 0; i < 3; i++)
        ck_assert_msg(strstr(r->out, rows[i]), "the table lacks the corrected row\n  %sit printed:\n%s",
                      rows[i], r->out);
}
END_TEST

static nl_config parse_ok(const char *path)
{
    nl_config c;
    ck_assert_msg(nl_config_read(path, &c) == NL_OK, "%s should be read: %s", path, nl_last_error());
    return c;
}

/* {"model_type": "gpt2", ..., "model_type": "llama"} is a Llama config to
 * Python's json and to transformers. */
START_TEST(repeated_key_last_wins)
{
    nl_config c = parse_ok(FIX "odd/duplicate-keys.json");
    ck_assert_msg(strcmp(c.model_type, "llama") == 0 && c.shape.norm == NL_RMSNORM,
                  "model_type is written twice, gpt2 then llama: the last counts (as in Python), so "
                  "Llama and RMSNorm; got '%s', %s", c.model_type, nl_norm_name(c.shape.norm));
    ck_assert_msg(c.eps == 1e-6, "rms_norm_eps is written 1e-05 then 1e-06: expected 1e-06, got %g", c.eps);
    ck_assert_msg(c.note && strstr(c.note, "repeated key") && strstr(c.note, "last occurrence"),
                  "the note should say keys were repeated and the last one used; it says: %s", c.note);
    nl_config_free(&c);

    /* In a nested object too. */
    const char *nested = "{\"text_config\": {\"model_type\": \"gpt2\", \"hidden_size\": 8,"
                         " \"num_hidden_layers\": 1, \"model_type\": \"qwen3\", \"num_attention_heads\": 2}}";
    ck_assert_msg(nl_config_parse(nested, strlen(nested), "nested.json", &c) == NL_OK, "%s", nl_last_error());
    ck_assert_msg(strcmp(c.model_type, "qwen3") == 0, "text_config.model_type written twice: expected "
                  "the last, qwen3; got '%s'", c.model_type);
    nl_config_free(&c);
}
END_TEST

/* Two spellings: the family's own key is read, the other named. */
START_TEST(two_spellings_named)
{
    nl_config c = parse_ok(FIX "odd/two-eps-spellings.json");
    ck_assert_msg(strcmp(c.eps_key, "rms_norm_eps") == 0 && c.eps == 1e-6,
                  "Llama reads rms_norm_eps (1e-06), whatever comes first in the file; got %g from '%s'",
                  c.eps, c.eps_key);
    ck_assert_msg(c.note && strstr(c.note, "layer_norm_eps = 1e-05 is also present (a different value)"),
                  "the note should name the other spelling and say the values differ; it says: %s", c.note);
    nl_config_free(&c);

    c = parse_ok(FIX "odd/other-spelling-only.json");
    ck_assert_msg(c.eps_is_default && c.eps == 1e-6,
                  "a Llama config with only layer_norm_eps runs with LlamaConfig's default 1e-06 (the "
                  "key is not read); got %g from '%s'", c.eps, c.eps_key);
    ck_assert_msg(c.note && strstr(c.note, "Llama reads rms_norm_eps"),
                  "the note should say the key present is not the one read; it says: %s", c.note);
    nl_config_free(&c);
}
END_TEST

/* A \u0000 in a value is refused as in a key: cJSON would cut both. */
START_TEST(nul_in_a_value)
{
    const char *json = "{\"model_type\": \"llama\\u0000gpt2\", \"hidden_size\": 8, \"num_hidden_layers\": 1}";
    nl_config c;
    ck_assert_msg(nl_config_parse(json, strlen(json), "v.json", &c) == NL_EARG,
                  "a value with \\u0000 was accepted as model_type '%s'", c.model_type ? c.model_type : "");
    ck_assert_msg(strstr(nl_last_error(), "v.json: \\u0000 (a NUL character) in a string at line 1"),
                  "message: %s", nl_last_error());
    nl_config_free(&c);
}
END_TEST

/* A scratch folder for files the test makes; removed by the caller. */
static char *scratch(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/nl-config-XXXXXX");
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    return dir;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_msg(fclose(f) == 0, "cannot write %s", path);
}

static const char small_llama[] =
    "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"rms_norm_eps\": 1e-06}\n";

/* A small Llama config named `name` in a fresh scratch folder; the folder
 * is returned, the file's path written to path. */
static char *llama_named(const char *name, char *path, size_t n)
{
    char *dir = scratch();
    snprintf(path, n, "%s/%s", dir, name);
    write_file(path, small_llama);
    return dir;
}

/* The one --json line, parsed; its "file" and "model_type" returned. */
static cJSON *json_line(const nl_run_result *r)
{
    cJSON *o = cJSON_Parse(r->out);
    ck_assert_msg(o != NULL, "--json printed a line that is not JSON (is it valid UTF-8?):\n%s", r->out);
    return o;
}

/* 300 bytes of path and a 100-byte model_type with a 3-byte character
 * where a 64-byte field would have cut it: both come out whole. */
START_TEST(long_names_whole)
{
    char *dir = scratch();
    char path[2048], sub[512];
    snprintf(sub, sizeof sub, "%s/%0120d", dir, 0);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/%0160d-config.json", sub, 0);
    char mt[128];
    snprintf(mt, sizeof mt, "%061d\xE2\x82\xAC%036d", 0, 0);   /* the euro sign spans bytes 61-63 */
    char json[512];
    snprintf(json, sizeof json, "{\"model_type\": \"%s\", \"hidden_size\": 64, \"num_hidden_layers\": 2}", mt);
    write_file(path, json);

    const char *args[] = {"--json", path, NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    cJSON *o = json_line(r);
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(o, "file");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "model_type");
    ck_assert_msg(cJSON_IsString(file) && strcmp(file->valuestring, path) == 0,
                  "a %zu-byte path should come back whole in \"file\"; got:\n%s", strlen(path), r->out);
    ck_assert_msg(cJSON_IsString(type) && strcmp(type->valuestring, mt) == 0,
                  "a %zu-byte model_type should come back whole (a fixed field would cut the euro sign "
                  "in half); got:\n%s", strlen(mt), r->out);
    cJSON_Delete(o);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}
END_TEST

/* A tab and a newline in a file name would shift the table's columns. */
START_TEST(tsv_escapes)
{
    char path[256];
    char *dir = llama_named("a\tb\nc.json", path, sizeof path);
    const char *args[] = {"--tsv", path, NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 0, "exit %d: %s", r->code, r->err);
    ck_assert_msg(strstr(r->out, "\na\\tb\\nc\tllama\tRMSNorm\t2\t64\t"),
                  "the row should start with the name escaped as a\\tb\\nc, then the columns in place; "
                  "got:\n%s", r->out);
    size_t lines = 0;
    for (const char *p = r->out; *p; p++)
        lines += *p == '\n';
    ck_assert_msg(lines == 2, "header and one row: 2 lines, got %zu:\n%s", lines, r->out);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A file name in Latin-1: --json stays valid UTF-8, the byte written \xE9. */
START_TEST(json_escapes_non_utf8_names)
{
    char path[256];
    char *dir = llama_named("caf\xE9.json", path, sizeof path);
    char missing[256];
    snprintf(missing, sizeof missing, "%s/gon\xE9.json", dir);
    const char *args[] = {"--json", path, missing, NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "one file missing: exit 1, got %d: %s", r->code, r->err);
    char *second = strchr(r->out, '\n');
    ck_assert_msg(second && second[1], "two lines expected:\n%s", r->out);
    *second = '\0';
    cJSON *o = json_line(r);
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(o, "file");
    ck_assert_msg(cJSON_IsString(file) && strstr(file->valuestring, "/caf\\xE9.json"),
                  "the byte 0xE9 should be written as the text \\xE9; got:\n%s", r->out);
    cJSON_Delete(o);
    o = cJSON_Parse(second + 1);
    ck_assert_msg(o && strstr(cJSON_GetObjectItemCaseSensitive(o, "error")->valuestring, "gon\\xE9.json"),
                  "the error line must be valid JSON too, with the name escaped; got:\n%s", second + 1);
    cJSON_Delete(o);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Runs `normlab config ARGS` with stdout going to `out_path` and an
 * address-space cap (0: none); returns the wait status, the child's peak
 * RSS in kB, and its stderr. */
static int run_to(const char *out_path, const char *const *args, rlim_t cap, long *maxrss_kb, char *err,
                  size_t errlen)
{
    int pe[2];
    ck_assert_int_eq(pipe(pe), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(pe[1], 2);
        close(pe[0]);
        if (cap) {
            struct rlimit lim = {cap, cap};
            setrlimit(RLIMIT_AS, &lim);
        }
        const char *argv[16] = {nl_normlab_path(), "config"};
        size_t n = 2;
        for (size_t i = 0; args[i] && n < 15; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pe[1]);
    size_t got = 0;
    ssize_t k;
    while (got + 1 < errlen && (k = read(pe[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)k;
    err[got] = '\0';
    close(pe[0]);
    int status;
    struct rusage ru;
    ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
    *maxrss_kb = ru.ru_maxrss;
    return status;
}

static int wrapped(void)
{
    const char *w = getenv("NL_CLI_WRAPPER"), *t = getenv("NL_TEST_WRAPPER");
    return (w && *w) || (t && *t);
}

/* A full disk loses the report: the exit status must say so. */
START_TEST(full_disk_is_an_error)
{
    if (access("/dev/full", W_OK) != 0)
        NL_SKIP("no writable /dev/full on this system");
    if (wrapped())
        NL_SKIP("this test runs the program itself, without the valgrind/qemu wrapper");
    const char *args[] = {FIX "gpt2.json", NULL};
    char err[4096];
    long rss;
    int st = run_to("/dev/full", args, 0, &rss, err, sizeof err);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1,
                  "normlab config > /dev/full: expected exit 1 (the output was lost), got status %d; stderr: %s",
                  st, err);
    ck_assert_msg(strstr(err, "cannot write the output"), "stderr should say the output could not be "
                  "written; it says: %s", err);
}
END_TEST

/* 64 MiB of [1,1,...]: refused by the count of values, in bounded memory.
 * (Before the limit, cJSON built 33 million nodes: 2.6 GiB of memory.) */
START_TEST(many_values_bounded_memory)
{
    if (wrapped())
        NL_SKIP("memory is measured on the program itself, not under valgrind or qemu");
#if defined(__SANITIZE_ADDRESS__)
    NL_SKIP("ASan's shadow memory makes the program's peak RSS meaningless here");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    NL_SKIP("ASan's shadow memory makes the program's peak RSS meaningless here");
#endif
#endif
    char *dir = scratch();
    char path[256];
    snprintf(path, sizeof path, "%s/ones.json", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    static char chunk[1 << 16];
    for (size_t i = 0; i < sizeof chunk; i += 2)
        chunk[i] = '1', chunk[i + 1] = ',';
    fputc('[', f);
    for (size_t i = 0; i < (((size_t)64 << 20) - 2) / sizeof chunk - 1; i++)
        fwrite(chunk, 1, sizeof chunk, f);
    fputs("1]", f);
    ck_assert_int_eq(fclose(f), 0);

    const char *args[] = {path, NULL};
    char err[4096];
    long rss;
    /* 1 GiB of address space: far more than the refusal needs, far less
     * than building the tree would. */
    int st = run_to("/dev/null", args, (rlim_t)1 << 30, &rss, err, sizeof err);
    unlink(path);
    rmdir(dir);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(err, "more than 100000 values"),
                  "a 64 MiB array of numbers should be refused for its count of values (exit 1, "
                  "\"more than 100000 values\"); got status %d, stderr: %s", st, err);
    ck_assert_msg(rss < 256 * 1024, "peak memory %ld kB for a 64 MiB file: expected under 256 MiB "
                  "(the file, and no tree of its values)", rss);
}
END_TEST

/* --table: the --tsv columns aligned; the last column is right-aligned, so
 * every line is as long as the header. */
START_TEST(table_aligned)
{
    const char *args[] = {"--table", FIX "gpt2.json", FIX "Qwen3-0.6B.json", FIX "bad/empty.json", NULL};
    nl_run_result *r = run(args);
    ck_assert_msg(r->code == 1, "one file bad: exit 1, got %d: %s", r->code, r->err);
    ck_assert_msg(strncmp(r->out, "model ", 6) == 0 && strstr(r->out, "\ngpt2 ") && strstr(r->out, "\nQwen3-0.6B "),
                  "a header, then one row per readable file:\n%s", r->out);
    ck_assert_msg(!strchr(r->out, '\t') && !strstr(r->out, "per_block"),
                  "--table uses spaces and leaves out per_block:\n%s", r->out);
    size_t first = strcspn(r->out, "\n"), lines = 0;
    for (const char *p = r->out; *p; p += strcspn(p, "\n") + 1, lines++)
        ck_assert_msg(strcspn(p, "\n") == first, "every line should be %zu characters (aligned columns):\n%s",
                      first, r->out);
    ck_assert_msg(lines == 3, "header and 2 rows, got %zu lines:\n%s", lines, r->out);
    ck_assert_msg(strstr(r->out, "  113  ") && strstr(r->out, "  65536"),
                  "Qwen3-0.6B's row should show 113 norms and 65536 parameters:\n%s", r->out);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("config_errors");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, each_bad_file, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, others_still_reported);
    tcase_add_test(tc, json_lines);
    tcase_add_test(tc, default_eps_is_null_key);
    tcase_add_test(tc, help_and_usage);
    tcase_add_test(tc, nine_model_table);
    tcase_add_test(tc, table_aligned);
    tcase_add_test(tc, repeated_key_last_wins);
    tcase_add_test(tc, two_spellings_named);
    tcase_add_test(tc, nul_in_a_value);
    tcase_add_test(tc, long_names_whole);
    tcase_add_test(tc, tsv_escapes);
    tcase_add_test(tc, json_escapes_non_utf8_names);
    tcase_add_test(tc, full_disk_is_an_error);
    tcase_add_test(tc, many_values_bounded_memory);
    suite_add_tcase(s, tc);
    return s;
}
