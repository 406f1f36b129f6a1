/* config.c — `normlab config FILE...`: what each model's config.json says
 * about its norms.  One bad file does not stop the others; the exit code
 * says whether any failed. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "normlab.h"

enum { OUT_TEXT, OUT_JSON, OUT_TSV, OUT_TABLE };

static void help(FILE *to)
{
    fprintf(to,
"usage: normlab config [--json | --tsv] FILE...\n"
"\n"
"Reads model config.json files (as Python's json module writes them, NaN and\n"
"Infinity included) and reports, per file, the norm the architecture builds,\n"
"its eps and where it came from, and how many norm layers and parameters the\n"
"model has.  The norm kind comes from the family (model_type, or the class\n"
"names in architectures and auto_map), not from the eps key's name; eps comes\n"
"from the key the family's code reads.  A key written twice counts once, with\n"
"its last value, as in Python.\n"
"\n"
"  --json   one JSON object per file, one line each, with these fields:\n"
"             file            the path as given\n"
"             model_type      the language model's model_type (text_config's if nested)\n"
"             family          the architecture family, or \"unknown (guessed)\"\n"
"             guessed         true when the family was not recognised (by model_type,\n"
"                             architectures, auto_map or its fields) and the kind\n"
"                             and count were guessed; note says what was assumed\n"
"             source          where the answer comes from: \"transformers 5.23.0,\n"
"                             models/starcoder2/modeling_starcoder2.py\" for a family\n"
"                             the census measured, else the file its table row was\n"
"                             checked against\n"
"             answered_from   \"census\" (measured by scripts/census from transformers'\n"
"                             modules), \"table\" (a hand-written row: remote code)\n"
"                             or \"guess\"\n"
"             derived         fields the file leaves out that the count needed, as\n"
"                             the configuration class derives them (measured by the\n"
"                             census): \"head_dim = hidden_size/num_attention_heads\";\n"
"                             null when none\n"
"             placement       where the block's norms sit, measured by running the\n"
"                             model (scripts/census/placement.py): \"pre\" x + F(N(x)),\n"
"                             \"post\" x + N(F(x)), \"add\" N(x + F(x)), \"sandwich\" (pre\n"
"                             and post); null when not measured\n"
"             placement_roles each norm's role in a block, per layer stack\n"
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
"  --table  the same columns but per_block, aligned with spaces, for reading\n"
"  --help   this text\n"
"\n"
"In --tsv, a tab, newline, carriage return or backslash inside a field is\n"
"written \\t, \\n, \\r, \\\\.  In --json, bytes of a file name that are not UTF-8\n"
"are written as the text \\xNN.\n"
"\n"
"Exit status: 0 all files read, 1 some file could not be read (each\n"
"named on stderr, the others still reported) or the output could not be\n"
"written, 2 bad usage.\n");
}

/* The file's name without folders and without a final ".json": a view
 * into path, *len bytes long (never cut). */
static const char *base_name(const char *path, size_t *len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    *len = n;
    return b;
}

static const char *variant(const nl_norm_shape *s)
{
    if (s->norm == NL_RMSNORM)
        return s->weight_offset ? "(1 + weight)" : s->weight ? "weight" : "no weight";
    if (s->weight && s->bias)
        return "weight and bias";
    return s->weight ? "weight, no bias" : "no weight, no bias";
}

/* The note, one clause per line and wrapped at a terminal's width, under
 * its label: a single line of several hundred characters is unreadable. */
static void print_note(const char *note)
{
    enum { INDENT = 19, WIDTH = 100 };
    printf("  note             ");
    size_t col = INDENT;
    const char *p = note;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t word = strcspn(p, " ");
        int clause_ends = word >= 1 && p[word - 1] == ';';
        if (col > INDENT && col + 1 + word > WIDTH) {
            printf("\n%*s", INDENT, "");
            col = INDENT;
        } else if (col > INDENT) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)word, p);
        col += word;
        p += word;
        if (clause_ends && *p) {                  /* a new clause: a new line */
            printf("\n%*s", INDENT, "");
            col = INDENT;
        }
    }
    putchar('\n');
}

