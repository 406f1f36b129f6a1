#!/usr/bin/env python3
"""placement.py — where each family puts its norms in a block, measured.

The census (census.py) records which norm modules a model builds, not the
order they run in.  This runs the small model of every measured row on the
CPU, with real random weights, and watches each block of its layer stacks:
the block's input and output, every norm's input and output, and the output
of every other module inside the block that has the stream's shape (the
sublayers: attention, MLP, MoE, mixer).  Each norm of the stream's width is
then classified by what it reads and what the residual stream carries on
with, tested on the tensors themselves, never on module names:

  pre   reads the stream, and the stream goes on from its input
        (x + F(N(x)): GPT-2, Llama)
  post  reads a sublayer's output before the residual add
        (x + N(F(x)): OLMo 2, EXAONE 4, Gemma 2's post norms)
  add   reads the stream after an add, and the stream goes on from its
        output (N(x + F(x)): the original Transformer, BERT)

A block is "pre", "post", "add", or "sandwich" (pre and post both).  Norms
narrower than the stream (QK-norms, a Mamba mixer's gated norm) are inside
a sublayer and not part of the placement.

Writes code/config/placement.def (one NL_PLACEMENT_ROW per measured row)
and build/census/placement.log (progress).  Run with the census's venv:
scripts/census/run.sh --placement.  --only a,b redoes those rows.
"""
import argparse
import itertools
import os
import re
import signal
import sys
import time

import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import census  # noqa: E402  (the same small builds the census made)

ROW = re.compile(r'^NL_CENSUS_ROW\("([^"]+)", "[^"]*", "[^"]*", "ok"')
TIME_BOX = int(os.environ.get("CENSUS_TIME_BOX", "90"))


def close(a, b, tol=1e-6):
    if a is None or b is None or a.numel() != b.numel():
        return False
    a, b = a.reshape(-1), b.reshape(-1)
    scale = float(b.abs().max()) + 1e-12
    return bool(((a - b).abs().max() / scale) < tol)


def first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (tuple, list)):
        for v in x:
            t = first_tensor(v)
            if t is not None:
                return t
    if hasattr(x, "to_tuple"):
        return first_tensor(x.to_tuple())
    return None


def blocks_of(model):
    """The layer stacks: every ModuleList whose elements hold a norm, not
    nested in another such list's element (T5's block.*, not block.*.layer)."""
    stacks = []
    for path, mod in model.named_modules():
        if not isinstance(mod, torch.nn.ModuleList) or len(mod) == 0:
            continue
        if any(path.startswith(p + ".") for p, _ in stacks):
            continue
        if any(census.is_norm(m) for el in mod for m in el.modules()):
            stacks.append((path, mod))
    return stacks


class Watch:
    """Events inside one block while the model runs."""

    def __init__(self, block):
        self.block = block
        self.events = []   # ("norm", path, input, output) / ("out", path, output)
        self.x = self.y = None
        self.handles = []

    def attach(self):
        def pre(mod, args, kwargs):
            if self.x is None:
                t = first_tensor(args) if args else None
                if t is None or not t.is_floating_point():
                    t = kwargs.get("hidden_states")
                self.x = t.detach().clone() if t is not None else None

        def post(mod, args, kwargs, out):
            if self.y is None:
                t = first_tensor(out)
                self.y = t.detach().clone() if t is not None else None

        self.handles.append(self.block.register_forward_pre_hook(pre, with_kwargs=True))
        self.handles.append(self.block.register_forward_hook(post, with_kwargs=True))
        for path, m in self.block.named_modules():
            if m is self.block:
                continue
            if census.is_norm(m):
                def hook(mod, args, out, path=path):
                    a, b = first_tensor(args), first_tensor(out)
                    if a is not None and b is not None:
                        self.events.append(("norm", path, a.detach().clone(), b.detach().clone()))
            else:
                def hook(mod, args, out, path=path):
                    t = first_tensor(out)
                    if t is not None and t.is_floating_point():
                        self.events.append(("out", path, t.detach().clone()))
            self.handles.append(m.register_forward_hook(hook))

    def detach(self):
        for h in self.handles:
            h.remove()


