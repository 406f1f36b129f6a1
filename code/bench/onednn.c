/* onednn.c — Intel's oneDNN as a peer: its layer normalization, timed on
 * the same shapes and threads as ours, so "fast" is measured against a
 * library people ship, not only against our own naive loop.
 *
 * oneDNN 2.6 has no RMSNorm: its normalization flags are use_global_stats,
 * use_scaleshift, fuse_norm_relu, use_scale and use_shift, and none of
 * them skips the mean.  So the peer is LayerNorm only.
 *
 * Built with -DNL_HAVE_DNNL (mk/bench.mk sets it when dnnl.h is found);
 * without it every entry point reports "oneDNN not installed". */
#include "bench/bench.h"

#ifdef NL_HAVE_DNNL

#include <dnnl.h>
#include <stdio.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* One cached primitive: building one costs far more than running it on a
 * small shape, and a real framework builds it once per layer too. */
static struct {
    int ready;
    size_t rows, d;
    int threads;
    float eps;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_t prim;
    dnnl_memory_desc_t data_md, param_md;
    dnnl_memory_t mem[4]; /* src, dst, scale, shift: handles set per call */
} peer;

static const int mem_arg[4] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE, DNNL_ARG_SHIFT};

const char *nl_onednn_unavailable(void) { return NULL; }

const char *nl_onednn_version(void)
{
    static char text[48];
    const dnnl_version_t *v = dnnl_version();
    snprintf(text, sizeof text, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
    return text;
}

void nl_onednn_release(void)
{
    for (int i = 0; i < 4; i++) {
        if (peer.mem[i])
            dnnl_memory_destroy(peer.mem[i]);
        peer.mem[i] = NULL;
    }
    if (peer.prim)
        dnnl_primitive_destroy(peer.prim);
    if (peer.stream)
        dnnl_stream_destroy(peer.stream);
    if (peer.engine)
        dnnl_engine_destroy(peer.engine);
    peer.prim = NULL;
    peer.stream = NULL;
    peer.engine = NULL;
    peer.ready = 0;
}

static int fail(const char *what, dnnl_status_t st)
{
    nl_set_error("oneDNN: %s failed (status %d)", what, (int)st);
    return NL_EDEVICE;
}

static int current_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

// @snippet onednn-layernorm-setup
static int build(size_t rows, size_t d, float eps)
{
    dnnl_status_t st;
    nl_onednn_release();
    if ((st = dnnl_engine_create(&peer.engine, dnnl_cpu, 0)) != dnnl_success)
        return fail("engine", st);
    if ((st = dnnl_stream_create(&peer.stream, peer.engine, dnnl_stream_default_flags)) != dnnl_success)
        return fail("stream", st);

    /* rows x d, row-major ("ab"): oneDNN normalizes over the last axis. */
    dnnl_dims_t data_dims = {(dnnl_dim_t)rows, (dnnl_dim_t)d};
    dnnl_dims_t param_dims = {(dnnl_dim_t)d};
    if ((st = dnnl_memory_desc_init_by_tag(&peer.data_md, 2, data_dims, dnnl_f32, dnnl_ab)) != dnnl_success ||
        (st = dnnl_memory_desc_init_by_tag(&peer.param_md, 1, param_dims, dnnl_f32, dnnl_a)) != dnnl_success)
        return fail("memory descriptor", st);

    /* Inference: the statistics are computed and used, not stored.
     * Scale and shift are gamma and beta, as separate vectors. */
    dnnl_layer_normalization_desc_t desc;
    if ((st = dnnl_layer_normalization_forward_desc_init(
             &desc, dnnl_forward_inference, &peer.data_md, NULL, eps,
             dnnl_use_scale | dnnl_use_shift)) != dnnl_success)
        return fail("layer normalization descriptor", st);

    dnnl_primitive_desc_t pd;
    if ((st = dnnl_primitive_desc_create(&pd, &desc, NULL, peer.engine, NULL)) != dnnl_success)
        return fail("primitive descriptor", st);
    st = dnnl_primitive_create(&peer.prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success)
        return fail("primitive", st);

    /* Memory objects that will only wrap the caller's pointers: no copies. */
    for (int i = 0; i < 4; i++)
        if ((st = dnnl_memory_create(&peer.mem[i], i < 2 ? &peer.data_md : &peer.param_md,
                                     peer.engine, DNNL_MEMORY_NONE)) != dnnl_success)
            return fail("memory", st);
    return 0;
}
// @end

int nl_onednn_layernorm(const float *x, const float *gamma, const float *beta,
                        float eps, size_t rows, size_t d, float *y)
{
    if (rows == 0)
        return 0;
    /* oneDNN's OpenMP runtime splits work by the thread count it sees
     * when the primitive is created, so a new count means a new one. */
    int threads = current_threads();
    if (!peer.ready || peer.rows != rows || peer.d != d || peer.eps != eps ||
        peer.threads != threads) {
        int rc = build(rows, d, eps);
        if (rc)
            return rc;
        peer.ready = 1;
        peer.rows = rows;
        peer.d = d;
        peer.eps = eps;
        peer.threads = threads;
    }

    void *ptr[4] = {(void *)x, y, (void *)gamma, (void *)beta};
    dnnl_exec_arg_t args[4];
    dnnl_status_t st;
    for (int i = 0; i < 4; i++) {
        if ((st = dnnl_memory_set_data_handle(peer.mem[i], ptr[i])) != dnnl_success)
            return fail("set data handle", st);
        args[i].arg = mem_arg[i];
        args[i].memory = peer.mem[i];
    }
    st = dnnl_primitive_execute(peer.prim, peer.stream, 4, args);
    if (st == dnnl_success)
        st = dnnl_stream_wait(peer.stream);
    return st == dnnl_success ? 0 : fail("execute", st);
}

#else /* !NL_HAVE_DNNL */

const char *nl_onednn_unavailable(void)
{
    return "oneDNN not installed";
}

const char *nl_onednn_version(void) { return ""; }

void nl_onednn_release(void) {}

int nl_onednn_layernorm(const float *x, const float *gamma, const float *beta,
                        float eps, size_t rows, size_t d, float *y)
{
    (void)x, (void)gamma, (void)beta, (void)eps, (void)rows, (void)d, (void)y;
    nl_set_error("%s", nl_onednn_unavailable());
    return NL_EUNAVAIL;
}

#endif
