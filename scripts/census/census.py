#!/usr/bin/env python3
"""census.py — what every model_type transformers knows builds, in norms.

Run by maintainers (scripts/census/run.sh), never by make or CI.  For each
model_type in transformers' config mapping it builds a small configuration,
instantiates the model on the meta device and reads off, from the modules
themselves: every norm's class, width (as a config field), weight and bias,
(1 + w) form, eps and the config key it came from, and how many there are
per layer type.  Nothing here knows a family: the code decides.

Outputs (paths relative to the repository root):
  code/config/census.def            one NL_CENSUS_ROW per model_type (C)
  tests/fixtures/census/small.jsonl the small configs built, with what they built
  build/census/census.json          everything recorded, failures included
With --real DIR it instead measures the real config.json files in DIR and
writes DIR/census-expected.tsv.
"""
import argparse
import copy
import importlib
import inspect
import json
import math
import os
import re
import signal
import sys
import time
import traceback

import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES, CONFIG_MAPPING
from transformers.models.auto import modeling_auto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import widths  # noqa: E402

VERSION = transformers.__version__

# Sizes given distinct values, so that a norm's width names its field.
# Order matters: the first field of a group the config has gets the value.
SIZES = [
    (("hidden_size", "n_embd", "d_model", "n_embed", "dim", "embed_dim", "model_dim", "d_embed"), 96),
    (("num_attention_heads", "n_head", "num_heads", "encoder_attention_heads", "n_heads"), 6),
    (("num_key_value_heads", "num_kv_heads", "multi_query_group_num", "n_kv_heads"), 3),
    (("head_dim", "attention_head_dim", "d_kv", "kv_channels"), 24),
    (("decoder_attention_heads",), 6),
    (("intermediate_size", "ffn_dim", "n_inner", "d_ff", "ffn_hidden_size", "encoder_ffn_dim"), 112),
    (("decoder_ffn_dim",), 112),
    (("moe_intermediate_size",), 40),
    (("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"), 56),
    (("q_lora_rank",), 36),
    (("kv_lora_rank",), 20),
    (("qk_rope_head_dim",), 8),
    (("qk_nope_head_dim",), 12),
    (("v_head_dim",), 28),
    (("mamba_num_heads",), 5),
    (("mamba_head_dim",), 10),
    (("linear_num_value_heads",), 6),
    (("linear_num_key_heads",), 3),
    (("linear_key_head_dim",), 14),
    (("linear_value_head_dim",), 18),
    (("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"), 7),
    (("num_experts_per_tok", "moe_topk", "top_k"), 2),
    (("n_groups",), 2),
]
# Set even where the default is not a number ("auto").
FORCED = {"mamba_dt_rank": 5}
HEAD_COUNTS = SIZES[1][0] + SIZES[2][0]
LAYERS = [
    (("num_hidden_layers", "n_layer", "num_layers", "n_layers", "encoder_layers"), 6),
    (("decoder_layers", "num_decoder_layers"), 5),
]
TIME_BOX = int(os.environ.get("CENSUS_TIME_BOX", "90"))
NOT_STRUCTURAL = re.compile(r"^(output_|return_dict|torchscript|use_cache|is_encoder_decoder$|"
                            r"tie_|chunk_size_feed|add_cross|is_decoder$|_|tf_|use_return|"
                            r"problem|pruned|torch_dtype|dtype|architectures|use_kernels)")


class TimeUp(Exception):
    pass


def on_alarm(signum, frame):
    raise TimeUp()


def fields(cfg):
    return cfg.to_dict()


def shrink_kwargs(cls):
    """Overrides for a small build of config class cls, from its defaults."""
    base = cls().to_dict()
    kw = {}
    for names, value in SIZES + LAYERS:
        for n in names:
            if isinstance(base.get(n), int) and not isinstance(base.get(n), bool):
                kw[n] = value
                break
    for n, value in FORCED.items():
        if n in base:
            kw[n] = value
    # Per-layer lists longer than the new depth are cut to it, keeping one
    # of each value so that every layer type is still built.
    L = kw.get("num_hidden_layers")
    for k, v in base.items():
        if (k.endswith("layer_types") or k.endswith("block_type") or k == "layers_block_type") and \
                isinstance(v, list) and v and all(isinstance(x, str) for x in v) and L and len(v) != L:
            seen = list(dict.fromkeys(v))
            cut = (seen + v)[:max(L, len(seen))]
            kw[k] = cut
            if len(cut) != L:
                kw["num_hidden_layers"] = len(cut)
    return kw


def model_class_for(cfg):
    """The base model class for a config (AutoModel's choice)."""
    mt = cfg.model_type
    name = modeling_auto.MODEL_MAPPING_NAMES.get(mt)
    if isinstance(name, (list, tuple)):
        name = name[0]
    if name:
        return getattr(transformers, name, None)
    # A text model that AutoModel does not map (MllamaTextModel): the model
    # class of its modeling module whose config_class is this config's.
    mod = importlib.import_module(type(cfg).__module__.replace("configuration_", "modeling_"))
    cands = [c for _, c in inspect.getmembers(mod, inspect.isclass)
             if getattr(c, "config_class", None) is type(cfg) and c.__name__.endswith("Model")]
    return min(cands, key=lambda c: len(c.__name__)) if cands else None


def is_norm(mod):
    n = type(mod).__name__
    if "Norm" not in n or "BatchNorm" in n or "InstanceNorm" in n or "GroupNorm" in n:
        return False
    if any("Norm" in type(c).__name__ for c in list(mod.modules())[1:]):
        return False
    return True


