#!/usr/bin/env python3
"""train-peers.py — chapter 13's training step in PyTorch beside ours, in
one run: the same GPT-2 (LayerNorm and RMSNorm), the same initial weights,
the same batches, on one thread and on every core.

    train-peers.py --normlab build/normlab --text CORPUS [--steps N]
                   [--threads 1,2] [--csv OUT] [--force] [model options]

For each thread count and norm, in turn (ours first, then PyTorch's, the
norms alternating): `normlab train --steps N` on the corpus, from its
seeded initial weights, and PyTorch training a model built from those
weights (`normlab train --steps 0 --out` writes them) on the same
sequential batches with the same AdamW (betas 0.9, 0.95, eps 1e-8, no
weight decay).  A step is the forward pass, the backward pass and the
update; each side's ms a step is the median of steps 2 to N (the first
touches fresh memory), tokens/s follows from it.

The norms' share of a step: ours is timed inside the step (normlab train's
ms_norms column: the forward's norms and chapter 10's backward); PyTorch's
cannot be taken apart from a step the same way (RMSNorm's backward is a
composite of autograd nodes it shares with the rest of the model), so it
is the time of the model's 2L + 1 norms, forward and backward, on
activations of the step's shape, alone (F.layer_norm and F.rms_norm with
their gains, as in the model), over the step's median.

The losses are printed beside each other as a check that both trained the
same model: equal at the start to float rounding, close after N steps.
Run by `make train-peers` with the virtual environment `make peers`
builds under build/; never part of `make test`.
"""
import argparse
import csv
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time


def fail(msg):
    sys.exit("train-peers.py: " + msg)


# ------------------------------------------------------------- our side

def ours(a, norm, threads, work):
    """normlab train for N steps: (ms a step, ms in norms, first loss, last loss)."""
    out = os.path.join(work, "ours-%s-%d.csv" % (norm, threads))
    cmd = [a.normlab, "train", "--text", a.text, "--norm", norm, "--steps", str(a.steps),
           "--threads", str(threads), "--val-every", str(a.steps + 1), "--val-batches", "1",
           "--csv", out, "--force"] + model_args(a)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    ms, norms, loss = [], [], {}
    with open(out) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            step = int(r["step"])
            loss[step] = float(r["train_loss"])
            if step >= 2:
                ms.append(float(r["ms_step"]))
                norms.append(float(r["ms_norms"]))
    return statistics.median(ms), statistics.median(norms), loss[1], loss[a.steps]


def model_args(a):
    return ["--layers", str(a.layers), "--channels", str(a.channels), "--heads", str(a.heads),
            "--context", str(a.context), "--batch", str(a.batch), "--seq", str(a.seq),
            "--lr", str(a.lr), "--seed", str(a.seed)]


def initial_weights(a, norm, work):
    """The seeded model normlab starts from, as numpy arrays by llm.c's names."""
    import numpy as np
    path = os.path.join(work, "init-%s.bin" % norm)
    cmd = [a.normlab, "train", "--text", a.text, "--norm", norm, "--steps", "0", "--threads",
           "1", "--out", path, "--force"] + model_args(a)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    raw = open(path, "rb").read()
    h = struct.unpack("<256i", raw[:1024])
    # llm.c's layout (magic 20240326) or the RMSNorm model's (20261212, norm kind 3):
    # code/gpt2/format.c
    if not (h[0] == 20240326 and h[1] == 3) and not (h[0] == 20261212 and h[8] == 3):
        fail("%s: not a checkpoint normlab train writes (magic %d)" % (path, h[0]))
    T, V, L, NH, C, Vp = h[2:8]
    ln = h[0] == 20240326
    shapes = [("wte", (Vp, C)), ("wpe", (T, C)), ("ln1w", (L, C))]
    shapes += [("ln1b", (L, C))] if ln else []
    shapes += [("qkvw", (L, 3 * C, C)), ("qkvb", (L, 3 * C)), ("attprojw", (L, C, C)),
               ("attprojb", (L, C)), ("ln2w", (L, C))]
    shapes += [("ln2b", (L, C))] if ln else []
    shapes += [("fcw", (L, 4 * C, C)), ("fcb", (L, 4 * C)), ("fcprojw", (L, C, 4 * C)),
               ("fcprojb", (L, C)), ("lnfw", (C,))]
    shapes += [("lnfb", (C,))] if ln else []
    flat = np.frombuffer(raw[1024:], dtype="<f4")
    w, at = {}, 0
    for name, shape in shapes:
        n = int(np.prod(shape))
        w[name] = flat[at:at + n].reshape(shape).copy()
        at += n
    if at != flat.size:
        fail("%s: %d floats after the header, the shapes say %d" % (path, flat.size, at))
    return w, dict(T=T, V=V, L=L, NH=NH, C=C, ln=ln)


