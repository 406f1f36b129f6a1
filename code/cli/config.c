/* config.c — `normlab config FILE...`: what each model's config.json says
 * about its norms.  One bad file does not stop the others; the exit code
 * says whether any failed. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

enum { OUT_TEXT, OUT_JSON, OUT_TSV };

static void help(FILE *to)
{
    fprintf(to,
"usage: normlab config [--json | --tsv] FILE...\n"
"\n"
"Reads model config.json files (as Python's json module writes them, NaN and\n"
"Infinity included) and reports, per file, the norm the architecture builds,\n"
"its eps and where it came from, and how many norm layers and parameters the\n"
"model has.  The norm kind comes from model_type, not from the eps key's name.\n"
"\n"
"  --json   one JSON object per file, one line each, with these fields:\n"
"             file            the path as given\n"
"             model_type      the language model's model_type (text_config's if nested)\n"
"             family          the architecture family, or \"unknown (guessed)\"\n"
"             guessed         true when model_type is unknown and the kind was guessed\n"
"             source          the transformers modeling file the family was checked against\n"
"             norm            \"LayerNorm\" or \"RMSNorm\"\n"
"             weight, bias    whether each norm learns a scale / a shift\n"
"             weight_offset   true for RMSNorm that scales by (1 + weight) (Gemma)\n"
"             eps             the value used (the architecture's default if no key)\n"
"             eps_key         the key it came from, dotted when nested\n"
"                             (\"text_config.rms_norm_eps\"); null when absent\n"
"             eps_is_default  true when no key was found\n"
"             hidden_size, hidden_key   width and the key it came from\n"
"             num_layers, layers_key    blocks and the key it came from\n"
"             norms_per_layer norm layers in one block (QK-norms included)\n"
"             norm_layers     norm layers in the whole model\n"
"             norm_params     their learnable parameters\n"
"             params_saved    what RMSNorm saves over LayerNorm here: the bias\n"
"                             vectors of the LayerNorm version of these norms\n"
"             model_params    whole-model parameters (Llama-like families), else null\n"
"             groups          [{what, count, width}] the norm layers by width\n"
"             note            how the count was made\n"
"           A file that cannot be read prints {\"file\": ..., \"error\": ...}.\n"
"  --tsv    a table, one row per file, header first\n"
"  --help   this text\n"
"\n"
"Exit status: 0 all files read, 1 some file could not be read (each\n"
"named on stderr, the others still reported), 2 bad usage.\n");
}

static const char *base_name(const char *path, char *buf, size_t n)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, n, "%s", b ? b + 1 : path);
    char *dot = strstr(buf, ".json");
    if (dot && dot[5] == '\0')
        *dot = '\0';
    return buf;
}

static const char *variant(const nl_norm_shape *s)
{
    if (s->norm == NL_RMSNORM)
        return s->weight_offset ? "(1 + weight)" : s->weight ? "weight" : "no weight";
    if (s->weight && s->bias)
        return "weight and bias";
    return s->weight ? "weight, no bias" : "no weight, no bias";
}

static void print_text(const nl_config *c)
{
    printf("%s\n", c->file);
    printf("  model_type       %s (%s%s%s)\n", c->model_type[0] ? c->model_type : "(none)", c->family,
           c->source[0] ? ", " : "", c->source);
    printf("  norm             %s, %s\n", nl_norm_name(c->shape.norm), variant(&c->shape));
    if (c->eps_is_default)
        printf("  eps              %g  (no eps key: the architecture's default)\n", c->eps);
    else
        printf("  eps              %g  from %s\n", c->eps, c->eps_key);
    printf("  hidden size      %zu  (%s)\n", c->hidden_size, c->hidden_key);
    printf("  layers           %zu  (%s)\n", c->num_layers, c->layers_key);
    printf("  norms per block  %zu\n", c->norms_per_layer);
    printf("  norm layers      %zu =", c->norm_layers);
    for (size_t i = 0; i < c->ngroups; i++)
        printf("%s %zu %s (width %zu)", i ? " +" : "", c->groups[i].count, c->groups[i].what,
               c->groups[i].width);
    printf("\n  norm params      %zu\n", c->norm_params);
    printf("  RMSNorm saves    %zu\n", c->params_saved);
    if (c->model_params)
        printf("  model params     %zu  (norms: %.4f%%, saved: %.4f%%)\n", c->model_params,
               100.0 * (double)c->norm_params / (double)c->model_params,
               100.0 * (double)c->params_saved / (double)c->model_params);
    if (c->note[0])
        printf("  note             %s\n", c->note);
}

static void print_json(const nl_config *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", c->file);
    if (c->model_type[0])
        cJSON_AddStringToObject(o, "model_type", c->model_type);
    else
        cJSON_AddNullToObject(o, "model_type");
    cJSON_AddStringToObject(o, "family", c->family);
    cJSON_AddBoolToObject(o, "guessed", c->guessed);
    cJSON_AddStringToObject(o, "source", c->source);
    cJSON_AddStringToObject(o, "norm", nl_norm_name(c->shape.norm));
    cJSON_AddBoolToObject(o, "bias", c->shape.bias && c->shape.norm == NL_LAYERNORM);
    cJSON_AddBoolToObject(o, "weight", c->shape.weight);
    cJSON_AddBoolToObject(o, "weight_offset", c->shape.weight_offset);
    cJSON_AddNumberToObject(o, "eps", c->eps);
    if (c->eps_is_default)
        cJSON_AddNullToObject(o, "eps_key");
    else
        cJSON_AddStringToObject(o, "eps_key", c->eps_key);
    cJSON_AddBoolToObject(o, "eps_is_default", c->eps_is_default);
    cJSON_AddNumberToObject(o, "hidden_size", (double)c->hidden_size);
    cJSON_AddStringToObject(o, "hidden_key", c->hidden_key);
    cJSON_AddNumberToObject(o, "num_layers", (double)c->num_layers);
    cJSON_AddStringToObject(o, "layers_key", c->layers_key);
    cJSON_AddNumberToObject(o, "norms_per_layer", (double)c->norms_per_layer);
    cJSON_AddNumberToObject(o, "norm_layers", (double)c->norm_layers);
    cJSON_AddNumberToObject(o, "norm_params", (double)c->norm_params);
    cJSON_AddNumberToObject(o, "params_saved", (double)c->params_saved);
    if (c->model_params)
        cJSON_AddNumberToObject(o, "model_params", (double)c->model_params);
    else
        cJSON_AddNullToObject(o, "model_params");
    cJSON *groups = cJSON_AddArrayToObject(o, "groups");
    for (size_t i = 0; i < c->ngroups; i++) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "what", c->groups[i].what);
        cJSON_AddNumberToObject(g, "count", (double)c->groups[i].count);
        cJSON_AddNumberToObject(g, "width", (double)c->groups[i].width);
        cJSON_AddItemToArray(groups, g);
    }
    cJSON_AddStringToObject(o, "note", c->note);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

static void print_json_error(const char *file, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", file);
    cJSON_AddStringToObject(o, "error", msg);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

// @snippet config-tsv
static void print_tsv_header(void)
{
    printf("model\tmodel_type\tnorm\tL\thidden\teps\teps_key\tper_block\tnorms\tnorm_params\tsaved\n");
}

static void print_tsv(const nl_config *c)
{
    char name[256];
    printf("%s\t%s\t%s\t%zu\t%zu\t%g\t%s\t%zu\t%zu\t%zu\t%zu\n", base_name(c->file, name, sizeof name),
           c->model_type, nl_norm_name(c->shape.norm), c->num_layers, c->hidden_size, c->eps,
           c->eps_is_default ? "(default)" : c->eps_key, c->norms_per_layer, c->norm_layers,
           c->norm_params, c->params_saved);
}
// @end

int cmd_config(int argc, char **argv)
{
    int json = 0, tsv = 0, failed = 0, first = 1;
    const nl_option opts[] = {
        {"--json", NL_OPT_FLAG, &json, 0, NULL, NULL},
        {"--tsv", NL_OPT_FLAG, &tsv, 0, NULL, NULL},
    };
    nl_positional files;
    int code;
    if (!nl_options_parse("config", opts, NL_COUNT(opts), argc, argv, &files, help, &code))
        return code;
    if (json && tsv)
        return nl_usage_error("config", "--json and --tsv: choose one");
    int mode = json ? OUT_JSON : tsv ? OUT_TSV : OUT_TEXT;
    if (files.count == 0) {
        fprintf(stderr, "normlab config: no config file given\n\n");
        help(stderr);
        return 2;
    }
    if (mode == OUT_TSV)
        print_tsv_header();
    for (int i = 0; i < files.count; i++) {
        const char *a = files.word[i];
        nl_config c;
        if (nl_config_read(a, &c) != NL_OK) {
            fprintf(stderr, "normlab config: %s\n", nl_last_error());
            if (mode == OUT_JSON)
                print_json_error(a, nl_last_error());
            failed++;
            continue;
        }
        if (mode == OUT_JSON)
            print_json(&c);
        else if (mode == OUT_TSV)
            print_tsv(&c);
        else {
            if (!first)
                printf("\n");
            print_text(&c);
        }
        first = 0;
    }
    return failed ? 1 : 0;
}
