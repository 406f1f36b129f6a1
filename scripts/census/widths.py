"""widths.py — a norm's width measured, not matched once.

One small build cannot tell head_dim from hidden_size / num_attention_heads
when the two happen to be equal, or when head_dim is unset and the model
falls back to the quotient.  So the width of every norm group is fitted
over several builds:

  1. the fields the model reads while it is built are recorded (the config
     object is watched during construction);
  2. every size field among them is given a value of its own, unset ones
     (head_dim: None) included, and then varied, one field at a time, by a
     prime no other field's value holds; fields that are multiples of the
     varied one are multiplied too, so that divisibility the code checks
     (hidden by heads, heads by kv heads) survives;
  3. each group's width is fitted to the one expression (a field, k times a
     field, a product, quotient or sum of two, a*b/c) that gives it in every
     build; none: the width is recorded as unexplained ('?N').

What a configuration class does when a field the formulas read is absent
(head_dim unset, layer_types left out) is measured the same way: the
model is built from the small configuration without that field, in several
builds, and the value the formula then needs is fitted to the other fields.
"""
import itertools
import math
import re

import torch

# Names of size fields that may be unset in a class's defaults (None) and
# that a real config.json sets.
SIZE_NAME = re.compile(r"(^|_)(dim|size|heads|rank|channels|inner|ff)($|_)|head_dim|_dim$")
NOT_SIZE = re.compile(r"(token_id|_id$|^vocab_size$|max_position|position_embeddings|layers?$|_layers|"
                      r"num_layers|n_layer|seq_len|window|chunk|bucket|seed|patch_size|image_size|"
                      r"num_labels|max_|_length$|^n_positions$|n_ctx|batch|interval|period|offset|"
                      r"sparse_step|freq|every|replace$|top_?k|per_tok|num_groups|n_group|topk_group)")
PRIMES = [5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]


class Watch:
    """Records the attribute names read on instances of a config class."""

    def __init__(self, cls):
        self.cls, self.names = cls, set()

    def __enter__(self):
        cls, names = self.cls, self.names
        self.own = cls.__dict__.get("__getattribute__")
        parent = cls.__getattribute__

        def spy(obj, name):
            names.add(name)
            return parent(obj, name)
        cls.__getattribute__ = spy
        return self

    def __exit__(self, *exc):
        if self.own is None:
            del self.cls.__getattribute__
        else:
            self.cls.__getattribute__ = self.own
        return False


def ints(d):
    return {k: v for k, v in d.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}


def size_fields(read, cfgd, fixed):
    """Set size fields the build read (value > 2), and unset ones named like sizes."""
    have, unset = [], []
    for k in sorted(read):
        if k in fixed or k.startswith("_") or NOT_SIZE.search(k):
            continue
        v = cfgd.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 2:
            have.append(k)
        elif v is None and SIZE_NAME.search(k):
            # Unset, or no attribute at all (getattr(config, "head_dim", ...)).
            unset.append(k)
    return have, unset


def fresh_even(taken, start=26):
    """An even value (rotary halves need one) that no field holds."""
    v = start
    while v in taken or any(t % v == 0 or v % t == 0 for t in taken if t > 2):
        v += 2
    return v


def varied_kwargs(kw, cfgd, fields, f, p):
    """kw with field f times p, and every field of `fields` that is a
    multiple of f times p too (divisibility the model checks survives)."""
    base = cfgd[f]
    out = dict(kw)
    for g in fields:
        v = cfgd.get(g)
        if isinstance(v, int) and v % base == 0:
            out[g] = v * p
    return out


def prime_for(f, cfgd, fields, round_no):
    """A prime whose product with f's value no other field holds."""
    vals = {cfgd[g] for g in fields if isinstance(cfgd.get(g), int)}
    k = 0
    for p in PRIMES[(fields.index(f) * 2 + round_no) % 5:] + PRIMES:
        if cfgd[f] * p not in vals:
            if k == 0:
                return p
            k -= 1
    return PRIMES[-1]


# --- expressions -----------------------------------------------------------