# --------------------------------------------------------- PyTorch's side

def torch_model(w, cfg):
    import torch
    import torch.nn.functional as F
    P = {k: torch.nn.Parameter(torch.from_numpy(v)) for k, v in w.items()}
    C, NH, L, V, ln = cfg["C"], cfg["NH"], cfg["L"], cfg["V"], cfg["ln"]

    def norm(x, g, b):
        if ln:
            return F.layer_norm(x, (C,), g, b, 1e-5)
        return F.rms_norm(x, (C,), g, 1e-5)

    def forward(idx, targets):
        B, T = idx.shape
        x = P["wte"][idx] + P["wpe"][:T]
        for l in range(L):
            h = norm(x, P["ln1w"][l], P["ln1b"][l] if ln else None)
            q, k, v = F.linear(h, P["qkvw"][l], P["qkvb"][l]).split(C, dim=2)
            q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + F.linear(y.transpose(1, 2).reshape(B, T, C), P["attprojw"][l], P["attprojb"][l])
            h = norm(x, P["ln2w"][l], P["ln2b"][l] if ln else None)
            h = F.gelu(F.linear(h, P["fcw"][l], P["fcb"][l]), approximate="tanh")
            x = x + F.linear(h, P["fcprojw"][l], P["fcprojb"][l])
        x = norm(x, P["lnfw"], P["lnfb"] if ln else None)
        logits = x @ P["wte"][:V].t()
        return F.cross_entropy(logits.view(-1, V), targets.reshape(-1))

    return P, forward, norm