def norm_weight_bias(mod):
    w = getattr(mod, "weight", None)
    b = getattr(mod, "bias", None)
    w = w if isinstance(w, torch.nn.Parameter) else None
    b = b if isinstance(b, torch.nn.Parameter) else None
    return w, b


def norm_width(mod):
    w, _ = norm_weight_bias(mod)
    if w is not None:
        return int(w.numel())
    for a in ("normalized_shape", "hidden_size", "dim", "d"):
        v = getattr(mod, a, None)
        if isinstance(v, (tuple, list)) and v:
            return int(math.prod(v))
        if isinstance(v, int):
            return v
    return None


def norm_eps(mod):
    for a in ("eps", "variance_epsilon", "epsilon", "variance_eps", "layer_norm_eps", "norm_eps"):
        v = getattr(mod, a, None)
        if isinstance(v, float):
            return v
    return None


def run_norm(m, x):
    """Calls a norm; gated ones take a gate, given as None or as ones."""
    calls = (lambda: m(x), lambda: m(x, None), lambda: m(x, torch.ones_like(x) * 30.0))
    for i, call in enumerate(calls):
        try:
            y = call()
            return (y[0] if isinstance(y, tuple) else y).float()
        except Exception:
            if i == len(calls) - 1:
                raise


def reference(x, kind, e, groups):
    xs = x.reshape(*x.shape[:-1], groups, x.shape[-1] // groups)
    if kind == "layernorm":
        y = (xs - xs.mean(-1, keepdim=True)) / torch.sqrt(xs.var(-1, unbiased=False, keepdim=True) + e)
    else:
        y = xs / torch.sqrt((xs * xs).mean(-1, keepdim=True) + e)
    return y.reshape(x.shape)


def classify(mod, width, eps):
    """Runs a copy of the norm on a real tensor: LayerNorm or RMSNorm (over
    the whole width or in groups), and whether it scales by (1 + w): with
    the weight at zero, a plain norm gives zeros.  Returns (kind, offset,
    groups) or (None, why, 0)."""
    try:
        m = copy.deepcopy(mod).to_empty(device="cpu").float()
        w, b = norm_weight_bias(m)
        with torch.no_grad():
            if b is not None:
                b.zero_()
            if w is not None:
                w.zero_()
            gen = torch.Generator().manual_seed(1)
            x = torch.randn(2, 3, width, generator=gen) * 3 + 1.5
            y0 = run_norm(m, x)
            offset = w is not None and float(y0.abs().max()) > 1e-3
            if w is not None:
                w.fill_(0.0 if offset else 1.0)
            y = run_norm(m, x)
        e = eps if eps is not None else 1e-5
        for g in [1] + [d for d in range(2, 17) if width % d == 0]:
            for kind in ("layernorm", "rmsnorm"):
                ref = reference(x, kind, e, g)
                # A gated norm multiplies by a constant here (the gate of ones).
                scale = float((y * ref).sum() / (ref * ref).sum())
                if abs(scale) > 1e-3 and torch.allclose(y, scale * ref, atol=2e-3 * abs(scale), rtol=2e-3):
                    return kind, offset, g
        return None, "matches neither LayerNorm nor RMSNorm on a test tensor", 0
    except Exception as ex:
        return None, f"could not run: {type(ex).__name__}: {str(ex)[:80]}", 0


LAYER_RE = re.compile(r"^(.*?)\.(\d+)\.(.*)$")


def measure_eps(mod, width):
    """eps of a norm that keeps it in no attribute (OLMo's is in forward):
    on an input of tiny variance the output gives it away,
    eps = (x_centred / y)^2 - var, for LayerNorm and RMSNorm alike."""
    try:
        m = copy.deepcopy(mod).to_empty(device="cpu").double()
        w, b = norm_weight_bias(m)
        with torch.no_grad():
            if b is not None:
                b.zero_()
            if w is not None:
                w.fill_(1.0)
            x = torch.linspace(-1, 1, width, dtype=torch.float64).reshape(1, width) * 1e-3
            y = run_norm(m, x).double()
            y = y.double() if y.dtype != torch.float64 else y
            # x has mean 0, so LayerNorm and RMSNorm agree: y = x / sqrt(ms + eps).
            ms = float((x * x).mean())
            ratio = float((x * x).sum() / (y * y).sum()) if w is None or float(y.abs().max()) > 0 else 0
            e = ratio - ms
            if w is not None and float(run_norm(m, x * 0).abs().max()) > 1e-9:
                return None
            return float(f"{e:.3g}") if e > 0 else None
    except Exception:
        return None


def inventory(model, cfgd):
    """Every norm module: path, class, width, eps, weight, bias."""
    out = []
    for path, mod in model.named_modules():
        if not is_norm(mod):
            continue
        w, b = norm_weight_bias(mod)
        width = norm_width(mod)
        if width is None:
            continue
        eps = norm_eps(mod)
        measured = False
        if eps is None:
            eps = measure_eps(mod, width)
            measured = eps is not None
        out.append({"path": path, "cls": type(mod).__name__, "width": width, "eps": eps, "eps_measured": measured,
                    "weight": w is not None, "bias": b is not None, "mod": mod})
    return out


def int_fields(cfgd):
    return {k: v for k, v in cfgd.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}


def width_expr(width, cfgd, hidden_key):
    """The config expression a width is: a field, a product or a quotient."""
    f = int_fields(cfgd)
    pref = [hidden_key] + [n for names, _ in SIZES for n in names]
    order = sorted(f, key=lambda k: (pref.index(k) if k in pref else 999, k))
    for k in order:
        if f[k] == width:
            return k
    sized = [k for k in order if k in pref]
    for a in sized:
        for b in sized:
            if a < b or a == b:
                pass
            if f[a] * f[b] == width and a != b:
                return f"{a}*{b}"
    for a in sized:
        for b in sized:
            if a != b and f[b] and f[a] % f[b] == 0 and f[a] // f[b] == width:
                return f"{a}/{b}"
    for a in sized:
        for b in sized:
            for c in sized:
                if len({a, b, c}) == 3 and f[c] and (f[a] * f[b]) % f[c] == 0 and f[a] * f[b] // f[c] == width:
                    return f"{a}*{b}/{c}"
    for a in sized:
        for k in (2, 3, 4):
            if f[a] * k == width:
                return f"{k}*{a}"
    return str(width)


def explain_layers(idx_set, n_layers, lexpr, cfgd):
    """A count expression for the layers idx_set of a stack of n_layers
    (lexpr: the stack's length as an expression), or None for all of them.
    Forms: #F=V (entries of list F equal to V, '+' between values), #F<L
    (indices in list F below L), !F<L (the others), %L/P/O and %!L/P/O
    (i below L with i % P == O, or !=)."""
    idx_set = set(idx_set)
    if len(idx_set) == n_layers:
        return None
    for k, v in cfgd.items():
        if isinstance(v, list) and len(v) == n_layers and all(isinstance(x, str) for x in v):
            vals = {v[i] for i in idx_set}
            rest = {v[i] for i in range(n_layers) if i not in idx_set}
            if not (vals & rest):
                return "+".join(f"#{k}={x}" for x in sorted(vals))
    for k, v in cfgd.items():
        # Lists of layer indices only (cross_attention_layers, mlp_only_layers),
        # not any list of numbers that happens to fit.
        if not re.search(r"layer|idx|indices|index", k):
            continue
        if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            s = {x for x in v if 0 <= x < n_layers}
            if s == idx_set:
                return f"#{k}<{lexpr}"
            if s == set(range(n_layers)) - idx_set:
                return f"!{k}<{lexpr}"
    ints = int_fields(cfgd)
    periods = [k for k in ints if re.search(r"period|interval|every|freq|step", k)]
    offsets = [k for k in ints if "offset" in k] + ["0"]
    for p in periods:
        for o in offsets:
            pv, ov = ints[p], ints.get(o, 0)
            for want in (True, False):
                s = {i for i in range(n_layers) if (i % pv == ov) == want}
                if s == idx_set:
                    return f"%{'' if want else '!'}{lexpr}/{p}/{o}"
    return None if not idx_set else "?" + ",".join(str(i) for i in sorted(idx_set))


def stack_len_expr(n, cfgd):
    for names, _ in LAYERS:
        for k in names:
            if cfgd.get(k) == n:
                return k
    for k, v in int_fields(cfgd).items():
        if v == n and "layer" in k:
            return k
    for k, v in cfgd.items():
        if isinstance(v, list) and len(v) == n and all(isinstance(x, str) for x in v) and "layer" in k:
            return k
    return str(n)


def mult_expr(mult, cfgd):
    for k in HEAD_COUNTS:
        if cfgd.get(k) == mult:
            return k
    return str(mult)


def describe(model, cfg, cfgd, hidden_key):
    """Groups of norms: (count expression, width expression, class, kind, ...)."""
    norms = inventory(model, cfgd)
    # Stacks: module lists of layers, by the path before the index.
    stacks = {}
    for path, mod in model.named_modules():
        if isinstance(mod, (torch.nn.ModuleList, torch.nn.Sequential)) and len(mod) > 0:
            stacks[path] = len(mod)
    groups = {}
    eps_vals = {}
    failures = []
    for n in norms:
        m = LAYER_RE.match(n["path"])
        stack, idx, local = (m.group(1), int(m.group(2)), m.group(3)) if m else ("", -1, n["path"])
        # Only the outermost layer index counts; deeper indices (per-head
        # norms in a ModuleList) multiply.
        inner = m is not None and re.search(r"\.\d+(\.|$)", local) is not None
        local = re.sub(r"\.\d+(?=\.|$)", ".*", local)
        kind, off, ngroups = classify(n["mod"], n["width"], n["eps"])
        if kind is None:
            failures.append(f"{n['path']} ({n['cls']}): {off}")
            kind, off = "unknown", False
        key = (stack, local, n["cls"], n["width"], n["weight"], n["bias"], kind, off, n["eps"], inner, ngroups)
        g = groups.setdefault(key, {"layers": {}, "count": 0, "paths": []})
        g["count"] += 1
        g["paths"].append(n["path"])
        g["layers"][idx] = g["layers"].get(idx, 0) + 1
    rows = []
    for key, g in groups.items():
        stack, local, cls, width, weight, bias, kind, off, eps, inner, ngroups = key
        per = set(g["layers"].values())
        if stack == "":
            count = str(g["count"])
        else:
            n_layers = stacks.get(stack, 0)
            lexpr = stack_len_expr(n_layers, cfgd)
            sub = explain_layers(set(g["layers"]), n_layers, lexpr, cfgd)
            mult = per.pop() if len(per) == 1 else None
            if mult is None:
                count = "?" + str(g["count"])
            else:
                base = lexpr if sub is None else sub
                mx = mult_expr(mult, cfgd) if inner else str(mult)
                count = base if mult == 1 else "+".join(f"{mx}*{t}" for t in base.split("+"))
        rows.append({"count": count, "n": g["count"], "width": width_expr(width, cfgd, hidden_key),
                     "width_value": width, "cls": cls, "groups_of": ngroups, "kind": kind, "offset": off, "weight": weight,
                     "bias": bias, "eps": eps, "where": (stack + ".*." + local) if stack else local,
                     "paths": g["paths"]})
    rows.sort(key=lambda r: (-r["n"], r["where"]))
    return rows, failures


def eps_fields(cfgd):
    return [k for k, v in cfgd.items() if isinstance(v, float) and re.search(r"eps", k)]


def eps_marks(keys):
    """A value of its own for each eps field ({value: key}): the value a
    norm then holds names the key it was read from."""
    return {float(f"{i + 2}.{i + 3}e-{4 + i % 3}"): k for i, k in enumerate(keys)}


def build(cls_cfg, kw):
    cfg = cls_cfg(**kw)
    mcls = model_class_for(cfg)
    if mcls is None:
        raise LookupError("no base model class in MODEL_MAPPING")
    with torch.device("meta"):
        model = mcls(cfg)
    return cfg, model


def signature(rows):
    return [(r["count"], r["width"], r["kind"], r["offset"], r["weight"], r["bias"], r["where"]) for r in rows]


def hidden_key_of(cfgd):
    for n in SIZES[0][0]:
        if n in cfgd:
            return n
    return ""


def modeling_file(mcls):
    f = inspect.getsourcefile(mcls) or ""
    i = f.find("transformers/models/")
    return f[i + len("transformers/models/"):] if i >= 0 else os.path.basename(f)


def census_one(mt):
    rec = {"model_type": mt, "transformers": VERSION}
    cls_cfg = CONFIG_MAPPING[mt]
    rec["config_class"] = cls_cfg.__name__
    base = cls_cfg()
    text = getattr(base, "text_config", None)
    if text is not None and getattr(text, "model_type", mt) != mt and hasattr(text, "to_dict") \
            and (base.sub_configs or {}).get("text_config"):
        tmt = text.model_type
        rec["text_config"] = tmt
        if tmt in CONFIG_MAPPING_NAMES:
            rec["aliases"] = f"text_config={tmt}"
            rec["status"] = "delegates"
            rec["why"] = f"its language model is text_config ({tmt}), a row of its own"
            return rec
        rec["status"] = "text-model-unmapped"
        rec["why"] = f"text_config.model_type {tmt} is not in the config mapping"
        return rec
    kw = shrink_kwargs(cls_cfg)
    cfg, model = build(cls_cfg, kw)
    rec["modeling_file"] = modeling_file(type(model))
    cfgd = fields(cfg)
    hk = hidden_key_of(cfgd)
    # Each eps-like field gets a value of its own.
    marks = eps_marks(eps_fields(cfgd))
    ekw = {**kw, **{k: v for v, k in marks.items()}}
    try:
        cfg, model = build(cls_cfg, ekw)
        kw = ekw
    except Exception:
        marks = {}
    # The fields the model reads while it is built; size fields it reads
    # that the defaults leave unset (head_dim: None) get values of their own.
    t_start = time.time()
    with widths.Watch(cls_cfg) as watch:
        build(cls_cfg, kw)
    cfgd = fields(cfg)
    fixed = {n for names, _ in LAYERS for n in names} | set(marks.values())
    # Other spellings (attribute_map: MPT's hidden_size is d_model) are read
    # through the field they stand for.
    fixed |= set(getattr(cls_cfg, "attribute_map", {}) or {})
    have, unset = widths.size_fields(watch.names, cfgd, fixed)
    taken = set(widths.ints(cfgd).values())
    for k in unset:
        v = widths.fresh_even(taken)
        try:
            build(cls_cfg, {**kw, k: v})
        except TimeUp:
            raise
        except Exception:
            continue
        kw[k] = v
        taken.add(v)
        have.append(k)
    cfg, model = build(cls_cfg, kw)
    cfgd = fields(cfg)
    have = [k for k in have if isinstance(cfgd.get(k), int) and not isinstance(cfgd.get(k), bool)]
    rows, failures = describe(model, cfg, cfgd, hk)
    if not rows:
        rec["status"] = "no-norms"
        return rec
    # Each group's width fitted over builds with every size field varied.
    order = [hk] + [n for names, _ in SIZES for n in names] + sorted(have)
    builds, varied, kws = widths.measure(lambda k: build(cls_cfg, k), have, kw, cfgd, rows, order,
                                         is_norm, norm_width, lambda: t_start + TIME_BOX * 0.4 - time.time())
    rec["builds"] = builds
    in_formulas = set().union(*(widths.fields_of(r["width"]) for r in rows if not r["width"].startswith("?")))
    rec["varied"] = {k: varied.get(k, 0) for k in sorted(in_formulas)}
    defaults = cls_cfg().to_dict()
    # What the class does when a file leaves out a field the widths read.
    derived = {}
    for k in sorted(in_formulas):
        if time.time() > t_start + TIME_BOX * 0.55:
            break
        try:
            absent = getattr(cls_cfg(**{a: b for a, b in kw.items() if a != k}), k, None)
        except TimeUp:
            raise
        except Exception:
            absent = "refused"
        if absent == "refused" or (absent == defaults.get(k) and absent is not None):
            continue
        reading = [r for r in rows if k in widths.fields_of(r["width"])]
        e, _ = widths.default_for(k, reading, lambda a: build(cls_cfg, a), [kw] + kws[:2], order,
                                  is_norm, norm_width)
        if e is not None:
            derived[k] = e
    rec["derived"] = derived
    for r in rows:
        k = next((marks[m] for m in marks if r["eps"] is not None and math.isclose(m, r["eps"], rel_tol=1e-9)),
                 "")
        r["eps_key"] = k
        r["eps_default"] = defaults.get(k) if k else r["eps"]
    rec["aliases"] = pattern_aliases(cls_cfg, cfg, cfgd)
    rec["status"] = "ok"
    rec["groups"] = [{k: v for k, v in r.items()} for r in rows]
    rec["failures"] = failures
    rec["small_config"] = json.loads(cfg.to_json_string(use_diff=False))
    rec["small_config"]["model_type"] = mt
    rec["small_counts"] = {"norm_layers": sum(r["n"] for r in rows),
                           "norm_params": sum(r["n"] * r["width_value"] * (int(r["weight"]) + int(r["bias"]))
                                              for r in rows)}
    # The small config without each field whose absence the class fills in
    # (head_dim, a per-layer list): what transformers builds from that file.
    rec["absent"] = []
    lists = set(re.findall(r"#(\w+)=", formula(rows)))
    for k in sorted(set(derived) | lists):
        if time.time() > t_start + TIME_BOX * 0.6:
            break
        src = {a: b for a, b in rec["small_config"].items() if a not in (k, "model_type")}
        try:
            acfg = cls_cfg(**src)
            mcls = model_class_for(acfg)
            with torch.device("meta"):
                amodel = mcls(acfg)
        except TimeUp:
            raise
        except Exception:
            continue
        norms = inventory(amodel, fields(acfg))
        rec["absent"].append({"drop": k, "expect": {
            "norm_layers": len(norms),
            "norm_params": sum(x["width"] * (int(x["weight"]) + int(x["bias"])) for x in norms)}})
    # Toggles: every boolean flipped, every unset field set to 1 and 2,
    # every small integer (0-2) given the others; then each pair of those
    # that changed something, together.
    sig = signature(rows)
    toggles = []
    deadline = t_start + TIME_BOX * 0.8
    alts = []
    for k, v in sorted(cfgd.items()):
        if NOT_STRUCTURAL.match(k) or k in kw:
            continue
        if isinstance(v, bool):
            alts += [(k, not v)]
        elif v is None:
            alts += [(k, 1), (k, 2)]
        elif isinstance(v, int) and 0 <= v <= 2:
            alts += [(k, x) for x in (0, 1, 2) if x != v]

    def attempt(when, against=None):
        try:
            tcfg, tmodel = build(cls_cfg, {**kw, **dict(when)})
            trows, _ = describe(tmodel, tcfg, fields(tcfg), hk)
        except TimeUp:
            raise
        except Exception:
            return None
        # A group the base build has keeps its fitted width where that
        # formula gives the toggled build's width.
        fitted = {r["where"]: r["width"] for r in rows}
        tints = int_fields(fields(tcfg))
        base_value = {r["where"]: r["width_value"] for r in rows}
        for r in trows:
            e = fitted.get(r["where"], "")
            if e and not e.startswith("?") and widths.evaluate(e, tints) == r["width_value"]:
                r["width"] = e
            elif e.startswith("?") and base_value[r["where"]] == r["width_value"]:
                r["width"] = e
            else:
                r["width_fitted"] = False
        if signature(trows) == (sig if against is None else against):
            return None
        for r in trows:
            r["eps_key"] = next((marks[m] for m in marks if r["eps"] is not None and
                                 math.isclose(m, r["eps"], rel_tol=1e-9)), "")
        return {"when": list(when), "groups": trows}

    mattered = []
    for k, x in alts:
        if time.time() > deadline:
            rec["toggles_cut"] = "time box reached before every field was tried"
            break
        t = attempt([(k, x)])
        if t:
            toggles.append(t)
            mattered.append((k, x))
    # A field may matter only beside another (Falcon's num_ln_in_parallel_attn
    # under new_decoder_architecture): each one that mattered, with every other.
    pairs = {tuple(sorted((a, b))) for a in mattered for b in alts if a[0] != b[0]}
    for a, b in sorted(pairs, key=str):
        if time.time() > deadline:
            rec["toggles_cut"] = "time box reached before every pair was tried"
            break
        # Recorded when it differs from what its one field that mattered gives.
        single = [u for u in toggles if len(u["when"]) == 1 and tuple(u["when"][0]) in (a, b)]
        t = attempt([a, b], signature(single[0]["groups"]) if single else None)
        if t and all(signature(t["groups"]) != signature(u["groups"]) for u in single):
            toggles.append(t)
    toggles.sort(key=lambda t: -len(t["when"]))
    # A toggle that builds norms the base build has not (use_qk_norm): their
    # widths fitted over varied builds of the toggled config too.
    for t in toggles:
        if all(g.get("width_fitted", True) for g in t["groups"]) or time.time() > t_start + TIME_BOX * 0.85:
            continue
        tkw = {**kw, **dict(t["when"])}
        try:
            tcfg, _ = build(cls_cfg, tkw)
        except TimeUp:
            raise
        except Exception:
            continue
        new = [g for g in t["groups"] if not g.get("width_fitted", True)]
        _, tv, _ = widths.measure(lambda k: build(cls_cfg, k), have, tkw, fields(tcfg), new, order,
                                  is_norm, norm_width, lambda: t_start + TIME_BOX * 0.85 - time.time())
        for k, v in tv.items():
            if any(k in widths.fields_of(g["width"]) for g in new):
                rec["varied"][k] = max(rec["varied"].get(k, 0), v) if k in rec["varied"] else v
    rec["toggles"] = toggles
    # The class defaults of the integer fields the formulas read: what the
    # code uses when a config.json leaves one out.
    text = formula(rows) + " " + " ".join(formula(t["groups"]) for t in toggles)
    names = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)) & set(defaults))
    dl = [f"{n}={defaults[n]}" for n in names if isinstance(defaults[n], int) and not isinstance(defaults[n], bool)]
    # Other spellings the class accepts for a field (attribute_map).
    amap = getattr(cls_cfg, "attribute_map", {}) or {}
    dl += [f"{n}=@{alias}" for alias, n in sorted(amap.items()) if n in names]
    # Measured, not the class's constant: what a file without the field builds.
    dl = [f"{n}={derived[n]}" if n in derived else x for x in dl for n in [x.split("=", 1)[0]]]
    dl += [f"{n}={e}" for n, e in sorted(derived.items()) if not any(x.startswith(n + "=") for x in dl)]
    # Per-layer lists the counts read, as the class derives them when absent.
    lkey = next((k for names, _ in LAYERS for k in names if k in kw), "")
    for lf in sorted(set(re.findall(r"#(\w+)=", text))):
        if time.time() > t_start + TIME_BOX * 0.9:
            break
        need = set(re.findall(r"#" + lf + r"=([\w.-]+)", text))
        forms, popped = widths.list_default(lf, cls_cfg, kw, lkey, explain_periodic, need)
        if forms and "" in forms:
            dl.append(f"{lf}={forms['']}")
        elif forms:
            dl += [f"{lf}#{v}={form}" for v, form in sorted(forms.items())]
        else:
            # Said in the row, and no count expected of the reader without it.
            rec["absent"] = [a for a in rec["absent"] if a["drop"] != lf]
            rec.setdefault("underived", []).append(
                f"how the configuration class fills '{lf}' when a file leaves it out is not explained")
            dl += [f"{k}={v}" for k, v in sorted(popped.items()) if not any(x.startswith(k + "=") for x in dl)]
    # The class defaults of the fields the derived rules read in turn.
    more = set(re.findall(r"[A-Za-z_]\w*", " ".join(x.split("=", 1)[1] for x in dl))) & set(defaults)
    dl += [f"{n}={defaults[n]}" for n in sorted(more) if isinstance(defaults[n], int)
           and not isinstance(defaults[n], bool) and not any(x.startswith(n + "=") for x in dl)]
    rec["defaults"] = ",".join(dl)
    return rec


