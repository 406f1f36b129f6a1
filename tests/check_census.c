/* check_census.c — the census table (code/config/census.def, written by
 * scripts/census/census.py) against what it was measured from.
 *
 *   rows_name_their_source  every row parses into a status the reader knows,
 *                           a measured row names its transformers version and
 *                           modeling file, a row that is not measured says why;
 *   small_configs           the small configuration of every measured row, as
 *                           the census built it (tests/fixtures/census/small.jsonl):
 *                           the C reader evaluates the row's formulas and must
 *                           find the norm count, parameters and eps that
 *                           transformers' modules had;
 *   real_configs            the real config.json files of families the census
 *                           measured, against transformers built from each at
 *                           full size on the meta device
 *                           (tests/fixtures/configs/real/census-expected.tsv).
 * `make census-check` runs this suite alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "harness.h"

#define SMALL "tests/fixtures/census/small.jsonl"
#define REAL "tests/fixtures/configs/real/"

START_TEST(rows_name_their_source)
{
    size_t n;
    const nl_census_row *rows = nl_census_rows(&n);
    ck_assert_msg(n > 100, "only %zu census rows", n);
    size_t ok = 0;
    static const char *const statuses[] = {"ok", "delegates", "failed", "timeout", "no-norms",
                                           "text-model-unmapped", NULL};
    for (size_t i = 0; i < n; i++) {
        const nl_census_row *r = &rows[i];
        ck_assert_msg(r->model_type[0], "row %zu has no model_type", i);
        ck_assert_msg(strncmp(r->transformers, "5.", 2) == 0 || strncmp(r->transformers, "4.", 2) == 0,
                      "%s: transformers version '%s'", r->model_type, r->transformers);
        int known = 0;
        for (size_t k = 0; statuses[k]; k++)
            known |= strcmp(r->status, statuses[k]) == 0;
        ck_assert_msg(known, "%s: status '%s'", r->model_type, r->status);
        if (strcmp(r->status, "ok") == 0) {
            ok++;
            ck_assert_msg(strstr(r->modeling_file, "modeling_") && strstr(r->modeling_file, ".py"),
                          "%s: modeling file '%s'", r->model_type, r->modeling_file);
            ck_assert_msg(!strcmp(r->kind, "layernorm") || !strcmp(r->kind, "rmsnorm") || !strcmp(r->kind, "unknown"),
                          "%s: kind '%s'", r->model_type, r->kind);
            ck_assert_msg(strstr(r->groups, " x "), "%s: no groups", r->model_type);
            ck_assert_msg(nl_census_find(r->model_type) == r, "%s: not found by its model_type", r->model_type);
        } else if (strcmp(r->status, "no-norms") != 0) {
            ck_assert_msg(r->why[0], "%s: status %s without a reason", r->model_type, r->status);
        }
    }
    ck_assert_msg(ok > 100, "only %zu measured rows", ok);
}
END_TEST

START_TEST(small_configs)
{
    size_t len;
    char *text = nl_read_file(SMALL, (size_t)64 << 20, &len);
    ck_assert_msg(text, "%s: %s", SMALL, nl_last_error());
    size_t lines = 0, bad = 0, unexplained = 0;
    char first[600] = "";
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        cJSON *rec = cJSON_Parse(line);
        ck_assert_msg(rec, "line %zu of %s is not JSON", lines + 1, SMALL);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(rec, "model_type");
        const cJSON *expect = cJSON_GetObjectItemCaseSensitive(rec, "expect");
        const cJSON *eps = cJSON_GetObjectItemCaseSensitive(rec, "eps");
        char *cfg = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rec, "config"));
        ck_assert(cJSON_IsString(mt) && expect && cfg);
        double want_n = cJSON_GetObjectItemCaseSensitive(expect, "norm_layers")->valuedouble;
        double want_p = cJSON_GetObjectItemCaseSensitive(expect, "norm_params")->valuedouble;
        nl_config c;
        int rc = nl_config_parse(cfg, strlen(cfg), mt->valuestring, &c);
        char why[300] = "";
        const nl_census_row *row = nl_census_find(mt->valuestring);
        /* A group the census could not tie to a field ('?'): counted by the
         * fallback, which the note says; not a census count to reproduce. */
        if (row && strstr(row->groups, "?")) {
            ck_assert_msg(rc != NL_OK || strstr(c.note, "counted without the census"),
                          "%s: an unexplained census group, and the note does not say so", mt->valuestring);
            unexplained++;
            nl_config_free(&c); /* failed or not, as normlab.h says */
            free(cfg);
            cJSON_Delete(rec);
            lines++;
            continue;
        }
        if (rc != NL_OK)
            snprintf(why, sizeof why, "not read: %s", nl_last_error());
        else if (strcmp(c.answered_from, "census") != 0)
            snprintf(why, sizeof why, "answered from %s, not the census", c.answered_from);
        else if ((double)c.norm_layers != want_n || (double)c.norm_params != want_p)
            snprintf(why, sizeof why, "%zu norms, %zu parameters; transformers built %.0f, %.0f",
                     c.norm_layers, c.norm_params, want_n, want_p);
        else if (cJSON_IsNumber(eps) && fabs(c.eps - eps->valuedouble) > 1e-12 * eps->valuedouble)
            snprintf(why, sizeof why, "eps %g (%s); the modules held %g", c.eps,
                     c.eps_key[0] ? c.eps_key : "default", eps->valuedouble);
        if (why[0]) {
            bad++;
            fprintf(stderr, "  census %s: %s\n", mt->valuestring, why);
            if (!first[0])
                snprintf(first, sizeof first, "%s: %s", mt->valuestring, why);
        }
        nl_config_free(&c);
        free(cfg);
        cJSON_Delete(rec);
        lines++;
    }
    free(text);
    printf("census small configs: %zu of %zu reproduced; %zu with a group the census could not tie to a "
           "field (counted by the fallback, and said so)\n", lines - bad - unexplained, lines - unexplained,
           unexplained);
    ck_assert_msg(lines > 100, "only %zu small configs", lines);
    ck_assert_msg(bad == 0, "%zu of %zu small configs not reproduced; first: %s", bad, lines, first);
}
END_TEST

