/* check_option_checks.c — options whose check said something untrue or
 * let a bad value through: each case runs the real program and names the
 * message it must print (issue "checks that say the truth"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void expect(const char *const *args, int code, const char *out_or_err, const char *absent)
{
    static nl_run_result r;
    nl_run_normlab(&r, args, NULL);
    char shown[512] = "";
    for (size_t i = 0, n = 0; args[i] && n < sizeof shown - 1; i++, n = strlen(shown))
        snprintf(shown + n, sizeof shown - n, "%s%s", i ? " " : "", args[i]);
    ck_assert_msg(r.exited && r.code == code, "`normlab %s`: exit %d, expected %d\nstderr: %s",
                  shown, r.code, code, r.err);
    ck_assert_msg(!out_or_err || strstr(r.out, out_or_err) || strstr(r.err, out_or_err),
                  "`normlab %s`: expected '%s' in its output\nstdout: %.1500s\nstderr: %s", shown,
                  out_or_err, r.out, r.err);
    ck_assert_msg(!absent || (!strstr(r.out, absent) && !strstr(r.err, absent)),
                  "`normlab %s`: printed '%s', which it should not\nstdout: %.1500s\nstderr: %s",
                  shown, absent, r.out, r.err);
}

/* --dtype "" selected nothing and ran the whole default benchmark. */
START_TEST(bench_empty_dtype_is_refused)
{
    const char *a[] = {"bench", "--dtype", "", NULL};
    expect(a, 2, "--dtype '': needs a non-empty value", NULL);
    const char *b[] = {"bench", "--dtype", "f32,", NULL};
    expect(b, 2, "an empty name in the list 'f32,'", NULL);
}
END_TEST

/* An f32 kernel with --dtype bf16 measured nothing and blamed "reasons
 * above" that were never printed. */
START_TEST(bench_f32_kernel_with_bf16_says_so)
{
    const char *a[] = {"bench", "--dtype", "bf16", "--impl", "rmsnorm_naive", NULL};
    expect(a, 2, "--impl rmsnorm_naive is an f32 kernel, and --dtype leaves f32 out",
           "the reasons are above");
}
END_TEST

/* A note goes into a '#' comment line of the CSV: every control or
 * separator character, and any byte that is not UTF-8, is refused. */
START_TEST(bench_note_refuses_controls_and_separators)
{
    static const struct { const char *note, *says; } bad[] = {
        {"a\vb", "U+000B, a control character"},      {"a\fb", "U+000C, a control character"},
        {"a\x1e" "b", "U+001E, a control character"}, {"a\x7f" "b", "U+007F, a control character"},
        {"a\xc2\x85" "b", "U+0085, a control character"},
        {"a\xe2\x80\xa8" "b", "U+2028, a separator"}, {"a\xe2\x80\xa9" "b", "U+2029, a separator"},
        {"a\x85" "b", "byte 0x85, which is not UTF-8"}, {"a\xc0\xaf", "byte 0xC0, which is not UTF-8"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *a[] = {"bench", "--shape", "8x64", "--note", bad[i].note, NULL};
        expect(a, 2, bad[i].says, NULL);
    }
}
END_TEST

/* LayerNorm of 2 values is +-1 whatever they are: its gradient is all
 * float rounding, and gradcheck --d 2 marked every kernel BROKEN. */
START_TEST(degenerate_widths_are_refused_with_why)
{
    const char *g[] = {"gradcheck", "--d", "2", NULL};
    expect(g, 2, "--d 2 with LayerNorm: its output is +-1", "BROKEN");
    const char *ok[] = {"gradcheck", "--d", "2", "--norm", "rms", "--rows", "4", NULL};
    expect(ok, 0, "every bound holds", "BROKEN");
    const char *three[] = {"gradcheck", "--d", "3", "--norm", "ln", NULL};
    expect(three, 0, "every bound holds", "BROKEN");
    const char *b[] = {"bench", "--shape", "16x2", "--impl", "layernorm_bwd_naive", NULL};
    expect(b, 2, "LayerNorm of 2 values is +-1", "invalid");
    const char *r[] = {"bench", "--shape", "16x1", "--impl", "rmsnorm_bwd_naive", NULL};
    expect(r, 2, "RMSNorm of 1 value is its sign", "invalid");
}
END_TEST

/* The chapters the course has: the chapters/NN-*.md files. */
static int chapter_files(void)
{
    DIR *d = opendir("chapters");
    ck_assert_msg(d, "no chapters/ folder (the tests run from the repository root)");
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] >= '0' && e->d_name[0] <= '9' && strstr(e->d_name, ".md") != NULL &&
             strncmp(e->d_name, "00-", 3) != 0;   /* 00: the preface, no chapter */
    closedir(d);
    return n;
}

