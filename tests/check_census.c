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
 *   layers_line_names_the_counted_field   a T5 file with a stray
 *                           num_hidden_layers: the layers line names num_layers;
 *   enum_toggles            string fields the modeling file compares
 *                           (tests/fixtures/census/enums.jsonl): the small config
 *                           with the value set gives what transformers built;
 *   placement_rows          placement.def's labels, and the families whose
 *                           modeling files fix it, as measured.
 *   qwen3_moe_head_dim_is_its_own_field, glm4_moe_head_dim_is_its_own_field,
 *   qwen3_next_without_layer_types   the traps of a census that matched each
 *                           width once (tests/fixtures/configs/traps/): head_dim
 *                           unlike hidden / heads, a per-layer list the
 *                           configuration class derives; counts against
 *                           transformers built from the same file;
 *   every_width_formula_varied  each width formula was fitted over builds that
 *                           varied every field it reads at least twice;
 *   families_that_fall_to_the_guess  how many model_types have no measured and
 *                           no hand-written row, and that their answer says so.
 * `make census-check` runs this suite alone. */
#include <ctype.h>
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
    size_t lines = 0, bad = 0, unexplained = 0, absent_n = 0;
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
        /* The same config without a field the class derives (head_dim, a
         * per-layer list): transformers still builds it, so the reader must
         * count it, as built. */
        const cJSON *absent = cJSON_GetObjectItemCaseSensitive(rec, "absent"), *a;
        cJSON_ArrayForEach(a, absent) {
            if (why[0])
                break;
            const char *drop = cJSON_GetObjectItemCaseSensitive(a, "drop")->valuestring;
            const cJSON *ae = cJSON_GetObjectItemCaseSensitive(a, "expect");
            cJSON *dcfg = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "config"), 1);
            cJSON_DeleteItemFromObjectCaseSensitive(dcfg, drop);
            char *djson = cJSON_PrintUnformatted(dcfg);
            nl_config dc;
            int drc = nl_config_parse(djson, strlen(djson), mt->valuestring, &dc);
            double an = cJSON_GetObjectItemCaseSensitive(ae, "norm_layers")->valuedouble;
            double ap = cJSON_GetObjectItemCaseSensitive(ae, "norm_params")->valuedouble;
            if (drc != NL_OK)
                snprintf(why, sizeof why, "without %s: not read (%s); transformers built %.0f norms", drop,
                         nl_last_error(), an);
            else if ((double)dc.norm_layers != an || (double)dc.norm_params != ap)
                snprintf(why, sizeof why, "without %s: %zu norms, %zu parameters; transformers built %.0f, %.0f",
                         drop, dc.norm_layers, dc.norm_params, an, ap);
            absent_n++;
            nl_config_free(&dc);
            free(djson);
            cJSON_Delete(dcfg);
        }
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
    printf("census small configs: %zu of %zu reproduced, and %zu of them again without a field the "
           "configuration class derives; %zu with a group the census could not tie to a field (counted by the "
           "fallback, and said so)\n", lines - bad - unexplained, lines - unexplained, absent_n, unexplained);
    ck_assert_msg(lines > 100, "only %zu small configs", lines);
    ck_assert_msg(bad == 0, "%zu of %zu small configs not reproduced; first: %s", bad, lines, first);
}
END_TEST