def smallest_fit(d, since, scale, tol=1e-7):
    """The fewest stream-shaped tensors of since whose combination is d (a
    residual add, possibly scaled: Granite's residual_multiplier), or None."""
    y = d.reshape(-1)
    if float(y.abs().max()) <= tol * 1e-2 * scale:
        return []
    for k in (1, 2, 3):
        for combo in itertools.combinations(since, k):
            A = torch.stack([t.reshape(-1) for t in combo], 1)
            sol = torch.linalg.lstsq(A, y.unsqueeze(1)).solution
            r = y - (A @ sol).squeeze(1)
            if float(r.abs().max()) <= tol * scale and all(abs(float(c)) > 1e-6 for c in sol):
                return list(combo)
    return None


def classify_block(w):
    """Roles of the stream-width norms of one block, in the order they ran
    ("pre", "post", "add"), or raises ValueError saying what did not fit.

    The stream is "seen" at the block's input, at its output, and wherever
    a norm reads it: as it was, or after adds of sublayer outputs.  Between
    two sightings, the tensors of the stream's shape that appeared (module
    outputs, and the outputs of norms that did not read the stream) are the
    candidates for what was added.  A norm that read the stream is pre if
    the stream goes on from its input, add if from its output; a norm that
    did not read it is post if its output is one of the things added, and
    inside a sublayer (OLMo 2's q_norm over the whole projection) if not."""
    if w.x is None or w.y is None:
        raise ValueError("the block's input or output was not seen")
    width, shape = w.x.shape[-1], w.x.shape
    scale = float(w.x.abs().max()) + 1.0
    # float32 where a kernel has no float64: rounding, not structure, then
    # limits how well an add is reproduced.
    tol = 1e-7 if w.x.dtype == torch.float64 else 1e-3
    stream = w.x
    since, posts, roles = [], [], []
    pending = None   # (index, input, output) of a norm that read the stream

    def remember(t):
        """t into since (as the stream's shape), or the tensor already there
        that it equals; None when it is not of the stream's size."""
        # Token-flattened outputs ((tokens, width): OPT's fc2, MoE blocks) count too.
        if t.shape[-1] != width or t.numel() != w.x.numel():
            return None
        if t.shape != shape:
            t = t.reshape(shape)
        for s in since:
            if close(t, s, tol * 10):
                return s
        since.append(t)
        return t

    def sight(obs, where):
        nonlocal stream, pending, since, posts
        bases = [("pre", pending[1]), ("add", pending[2])] if pending else [("", stream)]
        for role, base in bases:
            combo = smallest_fit(obs - base, since[-14:], scale, tol)
            if combo is not None:
                break
        else:
            return False
        if pending:
            roles[pending[0]] = role
        for i, b in posts:
            roles[i] = "post" if any(t is b for t in combo) else None
        stream, pending, since, posts = obs, None, [], []
        return True

    for ev in w.events:
        if ev[0] == "out":
            remember(ev[2])
            continue
        _, path, a, b = ev
        if a.shape[-1] != width or a.numel() != w.x.numel():
            continue
        a, b = a.reshape(shape), b.reshape(shape)
        roles.append("?")
        i = len(roles) - 1
        if sight(a, path):
            pending = (i, a, b)
        else:
            kept = remember(b)
            posts.append((i, kept))
            since = [t for t in since if t is not kept] + [kept]
    if not sight(w.y, "output"):
        raise ValueError("the block's output is not its input plus what its sublayers made")
    if any(r == "?" for r in roles):
        raise ValueError("a norm's role could not be settled")
    return [r for r in roles if r]


def summarise(roles):
    kinds = set(roles)
    if not kinds:
        return "none"
    if kinds == {"pre"}:
        return "pre"
    if kinds == {"post"}:
        return "post"
    if kinds == {"add"}:
        return "add"
    if kinds == {"pre", "post"}:
        return "sandwich"
    return "mixed"