def explain_periodic(idx, n, lkey, d):
    """A count form for the layers idx of n, from the fields of d: ^L/K (the
    first K), ^!L/K (the others), %L/P/O (i % P == O), %!L/P/O (the others);
    O a field, 0, or -1 for P - 1.  0 when none, the depth when all; None
    when no form fits."""
    if not idx:
        return "0"
    if len(idx) == n:
        return lkey or str(n)
    ints = int_fields(d)
    # The first K layers (first_k_dense_replace): ^L/K, the others ^!L/K.
    for k, v in ints.items():
        if re.search(r"first|dense_replace|num_dense", k):
            first = set(range(min(v, n)))
            if set(idx) == first:
                return f"^{lkey or n}/{k}"
            if set(idx) == set(range(n)) - first:
                return f"^!{lkey or n}/{k}"
    periods = [k for k in ints if re.search(r"period|interval|every|freq|step|ratio", k)]
    # A period the class hard-codes, where no field holds one.
    periods += [str(k) for k in range(2, 9)]
    offsets = [k for k in ints if "offset" in k] + ["0", "-1"]
    for p in periods:
        for o in offsets:
            pv = int(p) if p.isdigit() else ints[p]
            ov = pv - 1 if o == "-1" else int(o) if o == "0" else ints[o]
            for want in (True, False):
                if {i for i in range(n) if (i % pv == ov) == want} == set(idx):
                    return f"%{'' if want else '!'}{lkey or n}/{p}/{o}"
    return None


