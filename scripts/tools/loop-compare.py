#!/usr/bin/env python3
"""loop-compare.py OLD.o NEW.o FUNCTION... — whether the innermost loops of
each FUNCTION do the same vector work in two object files: for every loop
of OLD, a loop of NEW with the same vector instructions (arithmetic,
loads, stores, streaming stores, prefetches) in the same order, or else
in another order ("reordered"), up to register names and addressing; and each loop's instruction count, since
the scalar bookkeeping around them (counters, pointers) may differ.
Written to check that a kernel rewritten over the vector layer (vec.h)
compiles to the loops the hand-written kernel had; exit 1 if any loop is
unmatched."""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from objloops import body, inner_loops  # noqa: E402


def shape(op, args):
    """A vector instruction without its registers, offsets and addressing;
    None for the scalar bookkeeping."""
    if not re.search(r"%[xyz]mm|%k\d", args) and not op.startswith(("prefetch", "sfence")):
        return None
    a = re.sub(r"#.*", "", args)
    a = re.sub(r"-?(0x)?[0-9a-f]*\([^)]*\)", "M", a)
    a = re.sub(r"[0-9a-f]+ <[^>]*>", "L", a)
    a = re.sub(r"%[xyz]mm\d+", "%V", a)
    a = re.sub(r"%k\d", "%K", a)
    a = re.sub(r"%[re]?[a-z0-9]+", "%R", a)
    a = re.sub(r"-?0x[0-9a-f]+|\b\d+\b", "N", a)
    return op + " " + a.strip()


def loops(ins):
    return [(tuple(x for x in (shape(op, a) for addr, op, a in ins if lo <= addr <= hi) if x),
             sum(1 for addr, op, a in ins if lo <= addr <= hi)) for lo, hi in inner_loops(ins)]


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: loop-compare.py OLD.o NEW.o FUNCTION...")
    old, new, fns = sys.argv[1], sys.argv[2], sys.argv[3:]
    differ = 0
    for fn in fns:
        a, b = loops(body(old, fn)), loops(body(new, fn))
        if not a and not b:
            print("%s: no loops in either (missing function?)" % fn)
            differ = 1
            continue
        left = list(b)
        same, only_old, counts = 0, [], []
        for work, n in a:
            match = [l for l in left if l[0] == work]
            mark = ""
            if not match: # the same instructions, scheduled in another order
                match = [l for l in left if sorted(l[0]) == sorted(work)]
                mark = " reordered"
            if match:
                left.remove(match[0])
                same += 1
                counts.append("%d->%d%s" % (n, match[0][1], mark))
            else:
                only_old.append((work, n))
        print("%s: %d of %d loops the same vector work (instructions per trip %s)%s" % (
            fn, same, len(a), ", ".join(counts) or "-", "" if not only_old and not left else
            "; %d only before, %d only after" % (len(only_old), len(left))))
        for tag, group in (("before", only_old), ("after", left)):
            for work, n in group:
                differ = 1
                print("  only %s (%d instructions): %s" % (tag, n, "; ".join(work)))
    sys.exit(differ)


main()
