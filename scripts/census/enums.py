#!/usr/bin/env python3
"""enums.py — the string fields of a config that change its norms.

census.py flips every boolean and varies every small integer of a config
class; a string field (norm_type, layer_norm_type, position_embedding_type,
...) can change the norms just as well.  Which strings matter, and which
values they take, is read from the modeling file itself: a field is a
candidate when the file compares config.FIELD against string literals
(==, !=, in) or looks it up in a dict of the file's own, and its values are
those literals or that dict's keys.  Each candidate value is then built on
the meta device, like the census's other toggles, and kept when the norms
differ from the row's own build.

Appends what matters to the row's toggles in code/config/census.def
(FIELD="value" -> GROUPS, the kind in brackets when it changes: a LayerNorm
family that builds RMSNorm for norm_type="rms_norm"), writes every
candidate tried to build/census/enums.json, and the ones that matter, with
the counts transformers built, to tests/fixtures/census/enums.jsonl.  Run with the census's venv:
scripts/census/run.sh --enums.  --only a,b limits it to those rows.
"""
import argparse
import ast
import inspect
import json
import os
import re
import signal
import sys
import time

import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import census  # noqa: E402

ROW = re.compile(r'^NL_CENSUS_ROW\("([^"]+)", "[^"]*", "([^"]*)", "ok"')
# Fields whose string only names a function or a file, never a module.
NOT_STRUCTURAL = re.compile(r"(^|_)(act|activation|act_fn|attn_implementation|name_or_path|dtype|"
                            r"tokenizer|problem_type|model_type|hidden_act|torch_dtype)($|_)")


def literal_strings(node):
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.append(n.value)
    return out


def config_field(node):
    """FIELD when node is config.FIELD or self.config.FIELD (or getattr(config, "FIELD", ...))."""
    if isinstance(node, ast.Attribute):
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("config", "cfg", "text_config"):
            return node.attr
        if isinstance(base, ast.Attribute) and base.attr == "config":
            return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
            and isinstance(node.args[1].value, str) and config_field(ast.Attribute(value=node.args[0], attr="x")):
        return node.args[1].value
    return None


def candidates(source):
    """{field: {values}} from comparisons and local dict lookups."""
    tree = ast.parse(source)
    dicts = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name):
            keys = [k.value for k in n.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if keys:
                dicts[n.targets[0].id] = keys
    # A field read into a name first (norm_type = config.norm_type, or
    # self.norm_type = ...), then compared: the name stands for the field.
    alias = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and config_field(n.value):
            t = n.targets[0]
            if isinstance(t, ast.Name):
                alias[("name", t.id)] = config_field(n.value)
            elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                alias[("self", t.attr)] = config_field(n.value)

    def field_of(node):
        f = config_field(node)
        if f:
            return f
        if isinstance(node, ast.Name):
            return alias.get(("name", node.id))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return alias.get(("self", node.attr))
        return None

    found = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):
            sides = [n.left] + list(n.comparators)
            fields = [f for f in map(field_of, sides) if f]
            if not fields:
                continue
            vals = [s for side in sides if not field_of(side) for s in literal_strings(side)]
            for f in fields:
                found.setdefault(f, set()).update(vals)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in dicts:
            f = field_of(n.slice)
            if f:
                found.setdefault(f, set()).update(dicts[n.value.id])
    return {f: v for f, v in found.items() if v and not NOT_STRUCTURAL.search(f)}


def kinds_of(rows):
    return sorted({r["kind"] for r in rows})


def toggle_text(field, value, rows, base_kind):
    kinds = kinds_of(rows)
    main = rows[0]["kind"] if rows else base_kind
    tag = f"[{main}] " if main != base_kind else ""
    return f"{field}={json.dumps(value)} -> {tag}{census.formula(rows)}"


