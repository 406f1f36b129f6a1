/* train.c — `normlab train`: chapter 13's training of a GPT-2, LayerNorm
 * or RMSNorm, from a seeded initialisation or a checkpoint, on a text's
 * bytes or an llm.c token shard; progress on stderr, the loss curve as
 * CSV, the trained model in the checkpoint layouts of chapter 12. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/sizes.h"
#include "gpt2/kernels.h"
#include "gpt2/train.h"
#include "io/io.h"
#include "normlab.h"

static void usage(FILE *to)
{
    fprintf(to,
"usage: normlab train (--text FILE | --data SHARD) [--norm layernorm|rmsnorm | --init M.bin]\n"
"                     [--steps N] [--batch B] [--seq T] [--lr X] [--optimizer adamw|sgd]\n"
"                     [--weight-decay X] [--seed N] [--threads N] [--shuffle]\n"
"                     [--out M.bin] [--csv FILE] [--force] [model and validation options]\n"
"\n"
"Trains the GPT-2 of chapter 12 on one machine's cores (chapter 13): each step a\n"
"batch of B sequences of T tokens, the forward pass, the backward pass and one\n"
"optimizer update.  Batches are read in order as llm.c's loader reads them:\n"
"sequence b of step s starts at token (s B + b) T, each target the next token,\n"
"round again at the end of the data.\n"
"\n"
"  --text FILE       train on the file's bytes (vocabulary 256)\n"
"  --data SHARD      train on an llm.c token shard (magic 20240520, uint16)\n"
"  --val FILE        validate on this file (the same kind); default: the last\n"
"                    tenth of the training data is held out\n"
"  --norm N          layernorm (llm.c's GPT-2) or rmsnorm (the same model with\n"
"                    RMSNorm: a gain, no beta) (default layernorm)\n"
"  --init M.bin      start from this checkpoint (llm.c's layout, or one normlab\n"
"                    train or normlab convert wrote) instead of a new model\n"
"  --steps N         optimizer updates (default 100; 0 evaluates the start only)\n"
"  --batch B         sequences a step (default 16)\n"
"  --seq T           tokens a sequence, at most the context (default: the context)\n"
"  --lr X            learning rate (default 1e-3)\n"
"  --optimizer O     adamw (betas 0.9, 0.95, eps 1e-8) or sgd (default adamw)\n"
"  --weight-decay X  on matrices and embeddings only (default 0)\n"
"  --seed N          the new model's weights and the shuffled order (default 1);\n"
"                    both norms draw the same weights from the same seed\n"
"  --shuffle         take each pass over the data in a seeded random order\n"
"  --threads N       OpenMP and BLAS threads (default: every core)\n"
"  --out M.bin       write the trained model (normlab logits, sample, convert read it)\n"
"  --csv FILE        one row per step: norm, seed, threads, step, train_loss,\n"
"                    val_loss (nan between evaluations), ms_step, ms_norms, train_ms\n"
"  --force           replace existing output files (never done otherwise)\n"
"\n"
"A new model's shape (not with --init):\n"
"  --layers N (4)  --channels N (128)  --heads N (4)  --context N (128)\n"
"  --vocab N       (256 with --text, GPT-2's 50257 with --data)\n"
"Validation: --val-every N steps (default 50) and at the end, over at most\n"
"  --val-batches N batches (default 8) from the start of the held-out data.\n"
"\n"
"Exit status: 0 done; 2 bad usage or bad input (named on stderr, nothing\n"
"written); 1 training failed (a loss that is not a number, no memory).\n");
}

typedef struct {
    const char *norm, *init, *data, *text, *val, *out, *csv, *optimizer;
    size_t steps, batch, seq, layers, channels, heads, context, vocab, threads;
    size_t val_every, val_batches, seed;
    double lr, wd;
    int shuffle, force;
} opts;

/* A number from lo to hi, no more and no less ("1e-3", not "1e-3x"). */
static int parse_real(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !(x >= lo && x <= hi)) {
        nl_set_error("must be a number from %g to %g", lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}

static int parse_lr(const char *v, void *dest) { return parse_real(v, 1e-12, 10, dest); }
static int parse_wd(const char *v, void *dest) { return parse_real(v, 0, 10, dest); }

/* --steps takes 0 as well: the starting model's losses, nothing trained. */
static int parse_steps(const char *v, void *dest)
{
    if (!strcmp(v, "0")) {
        *(size_t *)dest = 0;
        return 1;
    }
    return nl_parse_size(v, 100000000, dest);
}

static int fail(int code, const char *what)
{
    fprintf(stderr, "normlab train: %s\n", what);
    return code;
}

/* ------------------------------------------------------------------ data */
typedef struct {
    nl_tokens train, val;
    const char *name;
} dataset;

static int read_tokens(const opts *o, const char *path, nl_tokens *t)
{
    return o->text ? nl_tokens_read_text(path, t) : nl_tokens_read_shard(path, t);
}

/* The training data and its validation part; 2 with a message on bad input. */
static int load_data(const opts *o, dataset *d)
{
    d->name = o->text ? o->text : o->data;
    if (read_tokens(o, d->name, &d->train) != NL_OK)
        return 2;
    if (o->val) {
        if (read_tokens(o, o->val, &d->val) != NL_OK)
            return 2;
    } else if (nl_tokens_split(&d->train, d->train.n - d->train.n / 10, &d->val) != NL_OK) {
        return 2;
    }
    return 0;
}

/* The first token beyond the vocabulary, named. */
static int check_vocab(const nl_tokens *t, const char *what, int vocab)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->tok[i] >= vocab) {
            nl_set_error("%s: token %u at position %zu is beyond the model's vocabulary of %d",
                         what, t->tok[i], i, vocab);
            return 0;
        }
    return 1;
}

