#!/usr/bin/env python3
"""loop-insns.py OBJECT FUNCTION — the innermost loops of FUNCTION in an
object file, from objdump: each loop's address range, its instruction count,
and how many of them are vector (zmm/ymm) arithmetic, shuffles, loads and
stores. Chapters 8 and 10 count instructions per 16 elements from it where
the machine has no hardware counters for perf (a kernel without a PMU
driver)."""
import re
import subprocess
import sys

obj, fn = sys.argv[1], sys.argv[2]
out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                     text=True, check=True).stdout
body, inside = [], False
for line in out.splitlines():
    if re.match(r"^[0-9a-f]+ <%s>:" % re.escape(fn), line):
        inside = True
        continue
    if inside and (not line.strip() or re.match(r"^[0-9a-f]+ <", line)):
        break
    m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
    if inside and m:
        body.append((int(m.group(1), 16), m.group(2), m.group(3)))
if not body:
    sys.exit("%s: no function %s" % (obj, fn))
SHUF = re.compile(r"^v(perm|pmov[zs]x|pmov[^m]|pshuf|punpck|extract|insert|shuf|unpck|broadcast|cvtne2?ps2bf16|cvtps2ph|cvtph2ps|compress|expand)")
loops = []
for addr, op, args in body:
    m = re.match(r"^([0-9a-f]+)", args)
    if op.startswith("j") and m:
        target = int(m.group(1), 16)
        if target <= addr:
            loops.append((target, addr))
# innermost: no other loop strictly inside
inner = [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
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