static void print_text(const nl_config *c)
{
    printf("%s\n", c->file);
    printf("  model_type       %s (%s%s%s)\n", c->model_type[0] ? c->model_type : "(none)", c->family,
           c->source[0] ? ", " : "", c->source);
    printf("  answered from    %s\n", !strcmp(c->answered_from, "census") ? "the census (measured from transformers' modules)"
                                     : !strcmp(c->answered_from, "table") ? "the hand-written table"
                                                                           : "a guess (see the note)");
    if (c->derived[0])
        printf("                   not in the file, as the configuration class derives it: %s\n", c->derived);
    printf("  norm             %s, %s\n", nl_norm_name(c->shape.norm), variant(&c->shape));
    if (c->placement)
        printf("  placement        %s  (%s; measured by running the model)\n", c->placement, c->placement_roles);
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
    if (c->note && c->note[0])
        print_note(c->note);
}

/* A string for --json: bytes that are not UTF-8 (a file name may hold
 * any) become the text \xNN, so that the line stays valid JSON. */
static void add_string(cJSON *o, const char *key, const char *value)
{
    char *safe = nl_utf8_escape(value);
    cJSON_AddStringToObject(o, key, safe ? safe : "(out of memory)");
    free(safe);
}

static void print_json(const nl_config *c)
{
    cJSON *o = cJSON_CreateObject();
    add_string(o, "file", c->file);
    if (c->model_type[0])
        cJSON_AddStringToObject(o, "model_type", c->model_type);
    else
        cJSON_AddNullToObject(o, "model_type");
    cJSON_AddStringToObject(o, "family", c->family);
    cJSON_AddBoolToObject(o, "guessed", c->guessed);
    cJSON_AddStringToObject(o, "source", c->source);
    cJSON_AddStringToObject(o, "answered_from", c->answered_from);
    if (c->derived[0])
        cJSON_AddStringToObject(o, "derived", c->derived);
    else
        cJSON_AddNullToObject(o, "derived");
    if (c->placement) {
        cJSON_AddStringToObject(o, "placement", c->placement);
        cJSON_AddStringToObject(o, "placement_roles", c->placement_roles);
    } else {
        cJSON_AddNullToObject(o, "placement");
        cJSON_AddNullToObject(o, "placement_roles");
    }
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
    add_string(o, "note", c->note ? c->note : "");
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

static void print_json_error(const char *file, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    add_string(o, "file", file);
    add_string(o, "error", msg);
    char *s = cJSON_PrintUnformatted(o);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(o);
}

// @snippet config-tsv
/* A field of a table: a tab or a newline inside it would shift every
 * column after it, so they are escaped (malloc'd; NULL without memory). */
static char *escaped(const char *s, size_t n)
{
    char *out = malloc(2 * n + 1), *o = out;
    for (size_t i = 0; out && i < n; i++) {
        const char *e = s[i] == '\t' ? "\\t" : s[i] == '\n' ? "\\n" : s[i] == '\r' ? "\\r"
                      : s[i] == '\\' ? "\\\\" : NULL;
        if (e) {
            memcpy(o, e, 2);
            o += 2;
        } else {
            *o++ = s[i];
        }
    }
    if (out)
        *o = '\0';
    return out;
}

enum { NCOLS = 11 };
static const char *const col_names[NCOLS] = {"model", "model_type", "norm", "L", "hidden", "eps", "eps_key",
                                             "per_block", "norms", "norm_params", "saved"};

/* One row's cells, malloc'd (a NULL cell prints as "?"). */
static void row_cells(const nl_config *c, char *cell[NCOLS])
{
    size_t n;
    const char *name = base_name(c->file, &n);
    const char *key = c->eps_is_default ? "(default)" : c->eps_key;
    cell[0] = escaped(name, n);
    cell[1] = escaped(c->model_type, strlen(c->model_type));
    cell[2] = strdup(nl_norm_name(c->shape.norm));
    cell[6] = escaped(key, strlen(key));
    const size_t nums[] = {c->num_layers, c->hidden_size, 0, 0, c->norms_per_layer, c->norm_layers,
                           c->norm_params, c->params_saved};
    for (int i = 3; i < NCOLS; i++) {
        if (i == 6)
            continue;
        char buf[32];
        if (i == 5)
            snprintf(buf, sizeof buf, "%g", c->eps);
        else
            snprintf(buf, sizeof buf, "%zu", nums[i - 3]);
        cell[i] = strdup(buf);
    }
}

static void print_tsv_header(void)
{
    for (int i = 0; i < NCOLS; i++)
        printf("%s%s", col_names[i], i + 1 < NCOLS ? "\t" : "\n");
}

static void print_tsv(const nl_config *c)
{
    char *cell[NCOLS];
    row_cells(c, cell);
    for (int i = 0; i < NCOLS; i++) {
        printf("%s%s", cell[i] ? cell[i] : "?", i + 1 < NCOLS ? "\t" : "\n");
        free(cell[i]);
    }
}
// @end

/* --table: rows kept until all are read, then printed with each column as
 * wide as its widest cell; per_block is left out to keep it narrow. */
typedef struct {
    char *(*cells)[NCOLS];
    size_t rows, cap;
} table;

static int table_add(table *t, const nl_config *c)
{
    if (t->rows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        void *grown = realloc(t->cells, cap * sizeof *t->cells);
        if (!grown)
            return -1;
        t->cells = grown;
        t->cap = cap;
    }
    row_cells(c, t->cells[t->rows++]);
    return 0;
}

static void table_print(table *t)
{
    size_t width[NCOLS];
    for (int i = 0; i < NCOLS; i++) {
        width[i] = strlen(col_names[i]);
        for (size_t r = 0; r < t->rows; r++)
            if (t->cells[r][i] && strlen(t->cells[r][i]) > width[i])
                width[i] = strlen(t->cells[r][i]);
    }
    for (size_t r = 0; r <= t->rows; r++) {
        const char *sep = "";
        for (int i = 0; i < NCOLS; i++) {
            if (i == 7)
                continue;   /* per_block */
            const char *v = r == 0 ? col_names[i] : t->cells[r - 1][i] ? t->cells[r - 1][i] : "?";
            /* Text left-aligned, numbers right-aligned, no trailing blanks. */
            int left = i <= 2 || i == 6;
            int last = i + 1 == NCOLS;
            printf("%s%*s", sep, left && !last ? -(int)width[i] : (int)width[i], v);
            sep = "  ";
        }
        putchar('\n');
    }
    for (size_t r = 0; r < t->rows; r++)
        for (int i = 0; i < NCOLS; i++)
            free(t->cells[r][i]);
    free(t->cells);
}


int cmd_config(int argc, char **argv)
{
    int json = 0, tsv = 0, tab = 0, failed = 0, first = 1;
    const nl_option opts[] = {
        {"--json", NL_OPT_FLAG, &json, 0, NULL, NULL},
        {"--tsv", NL_OPT_FLAG, &tsv, 0, NULL, NULL},
        {"--table", NL_OPT_FLAG, &tab, 0, NULL, NULL},
    };
    nl_positional files;
    int code;
    if (!nl_options_parse("config", opts, NL_COUNT(opts), argc, argv, &files, help, &code))
        return code;
    if (json + tsv + tab > 1)
        return nl_usage_error("config", "--json, --tsv and --table: choose one");
    int mode = json ? OUT_JSON : tsv ? OUT_TSV : tab ? OUT_TABLE : OUT_TEXT;
    if (files.count == 0) {
        fprintf(stderr, "normlab config: no config file given\n\n");
        help(stderr);
        return 2;
    }
    if (mode == OUT_TSV)
        print_tsv_header();
    table t = {NULL, 0, 0};
    for (int i = 0; i < files.count; i++) {
        const char *a = files.word[i];
        nl_config c;
        if (nl_config_read(a, &c) != NL_OK) {
            fprintf(stderr, "normlab config: %s\n", nl_last_error());
            if (mode == OUT_JSON)
                print_json_error(a, nl_last_error());
            nl_config_free(&c);
            failed++;
            continue;
        }
        if (mode == OUT_JSON)
            print_json(&c);
        else if (mode == OUT_TSV)
            print_tsv(&c);
        else if (mode == OUT_TABLE) {
            if (table_add(&t, &c) < 0) {
                fprintf(stderr, "normlab config: %s: out of memory for the table\n", a);
                failed++;
            }
        } else {
            if (!first)
                printf("\n");
            print_text(&c);
        }
        nl_config_free(&c);
        first = 0;
    }
    if (mode == OUT_TABLE)
        table_print(&t);
    /* A full disk or a closed pipe loses the report: say so, not 0. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "normlab config: cannot write the output: %s\n", strerror(errno));
        return 1;
    }
    return failed ? 1 : 0;
}
