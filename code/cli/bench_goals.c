/* bench_goals.c — `normlab bench --goals FILE [--goals FILE ...]`: earlier
 * runs' CSVs held against the course's goals (bench_goals.def).  It
 * measures nothing: the numbers are the runs' own, so the book can print
 * where each goal stands from the CSVs it quotes, and a reader can ask the
 * same of a run of their own.  One line per goal: how many of its rows
 * met it, the lowest, the median and the highest value, and for a goal
 * not met its lowest rows (at most four) and the chapter that says what
 * limits it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/options.h"

typedef enum { FRAC, FASTER, SPEEDUP, PEER, PEERS, PEERS_SLOW } goal_kind;
typedef enum { ONE, EVERY } goal_threads;
typedef struct {
    const char *isa;
    goal_kind kind;
    const char *what;
    double at_least;
    goal_threads threads;
    const char *impls, *where;
} goal;

static const goal goals[] = {
#define GOAL(isa, kind, what, at_least, threads, impls, where) \
    {#isa, kind, what, at_least, threads, impls, where},
#include "cli/bench_goals.def"
#undef GOAL
};

/* One out-of-cache row of one run, its strings copied out of the line. */
typedef struct {
    char impl[64], norm[16], dtype[8], isa[8];
    size_t rows, d, threads, run;
    int peer;
    double median_s, frac, copy_gbps, bytes_per_elem;
} run_row;

typedef struct {
    run_row *row;
    size_t n, cap;
} run_rows;

/* One value a goal is held to, the row it speaks for, the row it was set
 * against (SPEEDUP's run at the most threads; NULL for the others), and
 * for the peer goals the peer's row. */
typedef struct {
    double value;
    const run_row *row, *against, *peer;
} measured;

static int keep(run_rows *all, const nl_bench_row *r, size_t run)
{
    if (strcmp(r->status, "ok") || strcmp(r->regime, "memory"))
        return 1;
    if (all->n == all->cap) {
        size_t cap = all->cap ? 2 * all->cap : 256;
        run_row *grown = realloc(all->row, cap * sizeof *grown);
        if (!grown)
            return 0;
        all->row = grown, all->cap = cap;
    }
    run_row *k = &all->row[all->n++];
    snprintf(k->impl, sizeof k->impl, "%s", r->impl);
    snprintf(k->norm, sizeof k->norm, "%s", r->norm);
    snprintf(k->dtype, sizeof k->dtype, "%s", r->dtype);
    snprintf(k->isa, sizeof k->isa, "%s", r->isa);
    k->bytes_per_elem = r->bytes_per_elem;
    k->rows = r->rows, k->d = r->d, k->threads = r->threads, k->run = run;
    k->peer = r->peer, k->median_s = r->median_s, k->frac = r->frac_copy, k->copy_gbps = r->copy_gbps;
    return 1;
}

/* One run being read: where its rows go, and its "# cpu:", "# date:"
 * and "# commit:" lines, which say which run it was. */
typedef struct {
    run_rows *all;
    size_t run;
    char cpu[80], date[40], commit[40];
} run_reading;

static void copy_value(char *into, size_t n, const char *line, const char *key)
{
    if (!strncmp(line, key, strlen(key)))
        snprintf(into, n, "%.*s", (int)strcspn(line + strlen(key), "\n"), line + strlen(key));
}

static void note_provenance(const char *line, void *ctx)
{
    run_reading *p = ctx;
    copy_value(p->cpu, sizeof p->cpu, line, "# cpu: ");
    copy_value(p->date, sizeof p->date, line, "# date: ");
    copy_value(p->commit, sizeof p->commit, line, "# commit: ");
}

static int keep_row(const nl_bench_row *r, void *ctx)
{
    run_reading *p = ctx;
    if (!keep(p->all, r, p->run)) {
        nl_set_error("out of memory");
        return 0;
    }
    return 1;
}

static int read_run(const char *path, size_t run, run_rows *all)
{
    run_reading p = {all, run, "cpu not named", "no date", ""};
    if (!nl_csv_read_file(path, note_provenance, keep_row, &p)) {
        fprintf(stderr, "normlab bench --goals: %s\n", nl_last_error());
        return 0;
    }
    printf("  run %zu: %s\n         %s%s%s%s\n         %.70s\n", run, path, *p.commit ? "commit " : "", p.commit,
           *p.commit ? ", " : "", p.date, p.cpu);
    return 1;
}

