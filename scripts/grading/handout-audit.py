#!/usr/bin/env python3
"""handout-audit.py -- does a student tree hold any exercise's answer?

    handout-audit.py TREE REGIONS [ID REAL.o STARTER.o]...

TREE is an unpacked handout.  REGIONS is a file of lines "ID PATH START END"
(the @exercise regions of the course's real code, marker lines included,
as scripts/book/snippets.awk lists them).  Each ID REAL.o STARTER.o names
an exercise's file compiled as the grader compiles it, from the real code
and from the starter.  Three searches, each over every file of TREE:

  objects and archives   any ELF file, ar archive, or compressed or tar
                         archive, whatever its name: a handout ships source
                         and data, never something compiled or packed;
  sources                the lines of a region's answer (not its stub), also
                         inside C string literals: a file holding, in a row,
                         half of a region's lines (and at least three;
                         comments, short lines and whitespace left out);
  machine code           each function of REAL.o that the starter does not
                         have byte for byte (relocated bytes masked, which
                         a linker fills in), in the raw bytes of a file and
                         in the bytes its text spells as C byte lists, hex
                         or base64.

Prints one line per finding and exits 1 if there is any, 0 if none.
"""
import base64
import os
import re
import struct
import sys

MIN_CODE = 20       # bytes: a function shorter than this says too little
MIN_LINE = 12       # characters, whitespace removed: shorter lines say too little


# --------------------------------------------------------------- objects