/* ----------------------------------------------------------------- model */
static int make_model(const opts *o, nl_gpt2 *m)
{
    if (o->init) {
        if (nl_gpt2_read(o->init, m) != NL_OK)
            return 0;
        return 1;
    }
    size_t vocab = o->vocab ? o->vocab : o->text ? 256 : 50257;
    nl_gpt2_config cfg = {(int)o->context, (int)vocab, (int)o->layers, (int)o->heads,
                          (int)o->channels, (int)((vocab + 127) / 128 * 128)};
    nl_gpt2_norm norm = !strcmp(o->norm, "rmsnorm") ? NL_GPT2_RMSNORM_GAIN : NL_GPT2_LAYERNORM;
    return nl_gpt2_init(m, &cfg, norm, o->seed) == NL_OK;
}

static const char *norm_name(const nl_gpt2 *m)
{
    switch (m->norm) {
    case NL_GPT2_LAYERNORM: return "layernorm";
    case NL_GPT2_RMSNORM_GAIN: return "rmsnorm";
    default: return "rmsnorm-converted";
    }
}

/* ------------------------------------------------------------ evaluation */
typedef struct {
    int *inputs, *targets; /* B x T each */
} batch;

/* The mean loss over the first sequences of `t` (at most `batches` x B of
 * them), in batches of up to B: every sequence of T tokens weighs the
 * same. */
static int evaluate(nl_train *tr, batch *bt, const nl_tokens *t, size_t batches, double *loss)
{
    size_t T = tr->T, seqs = (t->n - 1) / T, done = 0;
    if (seqs > batches * tr->B)
        seqs = batches * tr->B;
    double sum = 0;
    while (done < seqs) {
        size_t nb = seqs - done < tr->B ? seqs - done : tr->B;
        for (size_t i = 0; i < nb * T; i++) {
            bt->inputs[i] = t->tok[done * T + i];
            bt->targets[i] = t->tok[done * T + i + 1];
        }
        int rc = nl_train_forward(tr, bt->inputs, bt->targets, nb, T);
        if (rc)
            return rc;
        sum += tr->loss * (double)nb;
        done += nb;
    }
    *loss = sum / (double)seqs;
    return NL_OK;
}