static int same_place(const run_row *a, const run_row *b)
{
    return a->run == b->run && a->rows == b->rows && a->d == b->d;
}

/* FASTER's partner: the f32 kernel of the same norm with the same suffix
 * ("rmsnorm_llama_bf16_omp" -> "rmsnorm_omp"). */
static const run_row *f32_partner(const run_rows *all, const run_row *r)
{
    const char *suffix = strrchr(r->impl, '_');
    char name[64];
    snprintf(name, sizeof name, "%s%s", strcmp(r->norm, "RMSNorm") ? "layernorm" : "rmsnorm", suffix ? suffix : "");
    for (size_t i = 0; i < all->n; i++) {
        const run_row *p = &all->row[i];
        if (same_place(p, r) && p->threads == r->threads && !strcmp(p->impl, name) && !strcmp(p->dtype, "f32"))
            return p;
    }
    return NULL;
}

/* SPEEDUP's partner: the same kernel at the most threads, above one. */
static const run_row *most_threads(const run_rows *all, const run_row *r)
{
    const run_row *best = NULL;
    for (size_t i = 0; i < all->n; i++) {
        const run_row *p = &all->row[i];
        if (same_place(p, r) && !strcmp(p->impl, r->impl) && p->threads > 1 && (!best || p->threads > best->threads))
            best = p;
    }
    return best;
}

/* Whether row r ran at the goal's width: its isa column, or for a CSV
 * older than that column (isa empty) avx512, the only width those runs
 * had. */
static int at_width(const goal *g, const run_row *r)
{
    return !strcmp(r->isa, g->isa) || (!*r->isa && !strcmp(g->isa, "avx512"));
}

/* PEER's partner: the fastest of ours the goal names, where the peer ran,
 * in the same pass (bytes per element: a backward row's 12 beside a
 * forward row's 8 of the same norm and dtype). */
static const run_row *fastest_ours(const run_rows *all, const goal *g, const run_row *peer)
{
    const run_row *best = NULL;
    for (size_t i = 0; i < all->n; i++) {
        const run_row *p = &all->row[i];
        if (!p->peer && same_place(p, peer) && p->threads == peer->threads && !strcmp(p->norm, peer->norm) &&
            !strcmp(p->dtype, peer->dtype) && p->bytes_per_elem == peer->bytes_per_elem &&
            bench_listed(g->impls, p->impl) && (!best || p->median_s < best->median_s))
            best = p;
    }
    return best;
}

/* The value goal g holds row r to; 0 when r is not one of g's rows. */
static int measure(const run_rows *all, const goal *g, const run_row *r, measured *m)
{
    if (g->threads == ONE && r->threads != 1)
        return 0;
    const run_row *p;
    m->row = r, m->against = NULL, m->peer = NULL;
    switch (g->kind) {
    case FRAC:
        m->value = r->frac;
        return !r->peer && at_width(g, r) && bench_listed(g->impls, r->impl);
    case FASTER:
        if (r->peer || !at_width(g, r) || !strcmp(r->dtype, "f32") || !bench_listed(g->impls, r->impl) ||
            !(p = f32_partner(all, r)))
            return 0;
        m->value = p->median_s / r->median_s;
        return 1;
    case SPEEDUP:
        if (r->peer || !at_width(g, r) || r->threads != 1 || !bench_listed(g->impls, r->impl) ||
            !(p = most_threads(all, r)))
            return 0;
        m->value = r->median_s / p->median_s;
        m->against = p;
        return 1;
    case PEER:
    case PEERS:
    case PEERS_SLOW:
        /* the peer's row has no width of its own: ours beside it has */
        if (!r->peer || (g->kind == PEER && strncmp(r->impl, "ort-", 4)) ||
            (g->kind == PEERS_SLOW && !(r->frac < 0.6)) || !(p = fastest_ours(all, g, r)) ||
            !at_width(g, p))
            return 0;
        m->value = r->median_s / p->median_s;
        m->row = p;
        m->against = NULL;
        m->peer = r;
        return 1;
    }
    return 0;
}

