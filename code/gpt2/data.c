/* data.c — the tokens a model trains on, and the batches llm.c's loader
 * cuts from them (karpathy/llm.c llmc/dataloader.h: dataloader_load_batch
 * reads B T + 1 tokens from sample idx's offset idx B T and takes the
 * targets one token on; an epoch is (tokens - 1) / (B T) samples). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpt2/train.h"
#include "normlab.h"

enum { SHARD_MAGIC = 20240520, SHARD_VERSION = 1, LLAMA3_MAGIC = 20240801, HEADER_INTS = 256 };

static int fail(const char *path, const char *why)
{
    nl_set_error("%s: %s", path, why);
    return NL_EARG;
}

/* A regular file, open for reading, and its size. */
static FILE *open_regular(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        nl_set_error("%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        fail(path, "not a regular file");
        return NULL;
    }
    *size = (size_t)st.st_size;
    return f;
}

int nl_tokens_read_shard(const char *path, nl_tokens *t)
{
    memset(t, 0, sizeof *t);
    size_t size;
    FILE *f = open_regular(path, &size);
    if (!f)
        return NL_EARG;
    int32_t h[HEADER_INTS];
    char why[256];
    int rc = NL_EARG;
    if (fread(h, sizeof h, 1, f) != 1)
        fail(path, "shorter than the 1024-byte header of an llm.c token shard");
    else if (h[0] == LLAMA3_MAGIC)
        fail(path, "an llm.c shard of Llama 3 tokens (magic 20240801, uint32): this reader "
                   "takes GPT-2's, magic 20240520 with uint16 tokens");
    else if (h[0] != SHARD_MAGIC) {
        snprintf(why, sizeof why, "magic %d: not an llm.c token shard (magic %d)", h[0],
                 SHARD_MAGIC);
        fail(path, why);
    } else if (h[1] != SHARD_VERSION) {
        snprintf(why, sizeof why, "token shard of version %d: this reader knows version %d",
                 h[1], SHARD_VERSION);
        fail(path, why);
    } else if (h[2] <= 0) {
        snprintf(why, sizeof why, "the header counts %d tokens", h[2]);
        fail(path, why);
    } else if (size - sizeof h != (size_t)h[2] * 2) {
        snprintf(why, sizeof why, "%s: the header counts %d tokens (%zu bytes) and the file "
                 "holds %zu bytes after it", size - sizeof h < (size_t)h[2] * 2 ? "truncated"
                 : "too long", h[2], (size_t)h[2] * 2, size - sizeof h);
        fail(path, why);
    } else if (!(t->tok = malloc((size_t)h[2] * sizeof *t->tok))) {
        nl_set_error("%s: no memory for %d tokens", path, h[2]);
        rc = NL_ENOMEM;
    } else if (fread(t->tok, sizeof *t->tok, (size_t)h[2], f) != (size_t)h[2]) {
        fail(path, "read error in the tokens");
        nl_tokens_free(t);
    } else {
        t->n = (size_t)h[2]; /* little-endian, as llm.c writes them and as we read them */
        rc = NL_OK;
    }
    fclose(f);
    return rc;
}

int nl_tokens_read_text(const char *path, nl_tokens *t)
{
    memset(t, 0, sizeof *t);
    size_t size;
    FILE *f = open_regular(path, &size);
    if (!f)
        return NL_EARG;
    unsigned char *bytes = malloc(size ? size : 1);
    t->tok = malloc((size ? size : 1) * sizeof *t->tok);
    int rc = NL_OK;
    if (!bytes || !t->tok) {
        nl_set_error("%s: no memory for %zu bytes", path, size);
        rc = NL_ENOMEM;
    } else if (fread(bytes, 1, size, f) != size) {
        rc = fail(path, "read error");
    } else {
        for (size_t i = 0; i < size; i++)
            t->tok[i] = bytes[i];
        t->n = size;
    }
    free(bytes);
    fclose(f);
    if (rc)
        nl_tokens_free(t);
    return rc;
}

void nl_tokens_free(nl_tokens *t)
{
    free(t->tok);
    memset(t, 0, sizeof *t);
}

int nl_tokens_split(nl_tokens *t, size_t from, nl_tokens *tail)
{
    memset(tail, 0, sizeof *tail);
    if (from > t->n) {
        nl_set_error("cannot split %zu tokens at %zu", t->n, from);
        return NL_EARG;
    }
    size_t n = t->n - from;
    tail->tok = malloc((n ? n : 1) * sizeof *tail->tok);
    if (!tail->tok) {
        nl_set_error("no memory for %zu tokens", n);
        return NL_ENOMEM;
    }
    memcpy(tail->tok, t->tok + from, n * sizeof *tail->tok);
    tail->n = n;
    t->n = from;
    return NL_OK;
}

int nl_loader_init(nl_loader *ld, const nl_tokens *data, size_t B, size_t T, int shuffle,
                   uint64_t seed)
{
    memset(ld, 0, sizeof *ld);
    if (B == 0 || T == 0 || data->n < 2 || (data->n - 1) / T / B == 0) {
        nl_set_error("%zu tokens: a batch of %zu x %zu needs %zu (its inputs, and the next "
                     "token as the last target)", data->n, B, T, B * T + 1);
        return NL_EARG;
    }
    ld->data = data, ld->B = B, ld->T = T, ld->shuffle = shuffle, ld->seed = seed;
    ld->per_epoch = (data->n - 1) / (B * T);
    if (shuffle && !(ld->order = malloc(ld->per_epoch * sizeof *ld->order))) {
        nl_set_error("no memory for the order of %zu batches", ld->per_epoch);
        return NL_ENOMEM;
    }
    ld->order_epoch = (size_t)-1;
    return NL_OK;
}

/* The epoch's order of batches: a Fisher-Yates shuffle drawn from
 * Python's Mersenne Twister seeded with (seed, epoch). */
static void draw_order(nl_loader *ld, size_t epoch)
{
    uint32_t key[4] = {(uint32_t)ld->seed, (uint32_t)(ld->seed >> 32), (uint32_t)epoch,
                       (uint32_t)((uint64_t)epoch >> 32)};
    nl_pyrandom r;
    nl_pyrandom_seed_words(&r, key, 4);
    for (size_t i = 0; i < ld->per_epoch; i++)
        ld->order[i] = i;
    for (size_t i = ld->per_epoch; i > 1; i--) {
        size_t j = (size_t)(nl_pyrandom_random(&r) * (double)i);
        size_t tmp = ld->order[i - 1];
        ld->order[i - 1] = ld->order[j];
        ld->order[j] = tmp;
    }
    ld->order_epoch = epoch;
}

// @snippet train-batch
int nl_loader_batch(nl_loader *ld, size_t step, int *inputs, int *targets)
{
    size_t epoch = step / ld->per_epoch, k = step % ld->per_epoch;
    if (ld->shuffle) {
        if (ld->order_epoch != epoch)
            draw_order(ld, epoch);
        k = ld->order[k];
    }
    const uint16_t *tok = ld->data->tok + k * ld->B * ld->T;
    for (size_t i = 0; i < ld->B * ld->T; i++) {
        inputs[i] = tok[i];
        targets[i] = tok[i + 1];
    }
    return NL_OK;
}
// @end

void nl_loader_free(nl_loader *ld)
{
    free(ld->order);
    memset(ld, 0, sizeof *ld);
}