def evaluate(expr, f):
    """Value of a width expression on fields f, or None."""
    try:
        m = re.fullmatch(r"(\d+)", expr)
        if m:
            return int(expr)
        m = re.fullmatch(r"(\d)\*([A-Za-z_]\w*)", expr)
        if m:
            return int(m.group(1)) * f[m.group(2)]
        m = re.fullmatch(r"([A-Za-z_]\w*)/(\d)", expr)
        if m:
            return f[m.group(1)] // int(m.group(2)) if f[m.group(1)] % int(m.group(2)) == 0 else None
        m = re.fullmatch(r"([A-Za-z_]\w*)\+([A-Za-z_]\w*)", expr)
        if m:
            return f[m.group(1)] + f[m.group(2)]
        parts = re.split(r"([*/])", expr)
        v = f[parts[0]]
        for op, name in zip(parts[1::2], parts[2::2]):
            if op == "*":
                v *= f[name]
            else:
                if f[name] == 0 or v % f[name]:
                    return None
                v //= f[name]
        return v
    except (KeyError, TypeError):
        return None


def candidates(width, f, order):
    """Every expression of the allowed forms that gives `width` on f, the
    preferred first (fewer fields, then the order of `order`)."""
    names = [k for k in order if k in f]
    out = [k for k in names if f[k] == width]
    out += [f"{c}*{k}" for k in names for c in (2, 3, 4) if f[k] * c == width]
    out += [f"{k}/{c}" for k in names for c in (2, 3, 4) if f[k] == width * c]
    for a, b in itertools.permutations(names, 2):
        if f[a] * f[b] == width and names.index(a) < names.index(b):
            out.append(f"{a}*{b}")
        if f[b] and f[a] == width * f[b]:
            out.append(f"{a}/{b}")
        if f[a] + f[b] == width and names.index(a) < names.index(b):
            out.append(f"{a}+{b}")
    if True:
        for a, b, c in itertools.permutations(names, 3):
            if names.index(a) < names.index(b) and f[c] and f[a] * f[b] == width * f[c]:
                out.append(f"{a}*{b}/{c}")
    return out


def fields_of(expr):
    return set(re.findall(r"[A-Za-z_]\w*", expr))


def fit(observations, order):
    """observations: [(fields, width)], the first the base build.  The
    preferred expression that gives every width, or None."""
    f0, w0 = observations[0]
    for e in candidates(w0, f0, order):
        if all(evaluate(e, f) == w for f, w in observations[1:]):
            return e
    # A width that no varied field moves is a constant of the code.
    if all(w == w0 for _, w in observations):
        return str(w0)
    return None


# --- norm widths per module path -------------------------------------------

def path_widths(model, is_norm, width_of):
    out = {}
    for path, mod in model.named_modules():
        if is_norm(mod):
            w = width_of(mod)
            if w is not None:
                out[path] = w
    return out


def group_width(paths, widths):
    vals = {widths[p] for p in paths if p in widths}
    present = [p for p in paths if p in widths]
    if len(vals) != 1 or len(present) != len(paths):
        return None
    return vals.pop()


def measure(build, fields, kw, cfgd, groups, order, is_norm, width_of, time_left):
    """Fits each group's width over the base build and the varied builds.

    build(kw) -> (cfg, model); fields: the size fields varied; groups: the
    base build's groups, each with 'paths' and 'width_value'.  Sets each
    group's 'width' to the fitted expression or '?N', and returns
    (builds, varied, kws): how many builds were made, per field the number
    of builds in which its value differed from the base, and the keyword
    sets of the varied builds that succeeded."""
    fields = [k for k in fields if isinstance(cfgd.get(k), int) and not isinstance(cfgd.get(k), bool)
              and cfgd[k] > 2]
    obs = [(ints(cfgd), None)]
    per_build = [None]
    varied = {k: 0 for k in fields}
    kws = []
    n = 1
    for round_no in (0, 1):
        for f in fields:
            if time_left() < 0:
                break
            p = prime_for(f, cfgd, fields, round_no)
            vkw = varied_kwargs(kw, cfgd, fields, f, p)
            try:
                cfg, model = build(vkw)
            except Exception as ex:  # noqa: BLE001 (a rejected variation is skipped)
                if type(ex).__name__ == "TimeUp":
                    raise
                continue
            d = ints(cfg.to_dict())
            widths = path_widths(model, is_norm, width_of)
            obs.append((d, widths))
            kws.append(vkw)
            n += 1
            for g in fields:
                if d.get(g) != obs[0][0].get(g):
                    varied[g] += 1
    for g in groups:
        seq = [(obs[0][0], g["width_value"])]
        for d, widths in obs[1:]:
            w = group_width(g["paths"], widths)
            if w is not None:
                seq.append((d, w))
        e = fit(seq, order)
        # Accepted only when the builds moved every field it reads twice, or,
        # for a constant of the code, when there were builds to move it.
        if e is not None and e.isdigit():
            e = e if len(seq) >= 3 else None
        elif e is not None:
            moved = {k: sum(d.get(k) != seq[0][0].get(k) for d, _ in seq[1:]) for k in fields_of(e)}
            e = e if min(moved.values()) >= 2 else None
        g["width"] = e if e is not None else f"?{g['width_value']}"
        g["width_builds"] = len(seq)
    return n, varied, kws