static int met(const goal *g, double v)
{
    return g->kind == FASTER || g->kind == PEERS ? v > g->at_least : v >= g->at_least;
}

static int by_value(const void *a, const void *b)
{
    double x = ((const measured *)a)->value, y = ((const measured *)b)->value;
    return (x > y) - (x < y);
}

static void print_goal(const run_rows *all, const goal *g, measured *m)
{
    size_t n = 0, ok = 0;
    for (size_t i = 0; i < all->n; i++)
        if (measure(all, g, &all->row[i], &m[n]))
            ok += met(g, m[n++].value);
    char want[16];
    snprintf(want, sizeof want, "%s %.2f", g->kind == FASTER || g->kind == PEERS ? ">" : ">=",
             g->at_least);
    if (n == 0) {
        if (g->kind == PEER)
            printf("%-30s %7s  no ONNX Runtime rows (make peers)\n", g->what, want);
        else if (g->kind == PEERS || g->kind == PEERS_SLOW)
            printf("%-30s %7s  no %speer rows beside %s rows (make peers)\n", g->what, want,
                   g->kind == PEERS_SLOW ? "slow " : "", g->isa);
        else
            printf("%-30s %7s  none of its kernels in these runs\n", g->what, want);
        return;
    }
    qsort(m, n, sizeof *m, by_value);
    char count[48];
    snprintf(count, sizeof count, "%zu/%zu", ok, n);
    printf("%-30s %7s %7s %5.2f %6.2f %5.2f  %s\n", g->what, want, count, m[0].value, m[n / 2].value,
           m[n - 1].value, ok == n ? "met" : "NOT MET");
    for (size_t i = 0; i < n && i < 4 && !met(g, m[i].value); i++) {
        const run_row *r = m[i].row, *a = m[i].against, *q = m[i].peer;
        if (a) /* what memory gave the copy beside it, from one thread to a->threads */
            printf("      %.2f  %s, %zux%zu, 1 -> %zu threads, run %zu; the copy %.2f\n", m[i].value, r->impl,
                   r->rows, r->d, a->threads, r->run, a->copy_gbps / r->copy_gbps);
        else if (q && g->kind != PEER)
            printf("      %.2f  %s over %s, %zux%zu, %zu thread%s, run %zu\n", m[i].value, q->impl, r->impl,
                   r->rows, r->d, r->threads, r->threads == 1 ? "" : "s", r->run);
        else
            printf("      %.2f  %s, %zux%zu, %zu thread%s, run %zu\n", m[i].value, r->impl, r->rows, r->d,
                   r->threads, r->threads == 1 ? "" : "s", r->run);
    }
    if (ok < n)
        printf("      what limits it: %s\n", g->where);
}

int bench_goals(const bench_options *o)
{
    run_rows all = {0};
    printf("The course's goals (code/cli/bench_goals.def), out of cache (rows the bench labelled \"memory\"; the AVX2 goals "
           "only rows it ran at avx2), %zu run%s:\n", o->ngoal_files, o->ngoal_files == 1 ? "" : "s");
    for (size_t k = 0; k < o->ngoal_files; k++)
        if (!read_run(o->goal_files[k], k + 1, &all)) {
            free(all.row);
            return 2;
        }
    measured *m = malloc((all.n ? all.n : 1) * sizeof *m);
    if (!m) {
        fprintf(stderr, "normlab bench --goals: out of memory\n");
        free(all.row);
        return 2;
    }
    printf("\n%-30s %7s %7s %5s %6s %5s\n", "", "goal", "met", "low", "median", "high");
    for (size_t k = 0; k < NL_COUNT(goals); k++)
        print_goal(&all, &goals[k], m);
    printf("\nA value is one kernel at one shape and thread count in one run: its fraction\n"
           "of the copy of the same bytes; for the 16-bit kernels' speed, the f32 kernel's\n"
           "ms over theirs; for threads, one thread's ms over the most threads'; for a\n"
           "peer (ONNX Runtime; for the AVX2 goals every peer), its ms over our faster\n"
           "kernel's. Under a goal not met, its lowest values (at most four).\n");
    free(m);
    free(all.row);
    return 0;
}