def inputs_for(model, cfg):
    torch.manual_seed(0)
    vocab = getattr(cfg, "vocab_size", None) or 64
    ids = torch.randint(0, min(int(vocab), 50), (1, 5))
    name = getattr(model, "main_input_name", "input_ids")
    tries = []
    if name == "input_ids":
        tries.append({"input_ids": ids})
        tries.append({"input_ids": ids, "decoder_input_ids": ids})
    elif name == "pixel_values":
        size = getattr(cfg, "image_size", 32)
        size = size if isinstance(size, int) else size[0]
        ch = getattr(cfg, "num_channels", 3)
        tries.append({"pixel_values": torch.randn(1, ch, size, size, dtype=torch.float64)})
    else:
        tries.append({})
    return tries


def randomise(model):
    """Real values everywhere: some families start a branch at zero, which
    would make a sublayer's output indistinguishable from none."""
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point():
                p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * (0.2 if p.ndim > 1 else 0.5)
                        + (1.0 if p.ndim == 1 else 0.0))


def builds(cls_cfg, kw):
    """The small build, then variants for a forward that fails where a
    meta build did not: float32 for kernels without float64, and sizes
    made consistent (a rotary width over the head width, Mamba groups that
    do not divide its heads)."""
    yield kw, torch.float64
    yield kw, torch.float32
    cfg = cls_cfg(**kw)
    d = cfg.to_dict()
    heads = next((d[k] for k in census.SIZES[1][0] if isinstance(d.get(k), int)), None)
    hidden = next((d[k] for k in census.SIZES[0][0] if isinstance(d.get(k), int)), None)
    fix = {}
    if heads and hidden:
        head = d.get("head_dim") if isinstance(d.get("head_dim"), int) else hidden // heads
        fix.update({k: head for k, v in d.items() if "rotary_dim" in k and isinstance(v, int)})
    fix.update({k: 1 for k in ("n_groups", "mamba_n_groups") if isinstance(d.get(k), int)})
    # MLA's rotary part is its own width (DeepSeek's qk_rope_head_dim).
    if isinstance(d.get("qk_rope_head_dim"), int) and isinstance(d.get("head_dim"), int):
        fix["head_dim"] = d["qk_rope_head_dim"]
    if fix:
        yield {**kw, **fix}, torch.float64
        yield {**kw, **fix}, torch.float32
    # Four heads of 24, two key-value heads: for code that splits heads in
    # fours (CodeGen's mp_num) or ties a rotary width to them.
    heads4 = {k: 4 for k in census.SIZES[1][0] if isinstance(d.get(k), int)}
    heads4.update({k: 2 for k in census.SIZES[2][0] if isinstance(d.get(k), int)})
    if heads4:
        yield {**kw, **fix, **heads4}, torch.float64
        yield {**kw, **fix, **heads4}, torch.float32


def run_forward(cls_cfg, kw, dtype):
    cfg = cls_cfg(**kw)
    try:
        # The plain loop over experts, which runs in float64 (grouped_mm does not).
        cfg._experts_implementation = "eager"
    except Exception:
        pass
    mcls = census.model_class_for(cfg)
    model = mcls(cfg).to(dtype).eval()
    randomise(model)
    stacks = blocks_of(model)
    watches = []
    for path, ml in stacks:
        for i, blk in enumerate(ml):
            w = Watch(blk)
            w.attach()
            watches.append((f"{path}.{i}", w))
    err = "no input tried"
    try:
        for inp in inputs_for(model, cfg):
            for _, w in watches:
                w.events.clear()
                w.x = w.y = None
            try:
                with torch.no_grad():
                    model(**{k: (v.to(dtype) if v.is_floating_point() else v) for k, v in inp.items()})
                return stacks, watches, None
            except Exception as ex:
                err = f"{type(ex).__name__}: {str(ex).splitlines()[0][:100] if str(ex) else ''}"
    finally:
        for _, w in watches:
            w.detach()
    return stacks, watches, err