START_TEST(real_configs)
{
    FILE *f = fopen(REAL "census-expected.tsv", "r");
    ck_assert_msg(f, "no " REAL "census-expected.tsv");
    char line[1024], first[600] = "";
    /* Per field, how many files the reader got right: the target
     * is every kind, eps key, eps and size right, and norm counts for at
     * least 98 %; this suite holds all of them to every file. */
    size_t n = 0, bad = 0, kind_ok = 0, key_ok = 0, eps_ok = 0, size_ok = 0, count_ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char file[256], mt[128], norms[32], eps[64] = "", kind[32] = "", key[128] = "";
        unsigned long long params = 0;
        if (sscanf(line, "%255[^\t]\t%127[^\t]\t%31[^\t]\t%llu\t%63[^\t\n]\t%31[^\t\n]\t%127[^\t\n]", file, mt,
                   norms, &params, eps, kind, key) < 3 ||
            strcmp(norms, "failed") == 0)
            continue;
        char path[400];
        snprintf(path, sizeof path, REAL "%s", file);
        nl_config c;
        char why[300] = "";
        int rc = nl_config_read(path, &c);
        if (rc != NL_OK) {
            snprintf(why, sizeof why, "not read: %s", nl_last_error());
        } else {
            const char *got_kind = c.shape.norm == NL_RMSNORM ? "rmsnorm" : "layernorm";
            const char *dot = strrchr(c.eps_key, '.');
            const char *got_key = c.eps_is_default ? "" : dot ? dot + 1 : c.eps_key;
            int k_ok = !kind[0] || strcmp(kind, got_kind) == 0;
            int y_ok = !key[0] || (key[0] == '(' ? c.eps_is_default : strcmp(key, got_key) == 0);
            /* One eps in every module: the one the reader must report. */
            int e_ok = !eps[0] || strchr(eps, ',') || fabs(c.eps - strtod(eps, NULL)) <= 1e-12;
            int s_ok = c.norm_params == params;
            int n_ok = c.norm_layers == strtoull(norms, NULL, 10);
            kind_ok += k_ok;
            key_ok += y_ok;
            eps_ok += e_ok;
            size_ok += s_ok;
            count_ok += n_ok;
            if (!n_ok || !s_ok)
                snprintf(why, sizeof why, "%zu norms, %zu parameters (from %s); transformers built %s, %llu",
                         c.norm_layers, c.norm_params, c.answered_from, norms, params);
            else if (!e_ok)
                snprintf(why, sizeof why, "eps %g from %s; transformers' modules hold %s", c.eps,
                         c.eps_key[0] ? c.eps_key : "the default", eps);
            else if (!k_ok)
                snprintf(why, sizeof why, "kind %s; transformers' norms run as %s", got_kind, kind);
            else if (!y_ok)
                snprintf(why, sizeof why, "eps key '%s'; transformers reads %s", got_key, key);
        }
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
    printf("census real configs: %zu files; right: kind %zu, eps key %zu, eps %zu, norm parameters (sizes) %zu, "
           "norm count %zu; all of them %zu\n", n, kind_ok, key_ok, eps_ok, size_ok, count_ok, n - bad);
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

/* A T5 file with a stray generic depth key beside its own: the
 * census counts T5's num_layers, and the "layers" line must name the field
 * the count used, not the stray one. */
START_TEST(layers_line_names_the_counted_field)
{
    static const char text[] = "{\"model_type\": \"t5\", \"d_model\": 512, \"num_layers\": 6, "
        "\"num_decoder_layers\": 6, \"num_hidden_layers\": 99, \"num_heads\": 8, \"layer_norm_epsilon\": 1e-06}";
    nl_config c;
    int rc = nl_config_parse(text, strlen(text), "stray-depth.json", &c);
    ck_assert_msg(rc == NL_OK, "not read: %s", nl_last_error());
    ck_assert_msg(c.norm_layers == 2 * 6 + 3 * 6 + 2, "%zu norms; T5 builds 2 per encoder block, 3 per "
                  "decoder block and 2 final norms", c.norm_layers);
    ck_assert_msg(c.num_layers == 6 && strcmp(c.layers_key, "num_layers") == 0,
                  "layers %zu (%s); the count used num_layers = 6", c.num_layers, c.layers_key);
    nl_config_free(&c);
}
END_TEST

/* The small config of a census row (tests/fixtures/census/small.jsonl), or
 * NULL; the caller deletes it. */
static cJSON *small_config_of(const char *text, const char *model_type)
{
    char key[160];
    snprintf(key, sizeof key, "\"model_type\": \"%s\"", model_type);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        cJSON *rec = cJSON_ParseWithLength(line, n);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(rec, "model_type");
        if (cJSON_IsString(mt) && strcmp(mt->valuestring, model_type) == 0) {
            cJSON *cfg = cJSON_DetachItemFromObject(rec, "config");
            cJSON_Delete(rec);
            return cfg;
        }
        cJSON_Delete(rec);
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* Enumerated string fields the modeling file compares (norm_type,
 * feat_extract_norm, ...), each value that changed the norms
 * (scripts/census/enums.py, tests/fixtures/census/enums.jsonl): the small
 * config with that value set must give the counts and kind transformers
 * built, not the row's own. */
START_TEST(enum_toggles)
{
    size_t len, elen;
    char *small = nl_read_file(SMALL, (size_t)64 << 20, &len);
    char *text = nl_read_file("tests/fixtures/census/enums.jsonl", (size_t)1 << 20, &elen);
    ck_assert_msg(small && text, "fixtures: %s", nl_last_error());
    size_t n = 0, bad = 0, kind_changes = 0, unexplained = 0;
    char first[400] = "";
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        cJSON *rec = cJSON_Parse(line);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(rec, "model_type");
        const cJSON *set = cJSON_GetObjectItemCaseSensitive(rec, "set");
        const cJSON *expect = cJSON_GetObjectItemCaseSensitive(rec, "expect");
        ck_assert(cJSON_IsString(mt) && cJSON_IsObject(set) && cJSON_IsObject(expect));
        cJSON *cfg = small_config_of(small, mt->valuestring);
        ck_assert_msg(cfg, "%s: no small config", mt->valuestring);
        for (const cJSON *f = set->child; f; f = f->next)
            cJSON_ReplaceItemInObjectCaseSensitive(cfg, f->string, cJSON_Duplicate(f, 1));
        char *json = cJSON_PrintUnformatted(cfg);
        nl_config c;
        int rc = nl_config_parse(json, strlen(json), mt->valuestring, &c);
        double want_n = cJSON_GetObjectItemCaseSensitive(expect, "norm_layers")->valuedouble;
        double want_p = cJSON_GetObjectItemCaseSensitive(expect, "norm_params")->valuedouble;
        const char *want_k = cJSON_GetObjectItemCaseSensitive(expect, "kind")->valuestring;
        const nl_census_row *row = nl_census_find(mt->valuestring);
        char why[300] = "";
        /* A toggle whose norms the census could not tie to fields ('?', as in
         * small_configs) is counted by the fallback, which says so. */
        char at[160];
        const cJSON *f0 = set->child;
        snprintf(at, sizeof at, "%s=\"%s\" -> ", f0->string, cJSON_IsString(f0) ? f0->valuestring : "");
        const char *tog = row ? strstr(row->toggles, at) : NULL;
        const char *tend = tog ? strstr(tog, " | ") : NULL;
        if (tog && memchr(tog, '?', tend ? (size_t)(tend - tog) : strlen(tog))) {
            ck_assert_msg(rc != NL_OK || strstr(c.note, "counted without the census"),
                          "%s: an unexplained toggle group, and the note does not say so", mt->valuestring);
            unexplained++;
        } else if (!tog) {
            snprintf(why, sizeof why, "no toggle %s in the row", at);
        } else if (rc != NL_OK)
            snprintf(why, sizeof why, "not read: %s", nl_last_error());
        else if ((double)c.norm_layers != want_n || (double)c.norm_params != want_p)
            snprintf(why, sizeof why, "%zu norms, %zu parameters; transformers built %.0f, %.0f", c.norm_layers,
                     c.norm_params, want_n, want_p);
        else if (want_k[0] && strcmp(want_k, "unknown") != 0 &&
                 strcmp(want_k, c.shape.norm == NL_RMSNORM ? "rmsnorm" : "layernorm") != 0)
            snprintf(why, sizeof why, "kind %s; transformers built %s", nl_norm_name(c.shape.norm), want_k);
        if (!why[0] && tog && row && want_k[0] && strcmp(row->kind, want_k) != 0 && strcmp(want_k, "unknown") != 0)
            kind_changes++;
        if (why[0]) {
            bad++;
            fprintf(stderr, "  enum %s %s: %s\n", mt->valuestring, line, why);
            if (!first[0])
                snprintf(first, sizeof first, "%s: %s", mt->valuestring, why);
        }
        nl_config_free(&c);
        free(json);
        cJSON_Delete(cfg);
        cJSON_Delete(rec);
        n++;
    }
    printf("census enum toggles: %zu of %zu reproduced (%zu change the kind); %zu with a group the census could "
           "not tie to a field (counted by the fallback, and said so)\n", n - bad - unexplained, n - unexplained,
           kind_changes, unexplained);
    ck_assert_msg(n >= 10, "only %zu enum toggles", n);
    ck_assert_msg(kind_changes >= 2, "no toggle changes the kind (norm_type=\"rms_norm\" did)");
    ck_assert_msg(bad == 0, "%zu of %zu enum toggles not reproduced; first: %s", bad, n, first);
    free(small);
    free(text);
}
END_TEST

/* Placement (placement.def, scripts/census/placement.py): every row is a
 * census row with a label the reader knows, and the families whose
 * modeling files put the norms in known places come out that way:
 * Llama pre (modeling_llama.py: input_layernorm before attention), BERT add
 * (modeling_bert.py: BertSelfOutput's LayerNorm(hidden + input)), OLMo 2
 * post (modeling_olmo2.py: post_attention_layernorm on the attention's
 * output before the residual add), Gemma 2 sandwich (modeling_gemma2.py:
 * both), and the reader passes it on. */
START_TEST(placement_rows)
{
    size_t n;
    const nl_placement_row *rows = nl_placement_rows(&n);
    ck_assert_msg(n > 50, "only %zu placement rows", n);
    static const char *const labels[] = {"pre", "post", "add", "sandwich", "mixed", "none", "failed", "timeout",
                                         NULL};
    size_t measured = 0;
    for (size_t i = 0; i < n; i++) {
        int known = 0;
        for (size_t k = 0; labels[k]; k++)
            known |= strcmp(rows[i].placement, labels[k]) == 0;
        ck_assert_msg(known, "%s: placement '%s'", rows[i].model_type, rows[i].placement);
        ck_assert_msg(nl_census_find(rows[i].model_type), "%s: no census row", rows[i].model_type);
        if (nl_placement_measured(&rows[i])) {
            measured++;
            ck_assert_msg(rows[i].roles[0], "%s: %s without roles", rows[i].model_type, rows[i].placement);
        } else if (strcmp(rows[i].placement, "none") != 0) {
            ck_assert_msg(rows[i].why[0], "%s: %s without a reason", rows[i].model_type, rows[i].placement);
        }
    }
    static const struct {
        const char *model_type, *placement;
    } known[] = {{"llama", "pre"}, {"gpt2", "pre"}, {"bert", "add"}, {"olmo2", "post"}, {"exaone4", "post"},
                 {"gemma2", "sandwich"}, {"gemma3_text", "sandwich"}, {"t5", "pre"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const nl_placement_row *p = nl_placement_find(known[i].model_type);
        if (!p)
            continue; /* a run cut short; the count of measured rows below still holds */
        ck_assert_msg(strcmp(p->placement, known[i].placement) == 0, "%s: placement %s (%s); its modeling "
                      "file puts the norms %s", known[i].model_type, p->placement, p->roles, known[i].placement);
    }
    nl_config c;
    int rc = nl_config_read(REAL "gemma2-2b-poem.json", &c);
    ck_assert_msg(rc == NL_OK, "not read: %s", nl_last_error());
    const nl_placement_row *g = nl_placement_find("gemma2");
    if (nl_placement_measured(g))
        ck_assert_msg(c.placement && strcmp(c.placement, "sandwich") == 0, "gemma2 read with placement %s",
                      c.placement ? c.placement : "(none)");
    nl_config_free(&c);
    printf("census placement: %zu rows, %zu measured\n", n, measured);
}
END_TEST

/* A file of tests/fixtures/configs/traps/, read, against transformers
 * built from the same file (traps/census-expected.tsv, written by
 * census.py --real).  The reader's config is left in *c. */
#define TRAPS "tests/fixtures/configs/traps/"
static void as_transformers_builds(const char *file, nl_config *c)
{
    FILE *f = fopen(TRAPS "census-expected.tsv", "r");
    ck_assert_msg(f, "no " TRAPS "census-expected.tsv");
    char line[1024], name[256], mt[128], norms[32];
    unsigned long long params = 0, want_n = 0, want_p = 0;
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%255[^\t]\t%127[^\t]\t%31[^\t]\t%llu", name, mt, norms, &params) == 4 &&
            strcmp(name, file) == 0) {
            found = 1;
            want_n = strtoull(norms, NULL, 10);
            want_p = params;
        }
    fclose(f);
    ck_assert_msg(found, "%s has no line in traps/census-expected.tsv", file);
    char path[400];
    snprintf(path, sizeof path, TRAPS "%s", file);
    int rc = nl_config_read(path, c);
    ck_assert_msg(rc == NL_OK, "%s: refused (%s); transformers builds it: %llu norms", file, nl_last_error(), want_n);
    ck_assert_msg(c->norm_layers == want_n && c->norm_params == want_p,
                  "%s: %zu norms, %zu parameters; transformers built %llu, %llu from the same file", file,
                  c->norm_layers, c->norm_params, want_n, want_p);
}

static int has_width(const nl_config *c, size_t width)
{
    for (size_t g = 0; g < c->ngroups; g++)
        if (c->groups[g].width == width)
            return 1;
    return 0;
}

/* head_dim 128 beside hidden 2048 / 32 heads = 64: the census's small
 * build must not tie q_norm's width to the quotient. */
START_TEST(qwen3_moe_head_dim_is_its_own_field)
{
    nl_config c;
    as_transformers_builds("qwen3-moe-head-dim.json", &c);
    ck_assert_msg(has_width(&c, 128) && !has_width(&c, 64), "q_norm and k_norm must be head_dim (128) wide, "
                  "not hidden_size / num_attention_heads (64)");
    nl_config_free(&c);
}
END_TEST

/* The same trap in a second family: 96 heads of 128 over a 5120 stream
 * (5120 / 96 is not even a whole number), QK-norms switched on. */
START_TEST(glm4_moe_head_dim_is_its_own_field)
{
    nl_config c;
    as_transformers_builds("glm4-moe-qk-norm.json", &c);
    ck_assert_msg(has_width(&c, 128), "q_norm and k_norm must be head_dim (128) wide");
    nl_config_free(&c);
}
END_TEST

/* No layer_types: Qwen3NextConfig derives it from full_attention_interval,
 * and the reader must do the same and say so. */
START_TEST(qwen3_next_without_layer_types)
{
    nl_config c;
    as_transformers_builds("qwen3-next-no-layer-types.json", &c);
    ck_assert_msg(strstr(c.derived, "layer_types") && strstr(c.derived, "full_attention_interval"),
                  "the answer does not name the rule it derived layer_types by: '%s'", c.derived);
    nl_config_free(&c);
}
END_TEST

/* The generator's own check: every width formula in the table was fitted
 * over builds in which each field it reads was varied at least twice
 * (census.def's last column, "builds=N; field:K,..."). */
START_TEST(every_width_formula_varied)
{
    size_t n, formulas = 0, unexplained = 0, constant = 0, rows_ok = 0, rows_unexplained = 0, few_builds = 0;
    size_t builds_hist[64] = {0};
    const nl_census_row *rows = nl_census_rows(&n);
    char first[300] = "";
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const nl_census_row *r = &rows[i];
        if (strcmp(r->status, "ok") != 0)
            continue;
        rows_ok++;
        ck_assert_msg(strncmp(r->varied, "builds=", 7) == 0, "%s: no record of the builds its widths were "
                      "fitted over", r->model_type);
        size_t builds = strtoul(r->varied + 7, NULL, 10);
        builds_hist[builds < 63 ? builds : 63]++;
        few_builds += builds < 3;
        int row_unexplained = 0;
        /* Each group: "COUNT x WIDTH[flags] : where". */
        for (const char *g = r->groups; g && *g;) {
            const char *x = strstr(g, " x ");
            if (!x)
                break;
            const char *w = x + 3, *end = w + strcspn(w, " ~&!;");
            formulas++;
            if (*w == '?') {
                unexplained++;
                row_unexplained = 1;
            } else if (strspn(w, "0123456789") == (size_t)(end - w)) {
                constant++;
            } else {
                for (const char *p = w; p < end;) {
                    size_t len = 0;
                    while (p + len < end && (isalnum((unsigned char)p[len]) || p[len] == '_'))
                        len++;
                    if (len && !isdigit((unsigned char)*p)) {
                        char key[96];
                        snprintf(key, sizeof key, " %.*s:", (int)len, p);
                        const char *at = strstr(r->varied, key);
                        if (!at) {
                            snprintf(key, sizeof key, ",%.*s:", (int)len, p);
                            at = strstr(r->varied, key);
                        }
                        size_t k = at ? strtoul(at + strlen(key), NULL, 10) : 0;
                        if (k < 2) {
                            fprintf(stderr, "  width %s: %.*s reads %.*s, varied in %zu builds\n", r->model_type,
                                    (int)(end - w), w, (int)len, p, k);
                            if (!bad++)
                                snprintf(first, sizeof first, "%s: width %.*s, field %.*s varied in %zu builds",
                                         r->model_type, (int)(end - w), w, (int)len, p, k);
                        }
                    }
                    p += len ? len : 1;
                }
            }
            const char *semi = strstr(g, "; ");
            g = semi ? semi + 2 : NULL;
        }
        rows_unexplained += row_unexplained;
    }
    size_t median = 0;
    for (size_t seen = 0; median < 63 && (seen += builds_hist[median]) * 2 < rows_ok;)
        median++;
    printf("census widths: %zu width formulas in %zu measured families, fitted over a median of %zu builds (%zu "
           "families under 3: every varied build failed); %zu read config fields, every one varied in at least 2 "
           "builds%s; %zu constants of the code; %zu widths (in %zu families) no field explains, which the reader "
           "says and counts without\n", formulas, rows_ok, median, few_builds, formulas - unexplained - constant,
           bad ? " except some" : "", constant, unexplained, rows_unexplained);
    ck_assert_msg(bad == 0, "%zu width formulas read a field varied in fewer than 2 builds; first: %s", bad, first);
}
END_TEST

