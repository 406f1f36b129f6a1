/* read.c — one config.json in, one nl_config out.  Every failure names the
 * file, the key and the problem, because the person reading the message
 * has a directory of configs and wants to know which line to fix. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config_internal.h"

static const char *const hidden_names[] = {"hidden_size", "n_embd", "d_model", "n_embed", "dim", NULL};
static const char *const layer_names[] = {"num_hidden_layers", "n_layer", "num_layers", "n_layers", NULL};

/* Prefixes every message with the file name.  `what` may be
 * nl_last_error() itself, so it is copied before the error is set. */
/* "looked for PREFIXa, b, c": the names a size was looked for under, the
 * first with the prefix that says which object was read (text_config.). */
static const char *looked_for(char *buf, size_t n, const char *prefix, const char *const *names)
{
    int k = snprintf(buf, n, "looked for %s%s", prefix, names[0]);
    for (size_t i = 1; names[i] && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, ", %s", names[i]);
    return buf;
}

static int fail(const char *name, const char *what)
{
    char *copy = strdup(what);
    nl_set_error("%s: %s", name, copy ? copy : what);
    free(copy);
    return NL_EARG;
}

static size_t line_of(const char *text, const char *at)
{
    size_t line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* An unrecognised family: RMSNorm if the eps key says so, LayerNorm
 * otherwise, two norms per block and a final one.  Said to be a guess. */
static nl_family guess_family(const char *eps_key)
{
    nl_family g = {
        .types = "", .label = "unknown (guessed)",
        .shape = {NL_LAYERNORM, 1, 1, 0}, .eps_key = "", .default_eps = 1e-5,
        .per_block = 2, .final = 1, .archs = "", .source = "",
    };
    if (strstr(eps_key, "rms")) {
        g.shape = (nl_norm_shape){NL_RMSNORM, 1, 0, 0};
        g.default_eps = 1e-6;
    }
    return g;
}

static void note_guess(nl_config *c, const nl_family *g)
{
    const char *kind = g->shape.norm == NL_RMSNORM ? "RMSNorm with a weight"
                                                   : "LayerNorm with weight and bias";
    const char *from = c->eps_is_default ? "no eps key to go on"
                       : g->shape.norm == NL_RMSNORM ? "the eps key names RMS"
                                                     : "the eps key does not name RMS";
    const nl_census_row *r = nl_census_row_of(c->model_type);
    if (r && nl_census_find(c->model_type))
        nl_note(c, "guess: the count, since the census's row could not make it (above): assumed 2 norms per "
                   "block and 1 final, all of hidden width (the kind is the census's)");
    else if (r)
        nl_note(c, "guess: the census of transformers %s could not measure model_type '%s' (%s%s%s), and no "
                   "family table has it; assumed %s (%s), 2 norms per block and 1 final, all of hidden width",
                r->transformers, c->model_type, r->status, r->why[0] ? ": " : "", r->why, kind, from);
    else if (c->model_type[0])
        nl_note(c, "guess: model_type '%s' is in no family table and not in transformers %s; assumed %s (%s), "
                   "2 norms per block and 1 final, all of hidden width", c->model_type,
                nl_census_rows_version(), kind, from);
    else
        nl_note(c, "guess: no model_type; assumed %s (%s), 2 norms per block and 1 final, "
                   "all of hidden width", kind, from);
}

/* cJSON's view of the text, as Python's json would have it: the text
 * checked first, NaN and Infinity accepted, repeated keys resolved to the
 * last.  NULL with the error set (without the file name). */
static cJSON *parse_json(const char *text, size_t len, char **first_dup, long *dups)
{
    if (nl_json_check_text(text, len) < 0)
        return NULL;
    size_t jlen;
    char *json = nl_json_from_python(text, len, &jlen);
    if (!json) {
        nl_set_error("out of memory");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, jlen, &end, 0);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        if (at && at >= json && at <= json + jlen)
            nl_set_error("not JSON: parse error at line %zu", line_of(json, at));
        else
            nl_set_error("not JSON");
        free(json);
        return NULL;
    }
    /* Only whitespace may follow the value. */
    while (end && end < json + jlen && strchr(" \t\r\n", *end))
        end++;
    if (end && end < json + jlen) {
        nl_set_error("not JSON: unexpected text after the value at line %zu", line_of(json, end));
        cJSON_Delete(root);
        free(json);
        return NULL;
    }
    free(json);
    *dups = nl_json_last_wins(root, first_dup);
    if (*dups < 0) {
        nl_set_error("out of memory");
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* The object that describes the language model, refusing a text_config
 * that is there but not an object. */
static const cJSON *language_model(const cJSON *root, const char **prefix)
{
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (text && !cJSON_IsObject(text) && !cJSON_IsNull(text)) {
        if (cJSON_IsString(text))
            nl_set_error("key 'text_config' is a string (\"%s\"), expected an object: the language "
                         "model's own config, with its hidden size and layers", text->valuestring);
        else
            nl_set_error("key 'text_config' is %s, expected an object: the language model's own "
                         "config, with its hidden size and layers", nl_json_kind(text));
        return NULL;
    }
    return nl_language_model(root, prefix);
}

/* Which family builds this model: the table by model_type, else what the
 * class names or the fields say, else NULL (a guess follows). */
static const nl_family *find_family(const cJSON *root, const cJSON *lm, nl_config *c)
{
    const nl_family *fam = nl_family_find(c->model_type);
    if (fam)
        return fam;
    const char *how, *what;
    fam = nl_family_resolve(root, lm, &how, &what);
    if (fam) {
        if (c->model_type[0])
            nl_note(c, "model_type '%s' is in no family table; its %s (%s) name %s", c->model_type, how,
                    what, fam->label);
        else
            nl_note(c, "no model_type; its %s (%s) name %s", how, what, fam->label);
    }
    return fam;
}

int nl_config_parse(const char *text, size_t len, const char *name, nl_config *out)
{
    memset(out, 0, sizeof *out);
    out->file = strdup(name);
    out->model_type = strdup("");
    out->family = out->source = "";
    out->answered_from = "guess";
    if (!out->file || !out->model_type)
        return fail(name, "out of memory");
    /* A UTF-8 byte-order mark: Python never writes one, editors sometimes do. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    if (len == 0)
        return fail(name, "empty file: expected a JSON object");

    char *first_dup = NULL;
    long dups = 0;
    cJSON *root = parse_json(text, len, &first_dup, &dups);
    if (!root)
        return fail(name, nl_last_error());

    int rc = NL_EARG;
    if (!cJSON_IsObject(root)) {
        nl_set_error("the top level is %s, expected an object", nl_json_kind(root));
        goto failed;
    }
    const char *prefix;
    const cJSON *lm = language_model(root, &prefix);
    if (!lm)
        goto failed;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(lm, "model_type");
    if (!mt && lm != root)
        mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (mt && !cJSON_IsString(mt)) {
        nl_set_error("key '%smodel_type' is %s, expected a string", prefix, nl_json_kind(mt));
        goto failed;
    }
    if (mt) {
        free(out->model_type);
        out->model_type = strdup(mt->valuestring);
        if (!out->model_type) {
            nl_set_error("out of memory");
            goto failed;
        }
    }
    if (dups > 0)
        nl_note(out, "%ld repeated key%s (first: '%s'): the last occurrence counts, as in Python",
                dups, dups > 1 ? "s" : "", first_dup ? first_dup : "");

    /* The census first: what transformers' own modules build.  A model_type
     * it has no row for goes to the hand-written table (remote code), then
     * to the guess. */
    const nl_census_row *row = nl_census_find(out->model_type);
    const nl_family *table = nl_family_find(out->model_type);
    /* A config whose auto_map names the checkpoint's own code runs that
     * code (trust_remote_code), not transformers': a hand-written row,
     * checked against that code, answers when there is one. */
    const cJSON *own_code = cJSON_GetObjectItemCaseSensitive(lm, "auto_map");
    if (!own_code && lm != root)
        own_code = cJSON_GetObjectItemCaseSensitive(root, "auto_map");
    if (row && cJSON_IsObject(own_code) && table) {
        nl_note(out, "auto_map names the checkpoint's own code: the hand-written row for it answers, "
                     "not the census of transformers' %s", row->modeling_file);
        row = NULL;
    }
    nl_family measured;
    const nl_family *fam;
    if (row) {
        snprintf(out->source_text, sizeof out->source_text, "transformers %s, models/%s", row->transformers,
                 row->modeling_file);
        measured = (nl_family){
            .types = row->model_type, .label = table ? table->label : row->model_type,
            .shape = nl_census_shape(row), .eps_key = row->eps_key, .default_eps = row->eps_default,
            .archs = "", .source = out->source_text,
        };
        fam = &measured;
        out->answered_from = "census";
        const nl_placement_row *pl = nl_placement_find(row->model_type);
        if (nl_placement_measured(pl)) {
            out->placement = pl->placement;
            out->placement_roles = pl->roles;
        }
    } else {
        fam = find_family(root, lm, out);
        out->answered_from = fam ? "table" : "guess";
    }
    if (nl_eps_for_family(fam, root, out) == NL_EPS_BAD)
        goto failed;

    int r = nl_json_size(lm, hidden_names, prefix, &out->hidden_size, out->hidden_key, sizeof out->hidden_key);
    /* A measured family's formulas name the fields they read: a width or
     * depth under a name of its own (a vision or audio model's) is no error. */
    if (r == 0 && row) {
        nl_note(out, "no hidden size under the usual names; the census's formulas read their own fields");
        r = 1;
    }
    char names[160];
    if (r == 0)
        nl_set_error("no hidden size: %s", looked_for(names, sizeof names, prefix, hidden_names));
    if (r <= 0)
        goto failed;
    /* LXMERT writes a depth per stack ({"language": 9, "vision": 5, ...}):
     * the census's formulas read those fields, not one depth. */
    const cJSON *depth = cJSON_GetObjectItemCaseSensitive(lm, layer_names[0]);
    if (row && cJSON_IsObject(depth))
        r = 0;
    else
        r = nl_json_size(lm, layer_names, prefix, &out->num_layers, out->layers_key, sizeof out->layers_key);
    if (r == 0 && row) {
        nl_note(out, "no layer count under the usual names; the census's formulas read their own fields");
        r = 1;
    }
    if (r == 0)
        nl_set_error("no layer count: %s", looked_for(names, sizeof names, prefix, layer_names));
    if (r <= 0)
        goto failed;

    nl_family guessed;
    if (!fam) {
        guessed = guess_family(out->eps_key);
        fam = &guessed;
        out->guessed = 1;
        if (out->eps_is_default)
            out->eps = guessed.default_eps;
        note_guess(out, &guessed);
    }
    out->family = fam->label;
    out->source = fam->source;
    out->shape = fam->shape;
    int counted = row ? nl_census_count(row, lm, out) : 0;
    if (counted == -1)
        goto failed;
    if (counted == -2) {
        /* Kind and eps stay the census's; the count is the table's or the
         * guess's, and those read the usual names only: a width or depth
         * missing there is a refusal, never a norm of width 0. */
        if (out->hidden_size == 0 || out->num_layers == 0) {
            int width = out->hidden_size == 0;
            char why[512];
            snprintf(why, sizeof why, "%s", nl_last_error());
            nl_set_error("%s; without it, no %s under the usual names (%s)", why,
                         width ? "hidden size" : "layer count",
                         looked_for(names, sizeof names, prefix, width ? hidden_names : layer_names));
            goto failed;
        }
        nl_note(out, "%s: counted without the census", nl_last_error());
        row = NULL;
        if (table) {
            out->family = table->label;
            fam = table;
        } else {
            guessed = guess_family(out->eps_key);
            guessed.shape = out->shape;
            fam = &guessed;
            out->guessed = 1;
            note_guess(out, &guessed);
        }
        if (nl_count_norms(fam, lm, prefix, out) < 0)
            goto failed;
    }
    if (row) {
        /* The whole-model total is the table's arithmetic, kept where the
         * table's norms agree with the census's. */
        if (table && table->llama_like) {
            nl_config scratch = *out;
            scratch.note = NULL;
            scratch.owned = NULL;
            if (nl_count_norms(table, lm, prefix, &scratch) == 0 && scratch.norm_params == out->norm_params)
                out->model_params = scratch.model_params;
            free(scratch.note);
        }
        if (row->why[0])
            nl_note(out, "census: %s", row->why);
    } else if (counted == 0 && nl_count_norms(fam, lm, prefix, out) < 0)
        goto failed;
    rc = NL_OK;
    goto done;
failed:
    rc = fail(name, nl_last_error());
done:
    free(first_dup);
    cJSON_Delete(root);
    return rc;
}

void nl_config_free(nl_config *c)
{
    free(c->file);
    free(c->model_type);
    free(c->note);
    free(c->owned);
    c->file = c->model_type = c->note = c->owned = NULL;
}

int nl_config_read(const char *path, nl_config *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        nl_set_error("%s: is a directory: give the config.json inside it", path);
        return NL_EARG;
    }
    /* Real configs are a few kB; 64 MiB is far past any of them. */
    size_t len;
    char *buf = nl_read_file(path, ((size_t)64 << 20) - 1, &len);
    if (!buf) {
        if (errno == EFBIG)
            nl_set_error("%s: larger than 64 MiB: not a config.json", path);
        return NL_EARG;
    }
    int rc = nl_config_parse(buf, len, path, out);
    free(buf);
    return rc;
}
