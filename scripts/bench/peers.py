#!/usr/bin/env python3
"""peers.py — PyTorch, JAX (XLA) and ONNX Runtime on the shapes of a
`normlab bench` CSV, against the copy roof that run measured.

    peers.py --csv OURS.csv --out PEERS.csv [--force] [--frameworks torch,jax,ort]
             [--samples N]

For every (shape, threads, dtype, norm) group of OURS.csv's rows it times
each framework's norm on the same shape, on as many cores (the process is
pinned to the first N CPUs and the framework told N threads), first
checking its output against a double-precision reference (numpy float64)
on up to 256 rows: f32 rows by the largest absolute error against the
registry's tolerance (2e-5), bf16/fp16 rows in ulps of the dtype (the
bound the Llama order is held to: 2). A peer that fails its check is
written with status "invalid" and not timed. Rows are written with
peer = 1, the framework and its version in `impl`, and the copy_gbps of
OURS.csv's rows of the same group: the roof of the same run.

Backward rows (an impl named *_bwd*, 12 bytes per element: x and dy read,
dx written) get the peers' backward on the same shape: PyTorch's
aten::native_layer_norm_backward given the forward's mean and rstd, and for
RMSNorm autograd through F.rms_norm (torch has no CPU kernel for
aten::_fused_rms_norm_backward, so the backward is its composite's), JAX's
jax.vjp of the same jitted function. Each is checked first, as our
backward is, on the batch's first 256 rows against a double reference:
the largest error of dx, dgamma and dbeta relative to the tensor's largest
magnitude, against the registry's 1e-5. ONNX Runtime's inference build has
no gradient kernels (LayerNormalizationGrad is registered only when ORT is
built for training), so it has no backward row; the CSV says so in a
comment. OUT is OURS
with the peer rows after each group's own rows, so `normlab bench --show
OUT` prints them beside ours. It is never a dependency of `make test`.

Run by `make peers` (mk/bench.mk) with the virtual environment it builds
under build/; each framework and thread count runs in a child process, so
that thread settings fixed at import time (XLA's) take effect.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

TOL_F32 = 2e-5
TOL_ULPS = 2.0
TOL_BWD = 1e-5  # the backward registry's (code/backward/registry.def)
CHECK_ROWS = 256


def fail(msg):
    sys.exit("peers.py: " + msg)


# ------------------------------------------------------------- the child

def data(rows, d, seed=7):
    import numpy as np
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3 ** 0.5, 3 ** 0.5, size=(rows, d)).astype(np.float32)
    g = (0.5 + 0.5 * rng.uniform(size=d)).astype(np.float32)
    b = (rng.uniform(size=d) - 0.5).astype(np.float32)
    return x, g, b


def to_dtype_f32(a, dtype):
    """a rounded to bf16/fp16 (round to nearest even), as float32."""
    import numpy as np
    if dtype == "f32":
        return a
    if dtype == "f16":
        return a.astype(np.float16).astype(np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32)


def reference(norm, x, g, b, eps):
    import numpy as np
    x = x.astype(np.float64)
    if norm == "RMSNorm":
        return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * g
    m = x.mean(axis=1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def ulps(dtype, got, want, scale=None):
    """Largest |got - want| in ulps of the dtype at want, or at `scale`
    where that is larger (LayerNorm: twice the bias, which its last add
    cancels, so its error is relative to the terms, not to y)."""
    import numpy as np
    mant = 8 if dtype == "bf16" else 11
    tiny = 2.0 ** (-126 if dtype == "bf16" else -14)
    at = np.abs(want) if scale is None else np.maximum(np.abs(want), scale)
    spacing = np.exp2(np.floor(np.log2(np.maximum(at, tiny))) - (mant - 1))
    return float(np.max(np.abs(got.astype(np.float64) - want) / spacing))


def torch_fn(norm, dtype, x, g, b, eps, threads):
    import torch
    torch.set_num_threads(threads)
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    tx, tg, tb = (torch.from_numpy(a).to(dt) for a in (x, g, b))
    d = x.shape[1]
    if norm == "LayerNorm":
        def run():
            return torch.nn.functional.layer_norm(tx, (d,), tg, tb, eps)
        what = "layer_norm"
    elif dtype == "f32":
        def run():
            return torch.nn.functional.rms_norm(tx, (d,), tg, eps)
        what = "rms_norm"
    else:
        # transformers' LlamaRMSNorm.forward, written out: fp32 statistics,
        # x * r rounded to the dtype, times the weight in the dtype
        def run():
            h = tx.to(torch.float32)
            var = h.pow(2).mean(-1, keepdim=True)
            h = h * torch.rsqrt(var + eps)
            return tg * h.to(dt)
        what = "llama_rms"

    def call():
        with torch.inference_mode():
            return run()
    return call, lambda y: y.to(torch.float32).numpy(), "torch-%s/%s" % (torch.__version__.split("+")[0], what)


def jax_fn(norm, dtype, x, g, b, eps, threads):
    import jax
    import jax.numpy as jnp
    dt = {"f32": jnp.float32, "bf16": jnp.bfloat16, "f16": jnp.float16}[dtype]
    jx, jg, jb = (jax.device_put(jnp.asarray(a, dtype=dt)) for a in (x, g, b))
    if norm == "LayerNorm":
        @jax.jit
        def f(x, g, b):
            h = x.astype(jnp.float32)
            m = h.mean(-1, keepdims=True)
            v = ((h - m) ** 2).mean(-1, keepdims=True)
            return ((h - m) * jax.lax.rsqrt(v + eps) * g.astype(jnp.float32)
                    + b.astype(jnp.float32)).astype(dt)
        what = "layer_norm"
    else:
        @jax.jit
        def f(x, g, b):
            h = x.astype(jnp.float32)
            h = h * jax.lax.rsqrt((h * h).mean(-1, keepdims=True) + eps)
            return g * h.astype(dt)  # Llama's rounding points
        what = "rms_norm"

    def call():
        return f(jx, jg, jb).block_until_ready()
    import numpy as np
    return call, lambda y: np.asarray(y.astype(jnp.float32)), "jax-%s/%s" % (jax.__version__, what)


def ort_fn(norm, dtype, x, g, b, eps, threads):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    if dtype != "f32":
        return None  # ORT's CPU norms are fp32 (and fp16 only in some builds)
    d = x.shape[1]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", d]),
              helper.make_tensor_value_info("g", TensorProto.FLOAT, [d])]
    if norm == "LayerNorm":
        inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, [d]))
        node = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1, epsilon=eps)
        opset, what = 17, "LayerNorm"
    else:
        node = helper.make_node("RMSNormalization", ["x", "g"], ["y"], axis=-1, epsilon=eps)
        opset, what = 23, "RMSNorm"
    graph = helper.make_graph([node], "norm", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", d])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    feed = {"x": x, "g": g}
    if norm == "LayerNorm":
        feed["b"] = b
    out = [None]

    def call():
        out[0] = sess.run(["y"], feed)[0]
        return out[0]
    return call, lambda y: y, "ort-%s/%s" % (ort.__version__, what)


def is_backward(impl):
    return "_bwd" in impl


def backward_data(x):
    """dy as the bench makes it: x one row further on (so that dy is not x)."""
    import numpy as np
    return np.roll(x, -1, axis=0)


def reference_bwd(norm, x, g, dy, eps):
    """dx, dgamma and (LayerNorm) dbeta in double, from the formula."""
    import numpy as np
    x, g, dy = (a.astype(np.float64) for a in (x, g, dy))
    if norm == "RMSNorm":
        r = 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps)
        xh = x * r
    else:
        m = x.mean(axis=1, keepdims=True)
        r = 1.0 / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + eps)
        xh = (x - m) * r
    gy = dy * g
    proj = (gy * xh).mean(axis=1, keepdims=True)
    if norm == "RMSNorm":
        dx = r * (gy - xh * proj)
        return dx, (dy * xh).sum(axis=0)
    dx = r * (gy - gy.mean(axis=1, keepdims=True) - xh * proj)
    return dx, (dy * xh).sum(axis=0), dy.sum(axis=0)


def rel_err(got, want):
    """The bench's measure for a gradient: worst |got - want| over the
    tensor's largest |want| (nl_grad_rel_err)."""
    import numpy as np
    scale = float(np.max(np.abs(want)))
    worst = float(np.max(np.abs(got.astype(np.float64) - want)))
    return worst / scale if scale > 0 else worst