def enums_one(mt, modeling_file):
    cls_cfg = CONFIG_MAPPING[mt]
    kw = census.shrink_kwargs(cls_cfg)
    cfg, model = census.build(cls_cfg, kw)
    cfgd = census.fields(cfg)
    hk = census.hidden_key_of(cfgd)
    rows, _ = census.describe(model, cfg, cfgd, hk)
    sig = census.signature(rows)
    base_kind = rows[0]["kind"] if rows else ""
    path = os.path.join(os.path.dirname(transformers.__file__), "models", modeling_file)
    cands = candidates(open(path).read())
    tried, kept = [], []
    for field in sorted(cands):
        if not isinstance(cfgd.get(field), str) and cfgd.get(field) is not None:
            continue
        if field not in cfgd:
            continue
        for value in sorted(cands[field]):
            if value == cfgd.get(field):
                continue
            entry = {"field": field, "value": value}
            try:
                tcfg, tmodel = census.build(cls_cfg, {**kw, field: value})
                trows, _ = census.describe(tmodel, tcfg, census.fields(tcfg), hk)
            except census.TimeUp:
                raise
            except Exception as ex:
                entry["error"] = f"{type(ex).__name__}: {str(ex).splitlines()[0][:100] if str(ex) else ''}"
                tried.append(entry)
                continue
            entry["changes_norms"] = census.signature(trows) != sig
            tried.append(entry)
            if entry["changes_norms"]:
                kept.append(toggle_text(field, value, trows, base_kind))
                # What the C reader must find for the small config with this value.
                entry["expect"] = {"norm_layers": sum(r["n"] for r in trows),
                                   "norm_params": sum(r["n"] * r["width_value"] * (int(r["weight"]) + int(r["bias"]))
                                                      for r in trows),
                                   "kind": trows[0]["kind"] if trows else ""}
    return {"model_type": mt, "candidates": {f: sorted(v) for f, v in cands.items()}, "tried": tried,
            "kept": kept}


def split_args(body):
    """The raw text of each top-level argument of an NL_CENSUS_ROW(...)."""
    out, cur, in_str, esc = [], "", False, False
    for ch in body:
        if in_str:
            cur += ch
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
            cur += ch
        elif ch == ",":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def unquote(raw):
    return json.loads(raw)


def patch_def(path, added):
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        m = ROW.match(line)
        if not m or m.group(1) not in added or not added[m.group(1)]:
            continue
        body = line[len("NL_CENSUS_ROW("):-1]
        args = split_args(body)
        toggles = unquote(args[11])
        have = set(t.strip() for t in toggles.split(" | ")) if toggles else set()
        new = [t for t in added[m.group(1)] if t.strip() not in have]
        if not new:
            continue
        toggles = " | ".join(([toggles] if toggles else []) + new)
        args[11] = census.cstr(toggles)
        lines[i] = "NL_CENSUS_ROW(" + ", ".join(args) + ")"
    open(path, "w").write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated model_types")
    ap.add_argument("--def", dest="defpath", default="code/config/census.def")
    args = ap.parse_args()
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    rows = [(m.group(1), m.group(2)) for line in open(args.defpath) if (m := ROW.match(line))]
    if args.only:
        rows = [r for r in rows if r[0] in args.only.split(",")]
    signal.signal(signal.SIGALRM, census.on_alarm)
    out, added = [], {}
    t0 = time.time()
    for i, (mt, mfile) in enumerate(rows):
        signal.alarm(census.TIME_BOX)
        try:
            rec = enums_one(mt, mfile)
        except census.TimeUp:
            rec = {"model_type": mt, "error": "time box"}
        except Exception as ex:
            rec = {"model_type": mt, "error": f"{type(ex).__name__}: {str(ex).splitlines()[0][:120] if str(ex) else ''}"}
        finally:
            signal.alarm(0)
        out.append(rec)
        added[mt] = rec.get("kept", [])
        nc = len(rec.get("candidates", {}))
        print(f"[{i + 1}/{len(rows)}] {mt}: {nc} candidate fields, {len(rec.get('tried', []))} values tried, "
              f"{len(rec.get('kept', []))} change norms {rec.get('error', '')} ({time.time() - t0:.0f} s)", flush=True)
    os.makedirs("build/census", exist_ok=True)
    with open("build/census/enums.json", "w") as f:
        json.dump({"transformers": transformers.__version__, "rows": out}, f, indent=1)
    patch_def(args.defpath, added)
    # The toggles that matter, as fixtures for tests/check_census.c: the
    # row's small config (tests/fixtures/census/small.jsonl) with the field set.
    if not args.only:
        with open("tests/fixtures/census/enums.jsonl", "w") as f:
            for rec in out:
                for t in rec.get("tried", []):
                    if t.get("changes_norms"):
                        f.write(json.dumps({"model_type": rec["model_type"], "set": {t["field"]: t["value"]},
                                            "expect": t["expect"]}, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
