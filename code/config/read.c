/* read.c — one config.json in, one nl_config out.  Every failure names the
 * file, the key and the problem, because the person reading the message
 * has a directory of configs and wants to know which line to fix. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static const char *const hidden_names[] = {"hidden_size", "n_embd", "d_model", "n_embed", "dim", NULL};
static const char *const layer_names[] = {"num_hidden_layers", "n_layer", "num_layers", "n_layers", NULL};

/* Prefixes every message with the file name. */
static int fail(const char *name, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", what);
    nl_set_error("%s: %s", name, msg);
    return NL_EARG;
}

static size_t line_of(const char *text, const char *at)
{
    size_t line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* An unknown model_type: RMSNorm if the eps key says so, LayerNorm
 * otherwise, two norms per block and a final one.  Said to be a guess. */
static nl_family guess_family(const char *eps_key)
{
    nl_family g = {
        .types = "", .label = "unknown (guessed)",
        .shape = {NL_LAYERNORM, 1, 1, 0}, .eps_key = "", .default_eps = 1e-5,
        .per_block = 2, .final = 1, .source = "",
    };
    if (strstr(eps_key, "rms")) {
        g.shape = (nl_norm_shape){NL_RMSNORM, 1, 0, 0};
        g.default_eps = 1e-6;
    }
    return g;
}

int nl_config_parse(const char *text, size_t len, const char *name, nl_config *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", name);
    /* A UTF-8 byte-order mark: Python never writes one, editors sometimes do. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    if (len == 0)
        return fail(name, "empty file: expected a JSON object");

    size_t jlen;
    char *json = nl_json_from_python(text, len, &jlen);
    if (!json)
        return fail(name, "out of memory");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, jlen, &end, 0);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        char msg[160];
        if (at && at >= json && at <= json + jlen)
            snprintf(msg, sizeof msg, "not JSON: parse error at line %zu", line_of(json, at));
        else
            snprintf(msg, sizeof msg, "not JSON");
        free(json);
        return fail(name, msg);
    }
    /* Only whitespace may follow the value. */
    while (end && end < json + jlen && strchr(" \t\r\n", *end))
        end++;
    if (end && end < json + jlen) {
        char msg[160];
        snprintf(msg, sizeof msg, "not JSON: unexpected text after the value at line %zu",
                 line_of(json, end));
        cJSON_Delete(root);
        free(json);
        return fail(name, msg);
    }
    int rc = NL_EARG;
    char msg[400];
    if (!cJSON_IsObject(root)) {
        snprintf(msg, sizeof msg, "the top level is %s, expected an object", nl_json_kind(root));
        rc = fail(name, msg);
        goto done;
    }

    const char *prefix;
    const cJSON *lm = nl_language_model(root, &prefix);
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(lm, "model_type");
    if (!mt && lm != root)
        mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (mt && !cJSON_IsString(mt)) {
        snprintf(msg, sizeof msg, "key '%smodel_type' is %s, expected a string", prefix, nl_json_kind(mt));
        rc = fail(name, msg);
        goto done;
    }
    if (mt)
        snprintf(out->model_type, sizeof out->model_type, "%s", mt->valuestring);

    /* eps: the family's own key first, then every spelling we know. */
    const nl_family *fam = nl_family_find(out->model_type);
    const char *names[16];
    size_t nn = 0;
    if (fam && fam->eps_key[0])
        names[nn++] = fam->eps_key;
    for (const char *const *k = nl_eps_key_names(); *k && nn < 15; k++)
        names[nn++] = *k;
    names[nn] = NULL;
    nl_eps_status st = nl_eps_find(root, names, &out->eps, out->eps_key, sizeof out->eps_key);
    if (st == NL_EPS_BAD) {
        rc = fail(name, nl_last_error());
        goto done;
    }

    int r = nl_json_size(lm, hidden_names, prefix, &out->hidden_size, out->hidden_key, sizeof out->hidden_key);
    if (r == 0) {
        snprintf(msg, sizeof msg, "no hidden size: looked for %s%s, %s, %s, %s, %s", prefix,
                 hidden_names[0], hidden_names[1], hidden_names[2], hidden_names[3], hidden_names[4]);
        rc = fail(name, msg);
        goto done;
    }
    if (r < 0) {
        rc = fail(name, nl_last_error());
        goto done;
    }
    r = nl_json_size(lm, layer_names, prefix, &out->num_layers, out->layers_key, sizeof out->layers_key);
    if (r == 0) {
        snprintf(msg, sizeof msg, "no layer count: looked for %s%s, %s, %s, %s", prefix,
                 layer_names[0], layer_names[1], layer_names[2], layer_names[3]);
        rc = fail(name, msg);
        goto done;
    }
    if (r < 0) {
        rc = fail(name, nl_last_error());
        goto done;
    }

    nl_family guessed;
    if (!fam) {
        guessed = guess_family(out->eps_key);
        fam = &guessed;
        out->guessed = 1;
        const char *kind = guessed.shape.norm == NL_RMSNORM ? "RMSNorm" : "LayerNorm";
        if (out->model_type[0])
            snprintf(out->note, sizeof out->note, "unknown model_type '%s': %s guessed from the keys",
                     out->model_type, kind);
        else
            snprintf(out->note, sizeof out->note, "no model_type: %s guessed from the keys", kind);
    }
    out->family = fam == &guessed ? "unknown (guessed)" : fam->label;
    out->source = fam == &guessed ? "" : fam->source;
    out->shape = fam->shape;
    if (st == NL_EPS_MISSING) {
        out->eps = fam->default_eps;
        out->eps_is_default = 1;
    }
    if (nl_count_norms(fam, lm, prefix, out) < 0) {
        rc = fail(name, nl_last_error());
        goto done;
    }
    rc = NL_OK;
done:
    cJSON_Delete(root);
    free(json);
    return rc;
}

int nl_config_read(const char *path, nl_config *out)
{
    memset(out, 0, sizeof *out);
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