def batches(a):
    """The sequential batches llm.c's loader cuts: step s at token s B T."""
    import torch
    data = open(a.text, "rb").read()
    data = data[:len(data) - len(data) // 10]  # normlab train holds out the last tenth
    n = a.batch * a.seq
    per_epoch = (len(data) - 1) // n
    for s in range(a.steps):
        k = s % per_epoch
        chunk = torch.tensor(list(data[k * n:k * n + n + 1]), dtype=torch.long)
        yield chunk[:-1].view(a.batch, a.seq), chunk[1:].view(a.batch, a.seq)


def theirs(a, norm, threads, work):
    import torch
    torch.set_num_threads(threads)
    w, cfg = initial_weights(a, norm, work)
    P, forward, norm_fn = torch_model(w, cfg)
    opt = torch.optim.AdamW(P.values(), lr=a.lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    ms, losses = [], []
    for step, (x, y) in enumerate(batches(a), 1):
        t0 = time.perf_counter()
        loss = forward(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        dt = (time.perf_counter() - t0) * 1e3
        losses.append(loss.item())
        if step >= 2:
            ms.append(dt)
    # the model's 2L + 1 norms, forward and backward, on the step's activations
    rows, C = a.batch * a.seq, cfg["C"]
    g = torch.ones(C, requires_grad=True)
    b = torch.zeros(C, requires_grad=True) if cfg["ln"] else None
    xs = torch.randn(rows, C, requires_grad=True)
    dy = torch.randn(rows, C)
    count = 2 * cfg["L"] + 1
    norm_ms = []
    for _ in range(max(5, a.steps // 2)):
        t0 = time.perf_counter()
        for _ in range(count):
            norm_fn(xs, g, b).backward(dy)
        norm_ms.append((time.perf_counter() - t0) * 1e3)
    return (statistics.median(ms), statistics.median(norm_ms), losses[0], losses[-1],
            torch.__version__.split("+")[0])


def norm_ops():
    """What PyTorch runs for one norm, forward and backward, by its profiler."""
    import torch
    import torch.nn.functional as F
    from torch.profiler import profile, ProfilerActivity
    x = torch.randn(256, 128, requires_grad=True)
    g = torch.ones(128, requires_grad=True)
    b = torch.zeros(128, requires_grad=True)
    calls = {"layernorm": lambda: F.layer_norm(x, (128,), g, b, 1e-5),
             "rmsnorm": lambda: F.rms_norm(x, (128,), g, 1e-5)}
    dy = torch.randn(256, 128)
    for norm, call in calls.items():
        call().backward(dy)
        with profile(activities=[ProfilerActivity.CPU]) as p:
            y = call()
        fwd = sorted({e.key for e in p.key_averages()
                      if e.key.startswith("aten::") and e.key not in QUIET})
        with profile(activities=[ProfilerActivity.CPU]) as p:
            y.backward(dy)
        bwd = sorted({e.key for e in p.key_averages()
                      if e.key.endswith(("Backward0", "Backward1")) and "::" not in e.key})
        print("torch %s %s: forward %s; backward %s" % (
            torch.__version__.split("+")[0], norm, " ".join(fwd), " ".join(bwd)))


# bookkeeping operations the profiler lists beside the arithmetic
QUIET = {"aten::empty", "aten::empty_strided", "aten::view", "aten::as_strided",
         "aten::result_type", "aten::to", "aten::_to_copy", "aten::copy_", "aten::fill_",
         "aten::expand", "aten::type_as", "aten::resize_", "aten::zero_"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--normlab", required=True)
    p.add_argument("--text", required=True)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--threads", default="1,%d" % os.cpu_count())
    p.add_argument("--csv")
    p.add_argument("--force", action="store_true")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--channels", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.steps < 3:
        fail("--steps %d: at least 3 (the median is of steps 2 on)" % a.steps)
    if a.csv and os.path.exists(a.csv) and not a.force:
        fail("%s exists; not overwritten (--force to replace it)" % a.csv)
    threads = [int(t) for t in a.threads.split(",")]
    tokens = a.batch * a.seq
    rows = []
    print("%d steps of B %d x T %d = %d tokens, %d layers, %d channels; ms a step is the "
          "median of steps 2 on" % (a.steps, a.batch, a.seq, tokens, a.layers, a.channels))
    print("%-7s %-9s | %9s %8s %8s %6s | %9s %8s %8s %6s | %s" % (
        "threads", "norm", "ours ms", "tok/s", "norms ms", "share", "torch ms", "tok/s",
        "norms ms", "share", "loss at 1 and N: ours / torch"))
    with tempfile.TemporaryDirectory() as work:
        for t in threads:
            for norm in ("layernorm", "rmsnorm") if t % 2 else ("rmsnorm", "layernorm"):
                o_ms, o_norms, o_l0, o_l1 = ours(a, norm, t, work)
                t_ms, t_norms, t_l0, t_l1, version = theirs(a, norm, t, work)
                print("%-7d %-9s | %9.1f %8.0f %8.2f %5.1f%% | %9.1f %8.0f %8.2f %5.1f%% | "
                      "%.4f %.4f / %.4f %.4f" % (
                          t, norm, o_ms, tokens / o_ms * 1e3, o_norms, 100 * o_norms / o_ms,
                          t_ms, tokens / t_ms * 1e3, t_norms, 100 * t_norms / t_ms,
                          o_l0, o_l1, t_l0, t_l1), flush=True)
                rows.append(dict(threads=t, norm=norm, ours_ms=o_ms, ours_norms_ms=o_norms,
                                 torch_ms=t_ms, torch_norms_ms=t_norms, ours_loss_1=o_l0,
                                 ours_loss_n=o_l1, torch_loss_1=t_l0, torch_loss_n=t_l1,
                                 torch="torch-" + version))
    norm_ops()
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0]))
            wr.writeheader()
            wr.writerows(rows)


if __name__ == "__main__":
    main()