def default_for(field, formula_groups, build, kw_list, order, is_norm, width_of):
    """What the formulas need for `field` when a file leaves it out: the
    model built without it (from each kw of kw_list), the value that, put
    for `field` in each group's formula, gives the width built.  An
    expression over the other fields, a constant, or None (the class
    refuses the file, or nothing fits)."""
    seq = []
    for kw in kw_list:
        kw2 = {k: v for k, v in kw.items() if k != field}
        try:
            cfg, model = build(kw2)
        except Exception as ex:  # noqa: BLE001
            if type(ex).__name__ == "TimeUp":
                raise
            continue
        d = ints(cfg.to_dict())
        d.pop(field, None)
        widths = path_widths(model, is_norm, width_of)
        seq.append((d, widths))
    if not seq:
        return None, 0
    f0, w0 = seq[0]
    # The value the field must stand for, per group and build.
    need = []
    for d, widths in seq:
        for g in formula_groups:
            w = group_width(g["paths"], widths)
            if w is None:
                return None, len(seq)
            x = solve(g["width"], field, d, w)
            if x is None:
                return None, len(seq)
            need.append((d, x))
    first = need[0][1]
    for e in candidates(first, need[0][0], order) + [str(first)]:
        if all(evaluate(e, d) == x for d, x in need):
            return e, len(seq)
    return None, len(seq)


def solve(expr, field, d, width):
    """The value of `field` that makes expr give width on d (other fields
    from d), by trying the divisors and multiples that can: the formulas
    are monomials of degree one in each field, or a sum."""
    for x in sorted({width} | {width * k for k in range(1, 65)} | {width // k for k in range(1, 65) if width % k == 0}):
        if x <= 0:
            continue
        if evaluate(expr, {**d, field: x}) == width:
            return x
    return None


def popped_ints(cls_cfg):
    """Integer keywords the class's __init__ takes out of **kwargs with a
    default and keeps no attribute of (Qwen3-Next's full_attention_interval):
    {name: default}."""
    import inspect
    try:
        src = inspect.getsource(cls_cfg)
    except (OSError, TypeError):
        return {}
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r'kwargs\.(?:pop|get)\(\s*"(\w+)"\s*,\s*(\d+)\s*\)', src)}


def list_default(list_field, cls_cfg, kw, layers_key, explain, need=(), lengths=(6, 9, 12)):
    """What the configuration class writes into a per-layer list when the
    file has none: built without it at several depths (and with the period
    keywords its __init__ pops varied), each value's layers explained by a
    period/offset form.  ({value: form}, {popped keyword: default}) or
    (None, {})."""
    out = {}
    seen = []
    popped = popped_ints(cls_cfg)
    for i, L in enumerate(lengths):
        kw2 = {k: v for k, v in kw.items() if k != list_field}
        if layers_key:
            kw2[layers_key] = L
        extra = {k: (v if i == 0 else v + i + 1) for k, v in popped.items()}
        try:
            cfg = cls_cfg(**kw2, **extra)
        except Exception:  # noqa: BLE001
            continue
        lst = getattr(cfg, list_field, None)
        if not isinstance(lst, list) or len(lst) != L:
            continue
        seen.append(({**cfg.to_dict(), **extra}, lst))
    values = sorted({x for _, lst in seen for x in lst if isinstance(x, str)} | set(need))
    for v in values:
        forms = set()
        for d, lst in seen:
            idx = {i for i, x in enumerate(lst) if x == v}
            d2 = {k: w for k, w in d.items() if k != list_field}
            forms.add(explain(idx, len(lst), layers_key, d2))
        if len(forms) != 1 or None in forms or len(seen) < 2:
            out = None
            break
        out[v] = forms.pop()
    if out:
        used = {k: v for k, v in popped.items() if any(k in f for f in out.values())}
        return out, used
    # No rule over the other fields: the class's own default list, cut to
    # the depth (a depth beyond it, the class refuses).
    try:
        full = getattr(cls_cfg(), list_field, None)
    except Exception:  # noqa: BLE001
        return None, {}
    if seen and isinstance(full, list) and full and all(isinstance(x, str) and "|" not in x and "," not in x
                                                        for x in full) \
            and all(lst == full[:len(lst)] for _, lst in seen):
        return {"": "[" + "|".join(full) + "]"}, {}
    return None, {}
