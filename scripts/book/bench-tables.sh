#!/bin/sh
# bench-tables.sh [--rows KIND] [--impl NAMES] [--shape SHAPES] CSV OUT [PEERS.csv] — the tables the
# benchmark figure is drawn from (scripts/book/plot-bench.sh): OUT.t1.dat
# for one thread, OUT.tn.dat for the most threads in the files, one line
# per implementation, and on stdout one line for the drawing:
#   shapes|most threads|has one-thread rows|axis length|left margin|shape names
# PEERS.csv adds its peer rows (peer = 1). KIND keeps one kind of row from
# both files, so that a chapter's figure shows the peers of its own problem:
#   f32       the f32 forward norms (chapter 6)
#   half      the bf16 and fp16 forward norms (chapter 8)
#   backward  the backward passes (chapter 10)
#   all       every row (the default)
# A row's kind is read from its dtype and the bytes moved per element: a
# forward pass reads x and writes y (2 elements), a backward reads x and
# dy and writes dx (3).
# --impl keeps, of those, the rows whose implementation matches one of
# NAMES (comma-separated shell patterns with *, so that `ort-*/*` names
# every ONNX Runtime peer of any version), --shape the shapes listed (RxD,
# comma-separated); a pattern that matches no row of either file is
# refused by name, as a typo would otherwise drop a row unseen.
set -eu
usage="usage: $0 [--rows f32|half|backward|all] [--impl NAMES] [--shape SHAPES] BENCH.csv OUTPUT-PREFIX [PEERS.csv]"
rows=all impls= shapes=
while [ $# -gt 0 ]; do
    case $1 in
        --rows | --impl | --shape)
            [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
            case $1 in --rows) rows=$2 ;; --impl) impls=$2 ;; *) shapes=$2 ;; esac
            shift 2 ;;
        *) break ;;
    esac
done
case $rows in
    f32 | half | backward | all) ;;
    *) echo "bench-tables: --rows $rows: not a kind of row (f32, half, backward or all)" >&2; exit 2 ;;
esac
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
csv=$1 out=$2 peers=${3:-}
[ -r "$csv" ] || { echo "bench-tables: cannot read $csv (run make bench, or use book/data/bench-reference.csv)" >&2; exit 1; }
[ -z "$peers" ] || [ -r "$peers" ] || { echo "bench-tables: cannot read the peers' CSV $peers (make peers writes build/peers.csv)" >&2; exit 1; }

# Pivot the long CSV (one row per measurement) into one table per panel:
# implementation down, shapes across, three numbers per shape (median
# fraction of copy, p10, p90) for gnuplot's error-bar histogram.  The
# implementations keep the CSV's (ladder) order; "-" marks no measurement.
awk -F, -v out="$out" -v rows="$rows" -v want_impls="$impls" -v want_shapes="$shapes" '
    # A shell pattern (* for any run of characters) as an anchored regex.
    function glob(p) { gsub(/[.+?^$(){}|\[\]\\]/, "\\\\&", p); gsub(/\*/, ".*", p); return "^" p "$" }
    BEGIN { nip = split(want_impls, ip, ","); for (i = 1; i <= nip; i++) ire[i] = glob(ip[i])
            nsp = split(want_shapes, sp, ","); for (i = 1; i <= nsp; i++) swant[sp[i]] = 1 }
    function named(impl,   i, ok) {
        if (!nip) return 1
        for (i = 1; i <= nip; i++) if (impl ~ ire[i]) { hit[i] = 1; ok = 1 }
        return ok
    }
    FNR == 1 { hdr = 0; file++ }
    /^#/ || NF < 5 { next }
    !hdr { delete col; for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1
           if (!("frac_copy" in col)) { print "bench-tables: no frac_copy column in " FILENAME > "/dev/stderr"; exit 1 }
           next }
    $col["status"] != "ok" { next }
    file > 1 && $col["peer"] != 1 { next }
    rows != "all" && kind() != rows { next }
    nsp && !(($col["rows"] "x" $col["d"]) in swant) { next }
    !named($col["impl"]) { next }
    {
        # a peer times each dtype under one name: say which
        dt = ("dtype" in col) ? $col["dtype"] : "f32"
        name = $col["impl"] (dt != "f32" && index($col["impl"], dt) == 0 ? " " dt : "") \
               ($col["peer"] == 1 ? " (peer)" : "")
        shape = $col["rows"] "x" $col["d"]; t = $col["threads"] + 0
        if (!(name in seen)) { seen[name] = 1; impls[++ni] = name }
        if (!(shape in sseen)) { sseen[shape] = 1; shapes[++ns] = shape }
        if (t > tmax) tmax = t
        f[name, shape, t] = $col["frac_copy"] " " $col["frac_p10"] " " $col["frac_p90"]
        if ($col["frac_copy"] + 0 > fmax) fmax = $col["frac_copy"] + 0
        has[name, t] = 1; any[t] = 1
    }
    # f32, half or backward; "other" for any other row (a fused add moves
    # more). An old CSV without the columns holds f32 forward rows.
    function kind(   dt, size, moved) {
        dt = ("dtype" in col) ? $col["dtype"] : "f32"
        size = dt == "f32" ? 4 : (dt == "bf16" || dt == "f16") ? 2 : 0
        moved = ("bytes_per_elem" in col) ? $col["bytes_per_elem"] + 0 : 2 * size
        if (size && moved == 3 * size) return "backward"
        if (moved != 2 * size) return "other"
        return dt == "f32" ? "f32" : size ? "half" : "other"
    }
    function table(t, file,   i, j, line) {
        # No header line: gnuplot would count it as a row for the error
        # bars and draw them one slot off.
        printf "" > file
        for (i = 1; i <= ni; i++) {
            if (!has[impls[i], t]) continue
            line = "\"" impls[i] "\""
            for (j = 1; j <= ns; j++)
                line = line " " ((impls[i], shapes[j], t) in f ? f[impls[i], shapes[j], t] : "- - -")
            print line > file
        }
        close(file)
    }
    END {
        for (i = 1; i <= nip; i++)
            if (!(i in hit)) { print "bench-tables: --impl " ip[i] ": no row of that name" (rows != "all" ? " and kind " rows : "") " in the CSV" > "/dev/stderr"; exit 1 }
        if (!hdr || ni == 0) {
            print "bench-tables: no successful measurement" (rows != "all" ? " of kind " rows : "") " in the CSV" > "/dev/stderr"
            exit 1
        }
        table(1, out ".t1.dat")
        if (tmax > 1) table(tmax, out ".tn.dat")
        s = ""; for (j = 1; j <= ns; j++) s = s (j > 1 ? " " : "") shapes[j]
        # Axis to 1.25x the tallest median (at least 1.2, so the roof
        # shows); a noisy p90 above that is clipped, not allowed to squash
        # every bar.
        ymax = fmax * 1.25; if (ymax < 1.2) ymax = 1.2
        w = 0; for (i = 1; i <= ni; i++) if (length(impls[i]) > w) w = length(impls[i])
        print ns "|" tmax "|" (1 in any ? 1 : 0) "|" ymax "|" int(w * 0.95 + 3) "|" s
    }' "$csv" ${peers:+"$peers"}
