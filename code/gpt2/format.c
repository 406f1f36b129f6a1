/* format.c — GPT-2 checkpoints on disk.
 *
 * llm.c's layout (karpathy/llm.c train_gpt2.c, gpt2_build_from_checkpoint
 * and fill_in_parameter_sizes): 256 little-endian int32 — magic 20240326,
 * version 3 (fp32), max_seq_len, vocab_size, num_layers, num_heads,
 * channels, padded_vocab_size, the rest 0 — then float32 tensors in the
 * order wte (padded_vocab_size x C), wpe (max_seq_len x C), ln1w, ln1b
 * (L x C), qkvw (L x 3C x C), qkvb (L x 3C), attprojw (L x C x C),
 * attprojb, ln2w, ln2b (L x C), fcw (L x 4C x C), fcb (L x 4C), fcprojw
 * (L x C x 4C), fcprojb (L x C), lnfw, lnfb (C).  Matrices are out x in.
 *
 * The converted model (`normlab convert`), ours: the same 256 int32 with
 * magic 20261212, version 1, the same six config values, then
 *   [8]  norm: 1 = RMSNorm, 2 = Pre-CRMSNorm (residual width channels - 1)
 *   [9]  1 = FlashNorm: the 1/rms is applied after the matmul
 *   [10] the residual width R (channels, or channels - 1)
 * and float32 tensors wte (vocab_size x R: the real vocabulary, no
 * padding), wpe (max_seq_len x R), qkvw (L x 3C x R), qkvb (L x 3C),
 * attprojw (L x R x C), attprojb (L x R), fcw (L x 4C x R), fcb (L x 4C),
 * fcprojw (L x R x 4C), fcprojb (L x R), headw (vocab_size x R), headb
 * (vocab_size).  No norm parameters: they are inside qkvw, fcw and headw.
 *
 * The RMSNorm GPT-2 that `normlab train --norm rmsnorm` writes (chapter
 * 13) uses the same header with [8] = 3, [9] = 0, [10] = channels, and
 * llm.c's tensors without the betas: wte (padded_vocab_size x C), wpe,
 * ln1w, qkvw, qkvb, attprojw, attprojb, ln2w, fcw, fcb, fcprojw, fcprojb,
 * lnfw; its head is wte, as GPT-2's.
 * Every layout is the tensors of nl_gpt2_counts in nl_gpt2_tensor order. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gpt2/gpt2.h"
#include "io/io.h"
#include "normlab.h"

static int fail(const char *path, const char *why)
{
    nl_set_error("%s: %s", path, why);
    return NL_EARG;
}

/* The model described by a header, allocated; NL_EARG naming what is wrong. */
static int from_header(const char *path, const int32_t *h, nl_gpt2 *m)
{
    char why[256];
    nl_gpt2_config cfg = {h[2], h[3], h[4], h[5], h[6], h[7]};
    nl_gpt2_norm norm = NL_GPT2_LAYERNORM;
    int deferred = 0;
    if (h[0] == NL_GPT2_MAGIC) {
        if (h[1] == NL_GPT2_VERSION_BF16)
            return fail(path, "llm.c version 5 holds bf16 parameters (train_gpt2.cu); this "
                              "reader takes version 3, fp32");
        if (h[1] != NL_GPT2_VERSION_F32) {
            snprintf(why, sizeof why, "llm.c checkpoint of version %d: the versions known are "
                     "3 (fp32) and 5 (bf16, refused)", h[1]);
            return fail(path, why);
        }
    } else if (h[0] == NL_GPT2_RMS_MAGIC) {
        if (h[1] != NL_GPT2_RMS_VERSION) {
            snprintf(why, sizeof why, "converted model of version %d: this build knows "
                     "version %d", h[1], NL_GPT2_RMS_VERSION);
            return fail(path, why);
        }
        if (h[8] != NL_GPT2_RMSNORM && h[8] != NL_GPT2_CRMSNORM &&
            h[8] != NL_GPT2_RMSNORM_GAIN) {
            snprintf(why, sizeof why, "norm kind %d in header[8]: 1 (RMSNorm), 2 "
                     "(Pre-CRMSNorm) or 3 (RMSNorm with gains)", h[8]);
            return fail(path, why);
        }
        if (h[9] != 0 && (h[9] != 1 || h[8] == NL_GPT2_RMSNORM_GAIN)) {
            snprintf(why, sizeof why, "header[9] (FlashNorm) is %d: 0, or 1 for a model "
                     "without gains", h[9]);
            return fail(path, why);
        }
        norm = (nl_gpt2_norm)h[8];
        deferred = h[9];
    } else {
        snprintf(why, sizeof why, "magic %d: not a GPT-2 checkpoint in llm.c's layout "
                 "(magic %d) nor a converted model (magic %d)", h[0], NL_GPT2_MAGIC,
                 NL_GPT2_RMS_MAGIC);
        return fail(path, why);
    }
    if (nl_gpt2_check_config(&cfg) != NL_OK) {
        snprintf(why, sizeof why, "header: %s", nl_last_error());
        return fail(path, why);
    }
    int rc = nl_gpt2_alloc(m, &cfg, norm, deferred, 0);
    if (rc) {
        snprintf(why, sizeof why, "%s", nl_last_error());
        return rc == NL_EARG ? fail(path, why) : rc;
    }
    if (norm != NL_GPT2_LAYERNORM && (size_t)h[10] != m->width) {
        snprintf(why, sizeof why, "header[10] says a residual width of %d; norm %d over %d "
                 "channels has %zu", h[10], h[8], cfg.channels, m->width);
        nl_gpt2_free(m);
        return fail(path, why);
    }
    return NL_OK;
}

