/* bench_gpt2.c — chapter 12's rows of `normlab bench`: with --gpt2, the
 * norm of the original GPT-2 against the converted model's; with
 * --flashnorm, FlashNorm against RMSNorm then the matmul, and the
 * RMSNorm pass alone (see
 * code/gpt2/bench_rows.h for what each row is and how it is checked).
 * Without those flags, only the rows --impl names. */
#include <math.h>
#include <string.h>

#include "cli/bench.h"
#include "gpt2/bench_rows.h"

static double gpt2_check(const bench_entry *e, const nl_bench_data *b, int *rc)
{
    nl_gpt2_bench p;
    if ((*rc = nl_gpt2_bench_new(&p, e->impl, b)) != NL_OK)
        return NAN;
    double err = nl_gpt2_bench_validate(&p, rc);
    nl_gpt2_bench_free(&p);
    return err;
}

static int gpt2_time(const bench_entry *e, const nl_bench_data *b, size_t samples,
                     nl_bench_row *row)
{
    nl_gpt2_bench p;
    int rc = nl_gpt2_bench_new(&p, e->impl, b);
    if (rc == NL_OK)
        rc = nl_gpt2_bench_time(&p, samples, row);
    nl_gpt2_bench_free(&p);
    return rc;
}

size_t bench_gpt2_entries(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_gpt2_bench_impl *all = nl_gpt2_bench_impls(&n);
    if (!bench_wants_dtype(o, NL_DT_F32))
        return 0;
    for (size_t i = 0; i < n && k < max; i++) {
        const nl_gpt2_bench_impl *im = &all[i];
        /* --flashnorm times the norm's own pass beside the matmuls: what
         * FlashNorm can save at most, measured rather than subtracted */
        int asked = o->impls ? bench_listed(o->impls, im->name)
                  : im->widen ? o->flashnorm
                  : o->gpt2 || (o->flashnorm && !strcmp(im->name, "gpt2_rmsnorm_c"));
        if (!asked)
            continue;
        out[k++] = (bench_entry){
            .name = im->name, .norm = im->norm, .device = "cpu", .dtype = "f32",
            .bytes_per_elem = 8, .tol = 1e-5, .impl = im,
            .check = gpt2_check, .time = gpt2_time};
    }
    return k;
}

int bench_gpt2_knows(const char *name)
{
    return nl_find_gpt2_bench(name) != NULL;
}