def torch_bwd(norm, x, g, b, dy, eps, threads):
    """A call that runs the backward alone (the forward's saved tensors
    made beforehand, as our kernels are given mean and rstd)."""
    import torch
    torch.set_num_threads(threads)
    tx, tg, tb, tdy = (torch.from_numpy(a) for a in (x, g, b, dy))
    d = x.shape[1]
    if norm == "LayerNorm":
        _, mean, rstd = torch.ops.aten.native_layer_norm(tx, [d], tg, tb, eps)

        def call():
            with torch.no_grad():
                return torch.ops.aten.native_layer_norm_backward(
                    tdy, tx, [d], mean, rstd, tg, tb, [True, True, True])
        what = "layer_norm_bwd"
    else:
        xr, gr = tx.clone().requires_grad_(), tg.clone().requires_grad_()
        y = torch.nn.functional.rms_norm(xr, (d,), gr, eps)

        def call():
            return torch.autograd.grad(y, (xr, gr), tdy, retain_graph=True)
        what = "rms_norm_autograd"
    return call, lambda out: tuple(t.numpy() for t in out), \
        "torch-%s/%s" % (torch.__version__.split("+")[0], what)


def jax_bwd(norm, x, g, b, dy, eps, threads):
    """jax.vjp of the forward, jitted whole: XLA recomputes the statistics
    from x inside the backward (nothing is saved between the two calls)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    jx, jg, jb, jdy = (jax.device_put(jnp.asarray(a)) for a in (x, g, b, dy))
    if norm == "LayerNorm":
        def f(x, g, b):
            m = x.mean(-1, keepdims=True)
            v = ((x - m) ** 2).mean(-1, keepdims=True)
            return (x - m) * jax.lax.rsqrt(v + eps) * g + b
        bwd = jax.jit(lambda x, g, b, dy: jax.vjp(f, x, g, b)[1](dy))
        args = (jx, jg, jb, jdy)
    else:
        def f(x, g):
            return x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + eps) * g
        bwd = jax.jit(lambda x, g, dy: jax.vjp(f, x, g)[1](dy))
        args = (jx, jg, jdy)

    def call():
        return jax.block_until_ready(bwd(*args))
    return call, lambda out: tuple(np.asarray(t) for t in out), "jax-%s/vjp_%s" % (
        jax.__version__, "layer_norm" if norm == "LayerNorm" else "rms_norm")


def ort_bwd(norm, x, g, b, dy, eps, threads):
    import onnxruntime as ort
    return ("ONNX Runtime %s (the inference package) has no backward rows: its CPU build "
            "registers no gradient kernel (LayerNormalizationGrad is built only with "
            "ENABLE_TRAINING_OPS, in onnxruntime-training)" % ort.__version__)


BACKWARD = {"torch": torch_bwd, "jax": jax_bwd, "ort": ort_bwd}


FRAMEWORKS = {"torch": torch_fn, "jax": jax_fn, "ort": ort_fn}


def timed(call, samples):
    """Two warm-up calls, then `samples` timed ones: median, p10, p90."""
    for _ in range(2):
        call()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    times.sort()
    q = lambda p: times[min(len(times) - 1, int(p * (len(times) - 1) + 0.5))]
    return dict(status="ok", samples=len(times), median_s=q(0.5), p10_s=q(0.1), p90_s=q(0.9))


def forward_row(spec, grp, row):
    """The forward peer of one group, checked then timed; None: no such peer."""
    import numpy as np
    rows, d, dtype, norm, t = grp["rows"], grp["d"], grp["dtype"], grp["norm"], spec["threads"]
    eps = 1e-5
    x, g, b = data(rows, d)
    xq, gq, bq = (to_dtype_f32(a, dtype) for a in (x, g, b))
    made = FRAMEWORKS[spec["framework"]](norm, dtype, xq, gq, bq, eps, t)
    if made is None:
        return None
    call, as_np, name = made
    row.update(impl=name)
    y = as_np(call())
    k = min(rows, CHECK_ROWS)
    pick = np.linspace(0, rows - 1, k).astype(int)
    want = reference(norm, xq[pick], gq, bq, eps)
    if dtype == "f32":
        err, tol = float(np.max(np.abs(y[pick] - want))), TOL_F32
    else:
        scale = 2 * np.abs(bq.astype(np.float64)) if norm == "LayerNorm" else None
        err, tol = ulps(dtype, y[pick], want, scale), TOL_ULPS
    row.update(max_err=err, tol=tol)
    del y
    if not err <= tol:
        return dict(row, status="invalid")
    return dict(row, **timed(call, spec["samples"]))


def backward_row(spec, grp, row, notes):
    """The backward peer of one group: checked on the first CHECK_ROWS rows
    (dgamma sums over the batch, so the check runs its own small batch, as
    the bench's does), then timed on the whole shape."""
    rows, d, norm, t = grp["rows"], grp["d"], grp["norm"], spec["threads"]
    eps = 1e-5
    if grp["dtype"] != "f32":
        return None  # our backward kernels are f32
    x, g, b = data(rows, d)
    k = min(rows, CHECK_ROWS)
    xs = x[:k].copy()
    dys = backward_data(xs)
    made = BACKWARD[spec["framework"]](norm, xs, g, b, dys, eps, t)
    if isinstance(made, str):
        if made not in notes:
            notes.append(made)
        return None
    call, as_np, name = made
    row.update(impl=name)
    got = as_np(call())
    want = reference_bwd(norm, xs, g, dys, eps)
    err = max(rel_err(gt, w) for gt, w in zip(got, want))
    row.update(max_err=err, tol=TOL_BWD)
    del call, got
    if not err <= TOL_BWD:
        return dict(row, status="invalid")
    call, _, _ = BACKWARD[spec["framework"]](norm, x, g, b, backward_data(x), eps, t)
    return dict(row, **timed(call, spec["samples"]))


def child(spec):
    """One framework, one thread count, every group of the spec: JSON rows."""
    t = spec["threads"]
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:t])
    out, notes = [], []
    for grp in spec["groups"]:
        row = dict(grp, threads=t, impl=spec["framework"])
        try:
            if grp["pass"] == "bwd":
                made = backward_row(spec, grp, row, notes)
            else:
                made = forward_row(spec, grp, row)
        except Exception as e:  # a peer that cannot run this is a row that says so
            made = dict(row, status="error", why=str(e).splitlines()[0][:200])
        if made is not None:
            out.append(made)
    json.dump({"rows": out, "notes": notes}, sys.stdout)