def pattern_aliases(cls_cfg, cfg, cfgd):
    """Older configs write a per-layer list as a string of one letter per
    layer (hybrid_override_pattern): found as a property of the config class
    whose value is a string as long as the list, letter by letter."""
    out = []
    for name, attr in inspect.getmembers(cls_cfg):
        if not isinstance(attr, property) or name.startswith("_"):
            continue
        try:
            v = getattr(cfg, name)
        except Exception:
            continue
        if not isinstance(v, str) or not v:
            continue
        for k, lst in cfgd.items():
            if isinstance(lst, list) and len(lst) == len(v) and all(isinstance(x, str) for x in lst):
                pairs = dict(zip(v, lst))
                if all(pairs[c] == x for c, x in zip(v, lst)):
                    out.append(f"{k}<{name}:" + ",".join(f"{c}={x}" for c, x in sorted(pairs.items())))
    # Every letter the class knows, not only those of the small build.
    conv = getattr(cls_cfg, "_pattern_to_list", None)
    if out and conv:
        full = []
        for a in out:
            k, rest = a.split("<", 1)
            name = rest.split(":", 1)[0]
            letters = {}
            for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ*-+":
                try:
                    r = conv(c) if not isinstance(inspect.getattr_static(cls_cfg, "_pattern_to_list"), staticmethod) \
                        else cls_cfg._pattern_to_list(c)
                except Exception:
                    try:
                        r = cfg._pattern_to_list(c)
                    except Exception:
                        continue
                if isinstance(r, list) and len(r) == 1 and isinstance(r[0], str):
                    letters[c] = r[0]
            if letters:
                full.append(f"{k}<{name}:" + ",".join(f"{c}={x}" for c, x in sorted(letters.items())))
            else:
                full.append(a)
        out = full
    return "; ".join(out)