/* model_types of transformers with no measured row and no hand-written
 * one fall to the guess; the count is printed, and the answer says it is a
 * guess and what it guessed from. */
START_TEST(families_that_fall_to_the_guess)
{
    size_t n, guessed = 0;
    const nl_census_row *rows = nl_census_rows(&n);
    const nl_census_row *example = NULL;
    static const char *const statuses[] = {"failed", "timeout", "no-norms", "delegates", "text-model-unmapped"};
    size_t per[5] = {0};
    for (size_t i = 0; i < n; i++) {
        if (nl_census_find(rows[i].model_type) || nl_family_find(rows[i].model_type))
            continue;
        guessed++;
        if (!example && strcmp(rows[i].status, "failed") == 0)
            example = &rows[i];
        for (size_t k = 0; k < 5; k++)
            per[k] += strcmp(rows[i].status, statuses[k]) == 0;
    }
    printf("census guess: %zu of %zu model_types of transformers %s fall to the guess: the build failed %zu, over "
           "the time box %zu, no norm module %zu, language model in a row that was not measured %zu, "
           "text model not mapped %zu\n", guessed, n, nl_census_rows_version(), per[0], per[1], per[2], per[3],
           per[4]);
    ck_assert_msg(example, "no failed row to try the guess on");
    char text[300];
    snprintf(text, sizeof text, "{\"model_type\": \"%s\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
             "\"rms_norm_eps\": 1e-06}", example->model_type);
    nl_config c;
    int rc = nl_config_parse(text, strlen(text), "guess.json", &c);
    ck_assert_msg(rc == NL_OK, "not read: %s", nl_last_error());
    ck_assert_msg(c.guessed && strcmp(c.answered_from, "guess") == 0, "%s: answered from %s", example->model_type,
                  c.answered_from);
    ck_assert_msg(c.note && strstr(c.note, "guess:") && strstr(c.note, "could not measure") &&
                  strstr(c.note, "the eps key names RMS"), "the note does not say it guessed, why, and from "
                  "what: %s", c.note ? c.note : "(none)");
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
    tcase_add_test(tc, layers_line_names_the_counted_field);
    tcase_add_test(tc, enum_toggles);
    tcase_add_test(tc, placement_rows);
    tcase_add_test(tc, qwen3_moe_head_dim_is_its_own_field);
    tcase_add_test(tc, glm4_moe_head_dim_is_its_own_field);
    tcase_add_test(tc, qwen3_next_without_layer_types);
    tcase_add_test(tc, every_width_formula_varied);
    tcase_add_test(tc, families_that_fall_to_the_guess);
    suite_add_tcase(s, tc);
    return s;
}