# ------------------------------------------------------------ the parent

def group_key(r):
    """Rows that share a roof and a peer: shape, threads, dtype, norm and
    whether they are forward or backward."""
    return (int(r["rows"]), int(r["d"]), int(r["threads"]), r["dtype"] or "f32", r["norm"],
            "bwd" if is_backward(r["impl"]) else "fwd")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", required=True, help="a normlab bench CSV (our rows, their copy roof)")
    ap.add_argument("--out", required=True, help="the CSV to write: ours and the peers")
    ap.add_argument("--force", action="store_true", help="replace --out if it exists")
    ap.add_argument("--frameworks", default="torch,jax,ort")
    ap.add_argument("--samples", type=int, default=9)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(json.loads(a.child))
    if os.path.exists(a.out) and not a.force:
        fail("%s already exists; not overwriting it (choose another name, or add --force)" % a.out)
    if os.path.abspath(a.out) == os.path.abspath(a.csv):
        fail("--out must differ from --csv: the run's own CSV is read, never rewritten")
    wanted = [f for f in a.frameworks.split(",") if f]
    for f in wanted:
        if f not in FRAMEWORKS:
            fail("unknown framework '%s' (torch, jax, ort)" % f)
    with open(a.csv) as fh:
        lines = fh.read().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    if not body:
        fail("%s has no CSV header" % a.csv)
    header = body[0].split(",")
    rows = list(csv.DictReader(body))
    for need in ("impl", "norm", "rows", "d", "threads", "dtype", "copy_gbps", "bytes_per_elem"):
        if need not in header:
            fail("%s has no column '%s'" % (a.csv, need))
    # groups in file order, with the copy roof of their own rows
    groups, order = {}, []
    for r in rows:
        if r.get("device", "cpu") not in ("cpu", "") or r.get("peer") == "1":
            continue
        key = group_key(r)
        if key not in groups:
            groups[key] = {"roofs": [], "regime": r.get("regime", ""), "bpe": r["bytes_per_elem"],
                           "roof": r.get("roof", "")}
            order.append(key)
        try:
            groups[key]["roofs"].append(float(r["copy_gbps"]))
        except ValueError:
            pass
    if not order:
        fail("%s has no CPU rows to stand beside" % a.csv)
    load_before = os.getloadavg()
    versions, peer_rows, notes = [], {}, []
    threads = sorted({k[2] for k in order})
    for fw in wanted:
        for t in threads:
            spec = {"framework": fw, "threads": t, "samples": a.samples,
                    "groups": [{"rows": k[0], "d": k[1], "dtype": k[3], "norm": k[4], "pass": k[5]}
                               for k in order if k[2] == t]}
            # the caller's XLA flags (an ISA cap: simd-goals.sh) after the threads'
            env = dict(os.environ, OMP_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t),
                       XLA_FLAGS="--xla_cpu_multi_thread_eigen=%s intra_op_parallelism_threads=%d%s"
                       % ("false" if t == 1 else "true", t,
                          " " + os.environ["XLA_FLAGS"] if os.environ.get("XLA_FLAGS") else ""),
                       JAX_PLATFORMS="cpu")
            print("peers: %s on %d thread%s, %d groups" % (fw, t, "" if t == 1 else "s",
                                                            len(spec["groups"])), file=sys.stderr)
            p = subprocess.run([sys.executable, __file__, "--csv", a.csv, "--out", a.out,
                                "--child", json.dumps(spec)], env=env, capture_output=True, text=True)
            if p.returncode != 0:
                last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
                print("peers: %s skipped: %s" % (fw, last), file=sys.stderr)
                break
            got = json.loads(p.stdout)
            notes += [n for n in got["notes"] if n not in notes]
            for r in got["rows"]:
                key = (r["rows"], r["d"], r["threads"], r["dtype"], r["norm"], r["pass"])
                peer_rows.setdefault(key, []).append(r)
                v = r["impl"].split("/")[0]
                if v not in versions:
                    versions.append(v)
    with open(a.out, "w", newline="") as fh:
        for c in comments:
            fh.write(c + "\n")
        fh.write("# peers: %s, timed by scripts/bench/peers.py against this run's copy roof\n"
                 % (", ".join(versions) or "none could run"))
        for n in notes:
            fh.write("# peers: %s\n" % n)
        fh.write("# load: 1/5/15-minute load average %.2f %.2f %.2f when the peers started, "
                 "%.2f %.2f %.2f when they ended (a shared machine: compare fractions of copy)\n"
                 % (load_before + os.getloadavg()))
        fh.write(",".join(header) + "\n")
        w = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore", lineterminator="\n")
        # each group's peers after the group's last row of ours
        last = {group_key(r): i for i, r in enumerate(rows)}
        for i, r in enumerate(rows):
            w.writerow(r)
            key = group_key(r)
            if key in groups and last[key] == i:
                g = groups[key]
                roofs = sorted(g["roofs"])
                roof = roofs[len(roofs) // 2] if roofs else float("nan")
                for p in peer_rows.get(key, []):
                    w.writerow(peer_csv_row(p, g, roof))
    print("peers: wrote %s" % a.out, file=sys.stderr)


def peer_csv_row(p, g, roof):
    bpe = float(g["bpe"])
    row = {"impl": p["impl"], "norm": p["norm"], "rows": p["rows"], "d": p["d"],
           "threads": p["threads"], "peer": 1, "status": p["status"], "device": "cpu",
           "dtype": p["dtype"], "bytes_per_elem": g["bpe"], "regime": g["regime"],
           "roof": g["roof"], "copy_gbps": "%.3f" % roof, "reps": 1,
           "samples": p.get("samples", 0),
           "max_err": "%.3e" % p["max_err"] if "max_err" in p else "",
           "tol": "%.1e" % p["tol"] if "tol" in p else ""}
    if p["status"] == "ok":
        moved = p["rows"] * p["d"] * bpe
        gbps = moved / p["median_s"] / 1e9
        row.update(median_s="%.6e" % p["median_s"], p10_s="%.6e" % p["p10_s"],
                   p90_s="%.6e" % p["p90_s"], gbps="%.3f" % gbps,
                   frac_copy="%.4f" % (gbps / roof),
                   frac_p10="%.4f" % (moved / p["p90_s"] / 1e9 / roof),
                   frac_p90="%.4f" % (moved / p["p10_s"] / 1e9 / roof))
    return row


if __name__ == "__main__":
    main()
