"""objloops.py — a function's instructions and innermost loops, read from
objdump: what loop-insns.py and loop-compare.py both look at."""
import re
import subprocess


def body(obj, fn):
    """FUNCTION's instructions in OBJECT: (address, mnemonic, operands)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                         text=True, check=True).stdout
    ins, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:" % re.escape(fn), line):
            inside = True
            continue
        if inside and (not line.strip() or re.match(r"^[0-9a-f]+ <", line)):
            break
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if inside and m:
            ins.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return ins


def inner_loops(ins):
    """The address ranges of the loops (a backward jump and its target)
    that hold no other loop."""
    loops = []
    for addr, op, args in ins:
        m = re.match(r"^([0-9a-f]+)", args)
        if op.startswith("j") and m and int(m.group(1), 16) <= addr:
            loops.append((int(m.group(1), 16), addr))
    return [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