MAGICS = [
    (b"\x7fELF", "an ELF object or program"),
    (b"!<arch>\n", "an ar archive (a static library)"),
    (b"\x1f\x8b", "a gzip stream"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\xfd7zXZ\x00", "an xz stream"),
    (b"BZh", "a bzip2 stream"),
    (b"\x28\xb5\x2f\xfd", "a zstd stream"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive"),
]


def packed_kind(data):
    for magic, what in MAGICS:
        if data.startswith(magic) and (magic != b"BZh" or data[3:4].isdigit()):
            return what
    if len(data) > 262 and data[257:262] == b"ustar":
        return "a tar archive"
    return None


# ------------------------------------------------------- machine code (ELF)

def elf_functions(path):
    """{name: bytes with relocated bytes as None} for the functions of an
    ELF relocatable object (64-bit, little-endian: x86-64 and AArch64)."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit("handout-audit: %s is not a 64-bit little-endian ELF object" % path)
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, shoff + i * shentsize)
        secs.append(dict(name=name, type=typ, off=off, size=size, link=link, info=info,
                         entsize=entsize, flags=flags))
    strtab = secs[shstrndx]
    for s in secs:
        end = data.index(b"\0", strtab["off"] + s["name"])
        s["sname"] = data[strtab["off"] + s["name"]:end].decode()
    # Relocated bytes, per section: 8 bytes for absolute 64-bit ones, 4 for
    # every other (x86-64's 32-bit fields; AArch64 patches 4-byte words).
    wide = {62: {1}, 183: {257}}.get(machine, set())
    masked = {}
    for s in secs:
        if s["type"] != 4:          # SHT_RELA
            continue
        m = masked.setdefault(s["info"], set())
        for k in range(s["size"] // 24):
            r_off, r_info, _ = struct.unpack_from("<QQq", data, s["off"] + 24 * k)
            width = 8 if (r_info & 0xffffffff) in wide else 4
            m.update(range(r_off, r_off + width))
    funcs = {}
    for s in secs:
        if s["type"] != 2:          # SHT_SYMTAB
            continue
        names = secs[s["link"]]
        for k in range(s["size"] // 24):
            st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, s["off"] + 24 * k)
            if st_info & 0xf != 2 or st_size == 0 or st_shndx >= len(secs):   # STT_FUNC
                continue
            end = data.index(b"\0", names["off"] + st_name)
            name = data[names["off"] + st_name:end].decode()
            text = secs[st_shndx]
            raw = data[text["off"] + st_value:text["off"] + st_value + st_size]
            m = masked.get(st_shndx, set())
            funcs[name] = [None if st_value + i in m else b for i, b in enumerate(raw)]
    return funcs


def needle(code):
    """A regex for a function's bytes, masked bytes matching any byte."""
    parts, run = [], bytearray()
    for b in code:
        if b is None:
            if run:
                parts.append(re.escape(bytes(run)))
                run = bytearray()
            parts.append(b".")
        else:
            run.append(b)
    if run:
        parts.append(re.escape(bytes(run)))
    return re.compile(b"".join(parts), re.DOTALL)


def answer_code(real, starter):
    """The functions of the real object that the starter does not have."""
    got = []
    s = elf_functions(starter)
    for name, code in elf_functions(real).items():
        fixed = sum(b is not None for b in code)
        if fixed < MIN_CODE or s.get(name) == code:
            continue
        got.append((name, needle(code)))
    return got


def spelled_bytes(text):
    """Bytes a text file spells out: C byte lists, hex runs, base64 runs."""
    out = []
    hx = re.findall(rb"0x([0-9a-fA-F]{2})\b", text)
    if len(hx) >= MIN_CODE:
        out.append(bytes(int(h, 16) for h in hx))
    for run in re.findall(rb"[0-9a-fA-F]{%d,}" % (2 * MIN_CODE), text):
        out.append(bytes.fromhex(run[: len(run) // 2 * 2].decode()))
    for run in re.findall(rb"[A-Za-z0-9+/]{%d,}={0,2}" % (4 * MIN_CODE // 3), text):
        try:
            out.append(base64.b64decode(run + b"=" * (-len(run) % 4)))
        except ValueError:
            pass
    return out


# ---------------------------------------------------------------- sources

def code_lines(lines):
    """Normalised lines long enough to say something, comments left out
    (a copy need not keep them, and they break a run)."""
    out = []
    for line in lines:
        s = norm_line(line)
        if len(s) >= MIN_LINE and not s.startswith(("/*", "*", "//", "#")):
            out.append(s)
    return out


def norm_line(line):
    """A line with its whitespace gone, and unquoted when it is one line of
    a C string literal ("  x += 1;\\n")."""
    s = re.sub(r"\s+", "", line)
    m = re.fullmatch(r'"(.*?)(\\n)?",?', s)
    if m:
        s = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
    return s


def region_lines(path, start, end):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")[start:end - 1]
    return code_lines(l for l in lines if not re.search(r"@(stub|exercise|end|snippet)\b", l))


def longest_run(region, text):
    """The most consecutive lines of `region` that `text` holds in a row
    (both lists of normalised lines, short ones left out)."""
    at = {}
    for j, line in enumerate(text):
        at.setdefault(line, []).append(j)
    best, prev = 0, {}
    for line in region:
        cur = {}
        for j in at.get(line, ()):
            cur[j] = prev.get(j - 1, 0) + 1
            best = max(best, cur[j])
        prev = cur
    return best


def main(argv):
    if len(argv) < 3 or (len(argv) - 3) % 3:
        sys.stderr.write(__doc__)
        return 2
    tree, regions_file = argv[1], argv[2]
    regions = {}
    for line in open(regions_file):
        ex, path, start, end = line.split()
        regions.setdefault(ex, []).extend(region_lines(path, int(start), int(end)))
    code = []
    for k in range(3, len(argv), 3):
        code += [(argv[k], name, rx) for name, rx in answer_code(argv[k + 1], argv[k + 2])]
    findings = []
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, tree)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            data = open(path, "rb").read()
            kind = packed_kind(data)
            if kind:
                findings.append("%s: %s (a handout holds source and data only)" % (rel, kind))
            for blob in [data] + spelled_bytes(data):
                hit = [(ex, name) for ex, name, rx in code if rx.search(blob)]
                for ex, name in hit:
                    findings.append("%s: the machine code of %s, exercise %s's answer" % (rel, name, ex))
                if hit:
                    break
            text = code_lines(data.decode("utf-8", "replace").split("\n"))
            for ex, lines in regions.items():
                run = longest_run(lines, text)
                if lines and run >= max(3, (len(lines) + 1) // 2):
                    findings.append("%s: %d lines in a row of exercise %s's answer (of %d)" % (rel, run, ex, len(lines)))
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