def place_one(mt):
    cls_cfg = CONFIG_MAPPING[mt]
    kw = census.shrink_kwargs(cls_cfg)
    first = None
    for bkw, dtype in builds(cls_cfg, kw):
        stacks, watches, err = run_forward(cls_cfg, bkw, dtype)
        if not stacks:
            return "none", "", "no layer stack holds a norm"
        first = first or err
        if err is None:
            break
    if err:
        return "failed", "", f"forward failed: {first}"
    per_stack = {}
    why = []
    for name, w in watches:
        stack = name.rsplit(".", 1)[0]
        if w.x is None:
            continue  # a block this input did not reach (MTP layers, a decoder left unrun)
        try:
            roles = classify_block(w)
        except ValueError as ex:
            why.append(f"{name}: {ex}")
            continue
        per_stack.setdefault(stack, []).append(",".join(roles))
    if not per_stack:
        return "failed", "", "; ".join(why[:2]) or "no block ran"
    detail = "; ".join(f"{s}: " + " | ".join(dict.fromkeys(v)) for s, v in per_stack.items())
    labels = {summarise(r.split(",") if r else []) for v in per_stack.values() for r in v}
    labels.discard("none")
    label = labels.pop() if len(labels) == 1 else ("mixed" if labels else "none")
    return label, detail, "; ".join(why[:2])


def write_def(path, rows):
    lines = [
        "/* placement.def — generated by scripts/census/placement.py; do not edit.",
        f" * transformers {transformers.__version__}, torch {torch.__version__}: each census row's small model",
        " * run on the CPU with random weights, every block watched; each stream-width norm",
        " * is pre (x + F(N(x))), post (x + N(F(x))) or add (N(x + F(x))). */",
        "/* NL_PLACEMENT_ROW(model_type, placement, roles per stack, why) */",
    ]
    lines += [rows[t] for t in sorted(rows)]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def cstr(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated model_types")
    ap.add_argument("--out", default="code/config/placement.def")
    ap.add_argument("--skip-done", action="store_true", help="leave the rows --out already has")
    args = ap.parse_args()
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    types = [m.group(1) for line in open("code/config/census.def") if (m := ROW.match(line))]
    old = {}
    if os.path.exists(args.out):
        for line in open(args.out):
            m = re.match(r'^NL_PLACEMENT_ROW\("([^"]+)"', line)
            if m:
                old[m.group(1)] = line.rstrip("\n")
    todo = types if not args.only else [t for t in types if t in args.only.split(",")]
    if args.skip_done:
        todo = [t for t in todo if t not in old]
    signal.signal(signal.SIGALRM, census.on_alarm)
    os.makedirs("build/census", exist_ok=True)
    t_start = time.time()
    with open("build/census/placement.log", "a") as log:
        for i, mt in enumerate(todo):
            t0 = time.time()
            signal.alarm(TIME_BOX)
            try:
                label, detail, why = place_one(mt)
            except census.TimeUp:
                label, detail, why = "timeout", "", f"over the {TIME_BOX} s time box"
            except Exception as ex:
                label, detail, why = "failed", "", f"{type(ex).__name__}: {str(ex).splitlines()[0][:120] if str(ex) else ''}"
            finally:
                signal.alarm(0)
            old[mt] = f"NL_PLACEMENT_ROW({cstr(mt)}, {cstr(label)}, {cstr(detail)}, {cstr(why)})"
            write_def(args.out, old)  # after every row: a run cut short keeps what it measured
            msg = f"[{i + 1}/{len(todo)}] {mt}: {label} {detail[:80]} {why[:80]} ({time.time() - t0:.1f} s, " \
                  f"{time.time() - t_start:.0f} s in all)"
            print(msg, flush=True)
            log.write(msg + "\n")
            log.flush()
if __name__ == "__main__":
    main()
