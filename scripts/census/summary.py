#!/usr/bin/env python3
"""summary.py — what the census table says, counted: the numbers chapter 4
quotes.  Reads code/config/census.def; the year of each family is the first
"Copyright YYYY" in its modeling file, read from the installed transformers
(run it with the census's venv: scripts/census/run.sh --summary)."""
import collections
import os
import re
import sys

ROW = re.compile(r'^NL_CENSUS_ROW\((.*)\)$')
FIELD = re.compile(r'"((?:[^"\\]|\\.)*)"|([-0-9.e+]+)')


def rows(path):
    for line in open(path):
        m = ROW.match(line.strip())
        if m:
            vals = [a if a is not None and b == "" else (a if a else b) for a, b in FIELD.findall(m.group(1))]
            yield vals


def year_of(modeling_file):
    try:
        import transformers
    except ImportError:
        return None
    base = os.path.join(os.path.dirname(transformers.__file__), "models", modeling_file)
    try:
        head = open(base).read(4000)
    except OSError:
        return None
    m = re.search(r"Copyright (?:\(c\) )?(\d{4})", head)
    return int(m.group(1)) if m else None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "code/config/census.def"
    status = collections.Counter()
    kinds = collections.Counter()
    offset = qk = sandwich = 0
    failures = collections.Counter()
    by_year = collections.defaultdict(collections.Counter)
    version = ""
    for r in rows(path):
        mt, version, mfile, st, kind, w, b, off, ekey, edef, groups = r[:11]
        why = r[14] if len(r) > 14 else r[-1]
        status[st] += 1
        if st in ("failed", "timeout", "text-model-unmapped"):
            failures[why.split(":")[0]] += 1
        if st != "ok":
            continue
        kinds[kind] += 1
        offset += off == "1"
        parts = [g.split(" : ")[-1] for g in groups.split("; ")]
        # A norm inside attention that is not as wide as the model: a QK-norm.
        has_qk = any(re.search(r"(attn|attention)\.", p) and re.search(r"(q|k)_?(a_)?(layer)?norm", p)
                     and "kv_a" not in p and "q_a" not in p for p in parts)
        qk += has_qk
        per_layer_hidden = [g for g in groups.split("; ") if ".*." in g.split(" : ")[-1]
                            and g.split(" x ")[1].split(" ")[0].rstrip("~&!") in
                            ("hidden_size", "d_model", "n_embd", "embed_dim")]
        sandwich += len(per_layer_hidden) >= 4
        y = year_of(mfile)
        by_year[y or "?"][kind] += 1
        by_year[y or "?"]["qk"] += has_qk
    print(f"census of transformers {version}: {sum(status.values())} model_types")
    for k, v in status.most_common():
        print(f"  {k:22} {v}")
    print(f"measured: layernorm {kinds['layernorm']}, rmsnorm {kinds['rmsnorm']}, unknown {kinds['unknown']}")
    print(f"  (1 + w) weights {offset}, QK-norms {qk}, 4 or more hidden-width norms per layer {sandwich}")
    print("by the first copyright year of the modeling file:")
    print("  year  layernorm  rmsnorm  qk-norm")
    for y in sorted(by_year, key=str):
        c = by_year[y]
        print(f"  {y!s:5} {c['layernorm']:9} {c['rmsnorm']:8} {c['qk']:8}")
    place = os.path.join(os.path.dirname(path), "placement.def")
    if os.path.exists(place):
        labels = collections.Counter()
        by_year_p = collections.defaultdict(collections.Counter)
        years = {r[0]: year_of(r[2]) for r in rows(path) if r[3] == "ok"}
        for line in open(place):
            m = re.match(r'^NL_PLACEMENT_ROW\("([^"]+)", "([^"]+)"', line)
            if m:
                labels[m.group(2)] += 1
                by_year_p[years.get(m.group(1)) or "?"][m.group(2)] += 1
        print(f"placement (placement.def, {sum(labels.values())} rows): " +
              ", ".join(f"{k} {v}" for k, v in labels.most_common()))
        print("  year  pre  post  add  sandwich  mixed")
        for y in sorted(by_year_p, key=str):
            c = by_year_p[y]
            print(f"  {y!s:5} {c['pre']:4} {c['post']:5} {c['add']:4} {c['sandwich']:9} {c['mixed']:6}")
    print("failures by reason (first words):")
    for k, v in failures.most_common(8):
        print(f"  {v:4}  {k[:90]}")


if __name__ == "__main__":
    main()
