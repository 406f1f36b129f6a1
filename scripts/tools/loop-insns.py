#!/usr/bin/env python3
"""loop-insns.py OBJECT FUNCTION — the innermost loops of FUNCTION in an
object file, from objdump: each loop's address range, its instruction count,
and how many of them are vector (zmm/ymm) arithmetic, shuffles, loads and
stores. Chapters 8 and 10 count instructions per 16 elements from it where
the machine has no hardware counters for perf (a kernel without a PMU
driver)."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objloops import body as function_body, inner_loops  # noqa: E402

obj, fn = sys.argv[1], sys.argv[2]
body = function_body(obj, fn)
if not body:
    sys.exit("%s: no function %s" % (obj, fn))
SHUF = re.compile(r"^v(perm|pmov[zs]x|pmov[^m]|pshuf|punpck|extract|insert|shuf|unpck|broadcast|cvtne2?ps2bf16|cvtps2ph|cvtph2ps|compress|expand)")
inner = inner_loops(body)
for lo, hi in inner:
    ins = [(op, a) for addr, op, a in body if lo <= addr <= hi]
    vec = [i for i in ins if "zmm" in i[1] or "ymm" in i[1]]
    shuf = [i for i in vec if SHUF.match(i[0])]
    loads = [i for i in vec if "(" in i[1] and not i[1].rstrip().endswith(")")]
    stores = [i for i in vec if i[1].rstrip().endswith(")")]
    print("%s %x..%x: %d instructions, %d vector (%d shuffle/convert, %d with a load, %d stores)"
          % (fn, lo, hi, len(ins), len(vec), len(shuf), len(loads), len(stores)))
    if "-v" in sys.argv[3:]:
        for op, a in ins:
            print("    %-14s %s" % (op, a))
