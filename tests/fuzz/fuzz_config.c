/* fuzz_config.c — libFuzzer entry point for the config.json reader.
 *
 * Any bytes go in; the reader must either accept them or refuse them with a
 * message, never crash, leak or read out of bounds (ASan and UBSan watch).
 * What it accepts must also make sense: checked below, so a wrong count is
 * a finding too, not only a crash. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "normlab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise says which one before libFuzzer keeps the input. */
#define BROKEN(promise) (fprintf(stderr, "fuzz_config: broken promise: %s\n", promise), abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nl_config c;
    int rc = nl_config_parse((const char *)data, size, "fuzz.json", &c);
    if (rc != NL_OK) {
        /* A refusal always says why, and names the file. */
        if (strncmp(nl_last_error(), "fuzz.json: ", 11) != 0)
            BROKEN("a refusal names the file");
        nl_config_free(&c);
        return 0;
    }
    /* Strings are whole and NUL-terminated, never cut. */
    if (!c.file || strcmp(c.file, "fuzz.json") != 0 || !c.model_type)
        BROKEN("the file name and model_type are kept whole");
    if (!(c.eps > 0.0) || isinf(c.eps))
        BROKEN("eps is positive and finite");
    /* The table's families put a norm in every layer of num_layers; the
     * census's count follows the family's own fields (T5's num_layers, a
     * stack per modality), which need not be the generic depth key the
     * reader shows, so there only the sum of the groups is held below. */
    int census = c.answered_from && strcmp(c.answered_from, "census") == 0;
    if (c.hidden_size == 0 || (!census && (c.num_layers == 0 || c.norm_layers < c.num_layers)))
        BROKEN("an accepted config has a width, and outside the census a depth with a norm per layer");
    size_t widths = 0, layers = 0;
    for (size_t i = 0; i < c.ngroups; i++) {
        widths += c.groups[i].count * c.groups[i].width;
        layers += c.groups[i].count;
        /* A width derived from the file (hidden / heads) is never 0. */
        if (c.groups[i].count && c.groups[i].width == 0)
            BROKEN("no accepted norm is 0 wide");
    }
    if (layers != c.norm_layers || c.norm_params > 2 * widths || c.params_saved > widths)
        BROKEN("the groups add up to the norm layers and parameters");
    if (c.eps_is_default != (c.eps_key[0] == '\0'))
        BROKEN("eps is the default exactly when no eps key was read");
    /* A guess always says so in the note. */
    if (c.guessed && (!c.note || !strstr(c.note, "guess")))
        BROKEN("a guess says so in the note");
    nl_config_free(&c);

    /* The pre-pass alone: its output is never longer than promised and
     * always NUL-terminated. */
    size_t n;
    char *out = nl_json_from_python((const char *)data, size, &n);
    if (out) {
        if (strlen(out) > n)
            BROKEN("the pre-pass output is no longer than promised");
        free(out);
    }
    return 0;
}