int nl_gpt2_read(const char *path, nl_gpt2 *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f) {
        nl_set_error("%s: cannot open: %s", path, strerror(errno));
        return NL_EARG;
    }
    struct stat st;
    int32_t h[NL_GPT2_HEADER_INTS];
    int rc = NL_EARG;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        fail(path, "not a regular file");
    else if (fread(h, sizeof h, 1, f) != 1)
        fail(path, "shorter than the 1024-byte header of a GPT-2 checkpoint");
    else if ((rc = from_header(path, h, m)) == NL_OK) {
        size_t total = 0;
        for (int i = 0; i < NL_GPT2_NTENSORS; i++)
            total += m->count[i];
        /* counts fit size_t * sizeof(double) (nl_gpt2_counts), so bytes do too */
        size_t want = total * sizeof(float);
        size_t have = (size_t)st.st_size - sizeof h;
        char why[256];
        if (have != want) {
            snprintf(why, sizeof why, "%s: the header describes %zu parameters (%zu bytes) "
                     "and the file holds %zu bytes after it",
                     have < want ? "truncated" : "too long", total, want, have);
            rc = fail(path, why);
        } else if (fread(m->mem, sizeof(float), total, f) != total) {
            rc = fail(path, "read error in the parameters");
        }
        if (rc)
            nl_gpt2_free(m);
    }
    fclose(f);
    return rc;
}

int nl_gpt2_write(const char *path, const nl_gpt2 *m, int force)
{
    if (m->is_double)
        return fail(path, "a checkpoint holds float32: round the model first (nl_gpt2_to_float)");
    int32_t h[NL_GPT2_HEADER_INTS] = {0};
    int ln = m->norm == NL_GPT2_LAYERNORM;
    h[0] = ln ? NL_GPT2_MAGIC : NL_GPT2_RMS_MAGIC;
    h[1] = ln ? NL_GPT2_VERSION_F32 : NL_GPT2_RMS_VERSION;
    h[2] = m->cfg.max_seq_len;
    h[3] = m->cfg.vocab_size;
    h[4] = m->cfg.num_layers;
    h[5] = m->cfg.num_heads;
    h[6] = m->cfg.channels;
    h[7] = m->cfg.padded_vocab_size;
    if (!ln) {
        h[8] = (int32_t)m->norm;
        h[9] = m->deferred;
        h[10] = (int32_t)m->width;
    }
    const void *part[1 + NL_GPT2_NTENSORS];
    size_t len[1 + NL_GPT2_NTENSORS], n = 0;
    part[n] = h;
    len[n++] = sizeof h;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        if (m->count[i]) {
            part[n] = m->t[i];
            len[n++] = m->count[i] * sizeof(float);
        }
    return nl_io_write_file(path, part, len, n, force);
}