START_TEST(real_configs)
{
    FILE *f = fopen(REAL "census-expected.tsv", "r");
    ck_assert_msg(f, "no " REAL "census-expected.tsv");
    char line[1024], first[600] = "";
    size_t n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char file[256], mt[128], norms[32], eps[64] = "";
        unsigned long long params = 0;
        if (sscanf(line, "%255[^\t]\t%127[^\t]\t%31[^\t]\t%llu\t%63[^\t\n]", file, mt, norms, &params, eps) < 3 ||
            strcmp(norms, "failed") == 0)
            continue;
        char path[400];
        snprintf(path, sizeof path, REAL "%s", file);
        nl_config c;
        char why[300] = "";
        int rc = nl_config_read(path, &c);
        if (rc != NL_OK)
            snprintf(why, sizeof why, "not read: %s", nl_last_error());
        else if (c.norm_layers != strtoull(norms, NULL, 10) || c.norm_params != params)
            snprintf(why, sizeof why, "%zu norms, %zu parameters (from %s); transformers built %s, %llu",
                     c.norm_layers, c.norm_params, c.answered_from, norms, params);
        /* One eps in every module: the one the reader must report. */
        else if (eps[0] && !strchr(eps, ',') && fabs(c.eps - strtod(eps, NULL)) > 1e-12)
            snprintf(why, sizeof why, "eps %g from %s; transformers' modules hold %s", c.eps,
                     c.eps_key[0] ? c.eps_key : "the default", eps);
        if (why[0]) {
            bad++;
            fprintf(stderr, "  real %s: %s\n", file, why);
            if (!first[0])
                snprintf(first, sizeof first, "%s: %s", file, why);
        }
        nl_config_free(&c);
        n++;
    }
    fclose(f);
    printf("census real configs: %zu of %zu with the norm count, norm parameters and eps of the model "
           "transformers builds from them\n", n - bad, n);
    ck_assert_msg(n >= 20, "only %zu real configs measured", n);
    ck_assert_msg(bad == 0, "%zu of %zu real configs off; first: %s", bad, n, first);
}
END_TEST

/* Found by make fuzz: a config whose depth key is misspelt builds the
 * class's default depth in transformers; the reader said 0 layers beside
 * a norm count made from that default. */
START_TEST(missing_depth_is_the_default_depth)
{
    static const char text[] = "{\"model_type\": \"mistral\", \"hidden_size\": 4096, "
        "\"num_attention_heads\": 32, \"num_hidden_layercs\": 32, \"rms_norm_eps\": 1e-05}";
    nl_config c;
    int rc = nl_config_parse(text, strlen(text), "typo.json", &c);
    ck_assert_msg(rc == NL_OK, "not read: %s", nl_last_error());
    ck_assert_msg(c.num_layers == 32 && c.norm_layers == 2 * 32 + 1,
                  "%zu layers, %zu norms; MistralConfig's default depth 32 builds 65 norms",
                  c.num_layers, c.norm_layers);
    ck_assert_msg(c.note && strstr(c.note, "default"), "the note does not say the depth is the "
                  "default: %s", c.note ? c.note : "(none)");
    nl_config_free(&c);
}
END_TEST

Suite *nl_suite(void)
{
    Suite *s = suite_create("census");
    TCase *tc = tcase_create("census");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, rows_name_their_source);
    tcase_add_test(tc, small_configs);
    tcase_add_test(tc, real_configs);
    tcase_add_test(tc, missing_depth_is_the_default_depth);
    suite_add_tcase(s, tc);
    return s;
}