/* --chapter N filtered only two of the four tables, and a chapter past the
 * last exited 0 with chapter 8's kernels. */
START_TEST(impls_chapter_filters_every_table)
{
    const char *ten[] = {"impls", "--chapter", "10", NULL};
    expect(ten, 0, "layernorm_bwd_naive", "rmsnorm_llama_bf16");
    expect(ten, 0, NULL, "layernorm_naive ");
    const char *eight[] = {"impls", "--chapter", "8", NULL};
    expect(eight, 0, "rmsnorm_llama_bf16", "layernorm_bwd_naive");
    const char *one[] = {"impls", "--chapter", "1", NULL};
    expect(one, 0, "layernorm_naive", "rmsnorm_llama_bf16");
    expect(one, 0, NULL, "backward");
    int last = chapter_files();
    char past[16], lastc[16], msg[64];
    snprintf(past, sizeof past, "%d", last + 1);
    snprintf(lastc, sizeof lastc, "%d", last);
    snprintf(msg, sizeof msg, "the course has chapters 1 to %d", last);
    const char *nope[] = {"impls", "--chapter", past, NULL};
    expect(nope, 2, msg, NULL);
    const char *fine[] = {"impls", "--chapter", lastc, NULL};
    expect(fine, 0, NULL, "the course has");
}
END_TEST

/* The help says the default seed is 0; the usage line names every option. */
START_TEST(precision_seed_zero_and_usage)
{
    const char *a[] = {"precision", "--seed", "0", "--rows", "2", "--d", "8", NULL};
    expect(a, 0, "2 x 8", NULL);
    const char *h[] = {"precision", "--help", NULL};
    expect(h, 0, "usage: normlab precision [--rows R] [--d D] [--seed S] [--histogram FILE [--force]]",
           NULL);
}
END_TEST

/* --eps is refused above 1e30: the message says the range. */
START_TEST(run_eps_message_names_the_range)
{
    const char *a[] = {"run", "rmsnorm_naive", "--eps", "1e300", NULL};
    expect(a, 2, "--eps '1e300': not a number from 0 to 1e30", NULL);
}
END_TEST

/* normlab-mpi: 1e-400 is finite (only too small for a double), and a mean
 * whose data overflow float gave "max error: 0" on all-NaN output. */
START_TEST(mpi_mean_and_std_are_checked_truthfully)
{
    NL_MPI_OR_SKIP();
    static nl_run_result r;
    static const struct { const char *opt, *value, *says; } bad[] = {
        {"--mean", "1e300", "the data would overflow float"},
        {"--std", "1e38", "the data would overflow float"},
        {"--mean", "1e-400", "--mean '1e-400' is too small for a double"},
        {"--std", "1e-400", "--std '1e-400' is too small for a double"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *a[] = {"--norm", "ln", "--rows", "2", "--d", "8", "--shard", "hidden",
                           bad[i].opt, bad[i].value, NULL};
        nl_run_mpi(&r, 1, a);
        ck_assert_msg(r.code == 2 && strstr(r.err, bad[i].says) && !strstr(r.out, "max error"),
                      "normlab-mpi %s %s: expected exit 2 saying '%s', got %d\nstdout: %s\nstderr: %s",
                      bad[i].opt, bad[i].value, bad[i].says, r.code, r.out, r.err);
        ck_assert_msg(!strstr(r.err, "must be a finite number, got '1e-400'"),
                      "1e-400 is finite: %s", r.err);
    }
    const char *ok[] = {"--norm", "ln", "--rows", "2", "--d", "8", "--shard", "hidden", "--mean",
                        "1e30", NULL};
    nl_run_mpi(&r, 1, ok);
    ck_assert_msg(r.code != 2, "--mean 1e30 fits float and must run, got exit 2: %s", r.err);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("option_checks");
    TCase *tc = tcase_create("options");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bench_empty_dtype_is_refused);
    tcase_add_test(tc, bench_f32_kernel_with_bf16_says_so);
    tcase_add_test(tc, bench_note_refuses_controls_and_separators);
    tcase_add_test(tc, degenerate_widths_are_refused_with_why);
    tcase_add_test(tc, impls_chapter_filters_every_table);
    tcase_add_test(tc, precision_seed_zero_and_usage);
    tcase_add_test(tc, run_eps_message_names_the_range);
    tcase_add_test(tc, mpi_mean_and_std_are_checked_truthfully);
    suite_add_tcase(s, tc);
    return s;
}