/* -------------------------------------------------------------- the run */
typedef struct {
    char *text;
    size_t len, cap;
} buffer;

static int append(buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int append(buffer *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->text ? b->text + b->len : NULL, b->text ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return 0;
        if (b->text && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return 1;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *t = realloc(b->text, cap);
        if (!t)
            return 0;
        b->text = t, b->cap = cap;
    }
}

typedef struct {
    const opts *o;
    nl_gpt2 *m;
    nl_train tr;
    nl_optim opt;
    nl_loader ld;
    dataset d;
    batch bt;
    buffer csv;
    size_t threads;
    double train_ms, last_val, started, last_note;
} run;

static void progress(run *r, size_t step, double loss, double ms, double norms_ms, int force)
{
    double now = nl_now();
    if (!force && now - r->last_note < 2.0)
        return;
    r->last_note = now;
    double elapsed = now - r->started;
    size_t left = r->o->steps - step;
    fprintf(stderr, "step %zu/%zu: loss %.4f, val %.4f, %.1f ms a step (norms %.2f ms), "
            "%.0f s in, ~%.0f s to go\n", step, r->o->steps, loss, r->last_val, ms, norms_ms,
            elapsed, step ? elapsed / (double)step * (double)left : 0.0);
}

static int row(run *r, size_t step, double loss, double val, double ms, double norms_ms)
{
    return append(&r->csv, "%s,%zu,%zu,%zu,%.6f,%.6f,%.3f,%.3f,%.1f\n", norm_name(r->m),
                  r->o->seed, r->threads, step, loss, val, ms, norms_ms, r->train_ms);
}

static int diverged(const opts *o, size_t step, const char *which, double loss)
{
    char why[256], value[32];
    snprintf(value, sizeof value, isnan(loss) ? "not a number" : "%g", loss);
    snprintf(why, sizeof why, "step %zu: the %sloss is %s: training diverged (a smaller --lr "
             "than %g may hold it)", step, which, value, o->lr);
    return fail(1, why);
}

/* Every step: the batch, forward, backward, update, timed; row and
 * progress; validation on schedule.  1 with a message when training
 * fails. */
static int train_steps(run *r)
{
    const opts *o = r->o;
    nl_train *tr = &r->tr;
    /* row 0: the starting model on the first batch and the held-out data */
    nl_loader_batch(&r->ld, 0, r->bt.inputs, r->bt.targets);
    if (nl_train_forward(tr, r->bt.inputs, r->bt.targets, o->batch, o->seq))
        return fail(1, nl_last_error());
    double first = tr->loss;
    if (evaluate(tr, &r->bt, &r->d.val, o->val_batches, &r->last_val))
        return fail(1, nl_last_error());
    if (!isfinite(first) || !isfinite(r->last_val))
        return fail(1, "the starting model's loss is not a number: its weights hold a NaN or "
                       "an infinity");
    if (!row(r, 0, first, r->last_val, NAN, NAN))
        return fail(1, "no memory for the CSV");
    r->started = nl_now();
    for (size_t step = 1; step <= o->steps; step++) {
        nl_loader_batch(&r->ld, step - 1, r->bt.inputs, r->bt.targets);
        tr->norm_seconds = 0;
        double t0 = nl_now();
        int rc = nl_train_forward(tr, r->bt.inputs, r->bt.targets, o->batch, o->seq);
        double loss = tr->loss;
        if (rc == NL_OK && !isfinite(loss))
            return diverged(o, step, "", loss);
        if (rc == NL_OK)
            rc = nl_train_backward(tr);
        if (rc == NL_OK)
            rc = nl_optim_step(&r->opt, tr);
        if (rc)
            return fail(1, nl_last_error());
        double ms = (nl_now() - t0) * 1e3, norms_ms = tr->norm_seconds * 1e3;
        r->train_ms += ms;
        double val = NAN;
        int validate = step % o->val_every == 0 || step == o->steps;
        if (validate) {
            if (evaluate(tr, &r->bt, &r->d.val, o->val_batches, &val))
                return fail(1, nl_last_error());
            if (!isfinite(val))
                return diverged(o, step, "validation ", val);
            r->last_val = val;
        }
        if (!row(r, step, loss, val, ms, norms_ms))
            return fail(1, "no memory for the CSV");
        progress(r, step, loss, ms, norms_ms, validate);
    }
    return 0;
}

static void summary(run *r)
{
    const opts *o = r->o;
    size_t params = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        params += r->m->count[i];
    printf("%s GPT-2: %d layers, %d channels, %d heads, context %d, vocabulary %d, %zu "
           "parameters\n", norm_name(r->m), r->m->cfg.num_layers, r->m->cfg.channels,
           r->m->cfg.num_heads, r->m->cfg.max_seq_len, r->m->cfg.vocab_size, params);
    printf("data: %s, %zu tokens to train on, %zu held out; batches of %zu x %zu%s\n",
           r->d.name, r->d.train.n, r->d.val.n, o->batch, o->seq, o->shuffle ? ", shuffled" : "");
    printf("matmuls: %s; threads: %zu\n", nl_gpt2_gemm_name(), r->threads);
    if (o->steps) {
        double ms = r->train_ms / (double)o->steps;
        printf("%zu steps: validation loss %.4f, %.1f ms a step (%.0f tokens/s)\n", o->steps,
               r->last_val, ms, (double)(o->batch * o->seq) / ms * 1e3);
    } else {
        printf("no step taken: validation loss %.4f\n", r->last_val);
    }
}

/* What the options say together; 2 with a message when they disagree. */
static int check_options(const opts *o, int shape_given)
{
    if (!o->text == !o->data)
        return nl_usage_error("train", "give one of --text FILE (bytes) and --data SHARD");
    if (o->init && (shape_given || o->norm))
        return nl_usage_error("train", "--init takes the model's norm and shape from the "
                                       "checkpoint: drop --norm, --layers, --channels, "
                                       "--heads, --context and --vocab");
    if (o->norm && strcmp(o->norm, "layernorm") && strcmp(o->norm, "rmsnorm"))
        return nl_usage_error("train", "--norm '%s': layernorm or rmsnorm", o->norm);
    if (strcmp(o->optimizer, "adamw") && strcmp(o->optimizer, "sgd"))
        return nl_usage_error("train", "--optimizer '%s': adamw or sgd", o->optimizer);
    if (o->channels % o->heads)
        return nl_usage_error("train", "--channels %zu is not a multiple of --heads %zu",
                              o->channels, o->heads);
    if (o->out && o->csv && !strcmp(o->out, o->csv))
        return nl_usage_error("train", "--out and --csv name the same file");
    return 0;
}

/* The CSV's first lines: what was trained, on what, how; `key=value`
 * words that a reader of the file can pick out (scripts/tools/train-report.c). */
static int provenance(run *r)
{
    const opts *o = r->o;
    const nl_gpt2 *m = r->m;
    size_t params = 0;
    for (int i = 0; i < NL_GPT2_NTENSORS; i++)
        params += m->count[i];
    return append(&r->csv, "# model: norm=%s layers=%d channels=%d heads=%d context=%d "
                  "vocab=%d params=%zu init=%s\n", norm_name(m), m->cfg.num_layers,
                  m->cfg.channels, m->cfg.num_heads, m->cfg.max_seq_len, m->cfg.vocab_size,
                  params, o->init ? o->init : "seeded") &&
           append(&r->csv, "# data: %s=%s train_tokens=%zu val_tokens=%zu batch=%zu seq=%zu "
                  "shuffle=%d val_every=%zu val_batches=%zu\n", o->text ? "text" : "shard",
                  r->d.name, r->d.train.n, r->d.val.n, o->batch, o->seq, o->shuffle,
                  o->val_every, o->val_batches) &&
           append(&r->csv, "# optimizer: %s lr=%g weight_decay=%g seed=%zu threads=%zu\n",
                  o->optimizer, o->lr, o->wd, o->seed, r->threads) &&
           append(&r->csv, "# matmul: blas=%d %s\n", nl_gpt2_gemm_blas(), nl_gpt2_gemm_name());
}

/* Data, model, loader and buffers; 0, or the exit code after the message. */
static int prepare(run *r)
{
    opts *o = (opts *)r->o;
    nl_gpt2 *m = r->m;
    char why[512];
    if (load_data(o, &r->d))
        return fail(2, nl_last_error());
    if (!make_model(o, m))
        return fail(2, nl_last_error());
    if (!o->seq)
        o->seq = (size_t)m->cfg.max_seq_len;
    if (o->seq > (size_t)m->cfg.max_seq_len) {
        snprintf(why, sizeof why, "--seq %zu is longer than the model's context of %d tokens "
                 "(max_seq_len)", o->seq, m->cfg.max_seq_len);
        return fail(2, why);
    }
    if (!check_vocab(&r->d.train, r->d.name, m->cfg.vocab_size) ||
        !check_vocab(&r->d.val, o->val ? o->val : "the held-out data", m->cfg.vocab_size))
        return fail(2, nl_last_error());
    if (r->d.val.n < o->seq + 1) {
        snprintf(why, sizeof why, "%s: %zu tokens held out for validation; a sequence of %zu "
                 "needs %zu", o->val ? o->val : r->d.name, r->d.val.n, o->seq, o->seq + 1);
        return fail(2, why);
    }
    if (nl_loader_init(&r->ld, &r->d.train, o->batch, o->seq, o->shuffle, o->seed) != NL_OK) {
        snprintf(why, sizeof why, "%s: %s", r->d.name, nl_last_error());
        return fail(2, why);
    }
    r->bt.inputs = malloc(2 * o->batch * o->seq * sizeof(int));
    if (!r->bt.inputs)
        return fail(1, "no memory for a batch");
    r->bt.targets = r->bt.inputs + o->batch * o->seq;
    int rc = nl_train_init(&r->tr, m, o->batch, o->seq, (int)r->threads);
    if (rc)
        return fail(rc == NL_ENOMEM ? 1 : 2, nl_last_error());
    r->opt = nl_optim_default(strcmp(o->optimizer, "sgd") ? NL_OPTIM_ADAMW : NL_OPTIM_SGD,
                              (float)o->lr, (float)o->wd);
    if (!provenance(r) || !append(&r->csv, "norm,seed,threads,step,train_loss,val_loss,"
                                            "ms_step,ms_norms,train_ms\n"))
        return fail(1, "no memory for the CSV");
    return 0;
}

/* The summary, the CSV and the model; 0, or 2 after a message. */
static int finish(run *r)
{
    const opts *o = r->o;
    summary(r);
    const void *part[] = {r->csv.text};
    size_t len[] = {r->csv.len};
    if (o->csv && nl_io_write_file(o->csv, part, len, 1, o->force) != NL_OK)
        return fail(2, nl_last_error());
    if (o->out && nl_gpt2_write(o->out, r->m, o->force) != NL_OK)
        return fail(2, nl_last_error());
    if (o->out)
        printf("wrote %s\n", o->out);
    return 0;
}

static void release(run *r)
{
    nl_optim_free(&r->opt);
    nl_train_free(&r->tr);
    free(r->csv.text);
    free(r->bt.inputs);
    nl_loader_free(&r->ld);
    nl_gpt2_free(r->m);
    nl_tokens_free(&r->d.train);
    nl_tokens_free(&r->d.val);
}

int cmd_train(int argc, char **argv)
{
    opts o = {.optimizer = "adamw", .steps = 100, .batch = 16, .layers = 4, .channels = 128,
              .heads = 4, .context = 128, .val_every = 50, .val_batches = 8, .seed = 1,
              .lr = 1e-3};
    size_t layers = 0, channels = 0, heads = 0, context = 0;
    const nl_option table[] = {
        {"--text", NL_OPT_TEXT, &o.text, 0, NULL, NULL},
        {"--data", NL_OPT_TEXT, &o.data, 0, NULL, NULL},
        {"--val", NL_OPT_TEXT, &o.val, 0, NULL, NULL},
        {"--norm", NL_OPT_TEXT, &o.norm, 0, NULL, NULL},
        {"--init", NL_OPT_TEXT, &o.init, 0, NULL, NULL},
        {"--steps", NL_OPT_CUSTOM, &o.steps, 0, parse_steps, NULL},
        {"--batch", NL_OPT_SIZE, &o.batch, 4096, NULL, NULL},
        {"--seq", NL_OPT_SIZE, &o.seq, 65536, NULL, NULL},
        {"--lr", NL_OPT_CUSTOM, &o.lr, 0, parse_lr, NULL},
        {"--optimizer", NL_OPT_TEXT, &o.optimizer, 0, NULL, NULL},
        {"--weight-decay", NL_OPT_CUSTOM, &o.wd, 0, parse_wd, NULL},
        {"--seed", NL_OPT_SIZE, &o.seed, (size_t)1 << 62, NULL, NULL},
        {"--shuffle", NL_OPT_FLAG, &o.shuffle, 0, NULL, NULL},
        {"--threads", NL_OPT_SIZE, &o.threads, 1024, NULL, NULL},
        {"--out", NL_OPT_TEXT, &o.out, 0, NULL, NULL},
        {"--csv", NL_OPT_TEXT, &o.csv, 0, NULL, NULL},
        {"--force", NL_OPT_FLAG, &o.force, 0, NULL, NULL},
        {"--layers", NL_OPT_SIZE, &layers, 1024, NULL, NULL},
        {"--channels", NL_OPT_SIZE, &channels, 65536, NULL, NULL},
        {"--heads", NL_OPT_SIZE, &heads, 1024, NULL, NULL},
        {"--context", NL_OPT_SIZE, &context, 65536, NULL, NULL},
        {"--vocab", NL_OPT_SIZE, &o.vocab, 65536, NULL, NULL},
        {"--val-every", NL_OPT_SIZE, &o.val_every, 100000000, NULL, NULL},
        {"--val-batches", NL_OPT_SIZE, &o.val_batches, 1u << 20, NULL, NULL},
    };
    int code;
    if (!nl_options_parse("train", table, NL_COUNT(table), argc, argv, NULL, usage, &code))
        return code;
    int shape_given = layers || channels || heads || context || o.vocab;
    o.layers = layers ? layers : o.layers, o.channels = channels ? channels : o.channels;
    o.heads = heads ? heads : o.heads, o.context = context ? context : o.context;
    if ((code = check_options(&o, shape_given)))
        return code;
    if (!o.norm)
        o.norm = "layernorm";
    if ((o.out && nl_output_check(o.out, o.force) != NL_OK) ||
        (o.csv && nl_output_check(o.csv, o.force) != NL_OK))
        return fail(2, nl_last_error());

    nl_gpt2 m = {0};
    run r = {.o = &o, .m = &m};
    r.threads = o.threads ? o.threads : (size_t)omp_get_num_procs();
    omp_set_num_threads((int)r.threads);
    nl_gpt2_gemm_threads((int)r.threads);
    code = prepare(&r);
    if (!code)
        code = train_steps(&r);
    if (!code)
        code = finish(&r);
    release(&r);
    return code;
}
