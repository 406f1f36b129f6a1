#!/usr/bin/env bash
# insn-map.sh PROGRAM LINKMAP OBJ... — the floating-point arithmetic
# instructions of OBJ (the student's objects) inside the linked PROGRAM (the
# worker, linked without PIE, so addresses are fixed), one a line:
# "ADDRESS P" for packed (vector) arithmetic, "ADDRESS S" for scalar.
# The judge (judge/count.c) looks up each address it single-steps, so that
# a test can say whether packed arithmetic does a loop's work.  LINKMAP is
# the linker's map (-Wl,-Map), which says where each object's code landed.
#
#   packed   x86: add/sub/mul/div/min/max/sqrt/hadd/dp...ps|pd (SSE, AVX,
#            AVX-512), the FMA forms vfmadd231ps...; Arm: fadd, fmul, fmla...
#            with a vector operand (v0.4s, v0.2d, v0.8h, z0...)
#   scalar   the same on ss|sd (and x87's fadd, fmul...); Arm: those on
#            s0, d0, h0
# Loads, stores, shuffles and conversions are neither: what a loop computes
# is its arithmetic.
set -u
prog=$1 linkmap=$2; shift 2
for obj in "$@"; do
    # The input sections of obj: "SECTION ADDRESS SIZE OBJ", the name on
    # the line before when it is long.
    awk -v obj="$obj" '
        $1 ~ /^\.text/ && NF == 1 { name = $1; next }
        $NF == obj && $(NF - 2) ~ /^0x/ && $(NF - 1) ~ /^0x/ {
            sec = (NF == 4) ? $1 : name
            if (sec ~ /^\.text/) print $(NF - 2), $(NF - 1)
        }
        { name = "" }' "$linkmap"
done | while read -r at size; do
    [ "$((size))" -gt 0 ] || continue
    objdump -d --no-show-raw-insn --start-address="$at" --stop-address="$((at + size))" "$prog"
done | awk '
    /^ *[0-9a-f]+:\t/ {
        addr = $1; sub(/:$/, "", addr)
        line = $0; sub(/^ *[0-9a-f]+:\t/, "", line)
        n = split(line, w, /[ \t]+/)
        m = w[1]; ops = (n > 1) ? substr(line, length(m) + 2) : ""
        if (m ~ /^\{/) { m = w[2]; ops = substr(line, length(w[1]) + length(m) + 3) }
        kind = ""
        if (m ~ /^v?(add|sub|mul|div|min|max|sqrt|rcp|rsqrt|hadd|hsub|addsub|dp)p[sdh]$/ ||
            m ~ /^vf(n?m(add|sub)|maddsub|msubadd)(132|213|231)?p[sdh]$/) kind = "P"
        else if (m ~ /^v?(add|sub|mul|div|min|max|sqrt|rcp|rsqrt)s[sdh]$/ ||
                 m ~ /^vf(n?m(add|sub))(132|213|231)?s[sdh]$/ ||
                 (m ~ /^fi?(add|sub|subr|mul|div|divr)p?$|^fsqrt$/ && (ops == "" || ops ~ /%st/))) kind = "S"
        else if (m ~ /^f(add|sub|mul|div|mla|mls|madd|msub|nmadd|nmsub|nmul|sqrt|max|min|maxnm|minnm|abd|addp|mulx)$/) {
            if (ops ~ /(^|[ ,{])(v[0-9]+\.[0-9]*[bhsd]|z[0-9]+\.)/) kind = "P"
            else if (ops ~ /(^|[ ,])[hsd][0-9]+/) kind = "S"
        }
        if (kind != "") print addr, kind
    }'