def strip(rec):
    for g in rec.get("groups", []):
        g.pop("mod", None)
    for t in rec.get("toggles", []):
        for g in t["groups"]:
            g.pop("mod", None)
    return rec


def cstr(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def formula(groups):
    """count x width : where, ';' between groups; after the width '~' marks a
    LayerNorm without bias, '&' a norm with a bias, '!' one without weight."""
    parts = []
    for g in groups:
        flag = ("~" if g["kind"] == "layernorm" and not g["bias"] else "") + ("&" if g["bias"] else "") + \
            ("!" if not g["weight"] else "")
        parts.append(f"{g['count']} x {g['width']}{flag} : {g['where']}")
    return "; ".join(parts)


def eps_apart(groups, main):
    """Norms whose eps is not read from the row's eps key (DeepSeek-V3's
    q_a_layernorm and kv_a_layernorm keep their class's 1e-6 whatever
    rms_norm_eps says): one clause naming them, or none."""
    apart = {}
    for g in groups:
        if g["eps"] is not None and g["eps_key"] != main["eps_key"]:
            apart.setdefault((g["eps_key"], g["eps"]), []).append(g["where"].rsplit(".", 1)[-1])
    return [f"eps: {', '.join(sorted(set(names)))} read {key or 'no key'} ({eps:g}), not {main['eps_key'] or 'the default'}"
            for (key, eps), names in sorted(apart.items(), key=str)]


def varied_text(r):
    """"builds=N; field:K,...": how many builds the widths were fitted over,
    and in how many of them each field a width formula reads was varied."""
    return f"builds={r.get('builds', 1)}; " + ",".join(f"{k}:{v}" for k, v in sorted(r.get("varied", {}).items()))


def write_def(recs, path):
    lines = [
        "/* census.def — generated by scripts/census/census.py; do not edit.",
        f" * transformers {VERSION}, torch {torch.__version__}: each model built on the meta",
        " * device from a small configuration, its norm modules read off. */",
        "/* NL_CENSUS_ROW(model_type, transformers, modeling file, status, kind,",
        " *     weight, bias, offset, eps key, eps default, groups, toggles, aliases, defaults, why,",
        " *     varied: the builds each width formula was fitted over) */",
    ]
    for r in recs:
        st = r.get("status", "failed")
        if st == "ok":
            main = r["groups"][0]
            kinds = {g["kind"] for g in r["groups"]}
            kind = main["kind"]
            tog = " | ".join(",".join(f"{k}={json.dumps(v)}" for k, v in t["when"]) + f" -> {formula(t['groups'])}"
                             for t in r["toggles"])
            why = "; ".join(r.get("failures", [])[:2] + r.get("underived", []) + eps_apart(r["groups"], main))
            if len(kinds) > 1:
                why = (why + "; " if why else "") + "kinds: " + ",".join(sorted(kinds))
            lines.append(f"NL_CENSUS_ROW({cstr(r['model_type'])}, {cstr(VERSION)}, {cstr(r['modeling_file'])}, "
                         f"\"ok\", {cstr(kind)}, {int(main['weight'])}, {int(main['bias'])}, {int(main['offset'])}, "
                         f"{cstr(main['eps_key'])}, {main['eps_default'] if main['eps_default'] else 0.0!r}, "
                         f"{cstr(formula(r['groups']))}, {cstr(tog)}, {cstr(r.get('aliases', ''))}, "
                         f"{cstr(r.get('defaults', ''))}, {cstr(why)}, {cstr(varied_text(r))})")
        else:
            lines.append(f"NL_CENSUS_ROW({cstr(r['model_type'])}, {cstr(VERSION)}, "
                         f"{cstr(r.get('modeling_file', ''))}, {cstr(st)}, \"\", 0, 0, 0, \"\", 0.0, \"\", \"\", "
                         f"{cstr(r.get('aliases', ''))}, \"\", "
                         f"{cstr(r.get('why', ''))}, \"\")")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_census(args):
    types = sorted(CONFIG_MAPPING_NAMES)
    if args.only:
        types = [t for t in types if t in args.only.split(",")]
    shard = None
    if args.shard:
        k, n = (int(x) for x in args.shard.split("/"))
        types = types[k::n]
        shard = f"build/census/census-shard-{k}.json"
    recs = []
    # --only redoes those rows and keeps the others of the last full run.
    kept = []
    if args.only and os.path.exists("build/census/census.json"):
        kept = [r for r in json.load(open("build/census/census.json"))["rows"] if r["model_type"] not in types]
    signal.signal(signal.SIGALRM, on_alarm)
    for i, mt in enumerate(types):
        t0 = time.time()
        signal.alarm(TIME_BOX)
        try:
            rec = census_one(mt)
        except TimeUp:
            rec = {"model_type": mt, "status": "timeout", "why": f"over the {TIME_BOX} s time box"}
        except Exception as ex:
            rec = {"model_type": mt, "status": "failed",
                   "why": f"{type(ex).__name__}: {str(ex).splitlines()[0][:160] if str(ex) else ''}"}
        finally:
            signal.alarm(0)
        rec["seconds"] = round(time.time() - t0, 2)
        recs.append(strip(rec))
        print(f"[{i + 1}/{len(types)}] {mt}: {rec.get('status')} {rec.get('why', '')[:90]} ({rec['seconds']} s)",
              flush=True)
    recs = sorted(recs + kept, key=lambda r: r["model_type"])
    os.makedirs("build/census", exist_ok=True)
    if shard:
        with open(shard, "w") as f:
            json.dump({"rows": recs}, f, default=str)
        return
    with open("build/census/census.json", "w") as f:
        json.dump({"transformers": VERSION, "torch": torch.__version__, "rows": recs}, f, indent=1, default=str)
    write_outputs(recs)


def write_outputs(recs):
    write_def(recs, "code/config/census.def")
    os.makedirs("tests/fixtures/census", exist_ok=True)
    with open("tests/fixtures/census/small.jsonl", "w") as f:
        for r in recs:
            if r.get("status") == "ok":
                f.write(json.dumps({"model_type": r["model_type"], "expect": r["small_counts"],
                                    "eps": r["groups"][0]["eps"], "absent": r.get("absent", []),
                                    "config": r["small_config"]},
                                   default=str, sort_keys=True) + "\n")


def run_real(args):
    """Real configs: what transformers builds from each, at full size."""
    out = []
    signal.signal(signal.SIGALRM, on_alarm)
    for name in sorted(os.listdir(args.real)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(args.real, name)) as f:
            d = json.load(f)
        lm = d.get("text_config") if isinstance(d.get("text_config"), dict) else d
        mt = lm.get("model_type") or d.get("model_type")
        if mt not in CONFIG_MAPPING_NAMES:
            continue
        signal.alarm(TIME_BOX * 3)
        try:
            cls_cfg = CONFIG_MAPPING[mt]
            src = {k: v for k, v in lm.items() if k not in ("architectures", "auto_map")}
            cfg = cls_cfg(**src)
            # The language model only: a multimodal config's text part.
            tcfg = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
            if tcfg is not cfg and tcfg is not None:
                cfg = tcfg
            mcls = model_class_for(cfg)
            if mcls is None:
                raise LookupError("no base model class")
            with torch.device("meta"):
                model = mcls(cfg)
            norms = inventory(model, fields(cfg))
            n = len(norms)
            params = sum(x["width"] * (int(x["weight"]) + int(x["bias"])) for x in norms)
            eps = sorted({x["eps"] for x in norms if x["eps"] is not None})
            # The kind of the norms of the hidden width, run on a real tensor.
            hidden = next((getattr(cfg, k) for k in SIZES[0][0] if isinstance(getattr(cfg, k, None), int)), None)
            main = [x for x in norms if x["width"] == hidden] or norms
            kinds = sorted({classify(x["mod"], x["width"], x["eps"])[0] or "unknown" for x in main[:3]})
            # The eps key: every eps-like field of the file given a value of
            # its own, the model rebuilt, the value its norms hold read back.
            efs = eps_fields(src)
            ekey = ""
            if efs and eps:
                marks = eps_marks(efs)
                mcfg = cls_cfg(**{**src, **{k: v for v, k in marks.items()}})
                mcfg = mcfg.get_text_config() if hasattr(mcfg, "get_text_config") else mcfg
                with torch.device("meta"):
                    mm = mcls(mcfg)
                held = {x["eps"] for x in inventory(mm, fields(mcfg)) if x["width"] == hidden} or \
                    {x["eps"] for x in inventory(mm, fields(mcfg))}
                keys = sorted({marks[m] for m in marks for h in held if h is not None and math.isclose(m, h)})
                ekey = ",".join(keys) if keys else "(none: hard-coded or the default)"
            out.append(f"{name}\t{mt}\t{n}\t{params}\t{eps[0] if len(eps) == 1 else ','.join(map(repr, eps))}"
                       f"\t{','.join(kinds)}\t{ekey}")
            print(name, mt, n, params, kinds, ekey, flush=True)
        except Exception as ex:
            print(name, mt, "failed", type(ex).__name__, str(ex)[:120], flush=True)
            out.append(f"{name}\t{mt}\tfailed\t{type(ex).__name__}\t")
        finally:
            signal.alarm(0)
        model = None
    with open(os.path.join(args.real, "census-expected.tsv"), "w") as f:
        f.write(f"# file\tmodel_type\tnorm_layers\tnorm_params\teps\tkind\teps_key  (transformers {VERSION}, built on "
                f"the meta device by scripts/census/census.py --real; kind from running the hidden-width norms on "
                f"a tensor, eps_key from giving each eps field of the file a value of its own)\n")
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated model_types (default: all)")
    ap.add_argument("--real", help="measure the real configs in this folder instead")
    ap.add_argument("--shard", help="K/N: only every N-th model_type from the K-th, into a shard of its own")
    ap.add_argument("--merge", type=int, help="N: merge the N shards and write the outputs")
    ap.add_argument("--rewrite", action="store_true",
                    help="write census.def and small.jsonl again from build/census/census.json, building nothing")
    args = ap.parse_args()
    if args.merge:
        # The shards of one run (--shard K/N, run side by side) into one table.
        recs = []
        for k in range(args.merge):
            recs += json.load(open(f"build/census/census-shard-{k}.json"))["rows"]
        recs.sort(key=lambda r: r["model_type"])
        with open("build/census/census.json", "w") as f:
            json.dump({"transformers": VERSION, "torch": torch.__version__, "rows": recs}, f, indent=1, default=str)
        args.rewrite = True
    if args.rewrite:
        write_outputs(json.load(open("build/census/census.json"))["rows"])
        return
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    if args.real:
        run_real(args)
    else:
        run_census(args)


if __name__ == "__main__":
    main()
