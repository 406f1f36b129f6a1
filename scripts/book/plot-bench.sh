#!/bin/sh
# plot-bench.sh CSV OUT [PEERS.csv] — draw the benchmark figure from a
# `normlab bench` CSV: the fraction of copy bandwidth each implementation
# reaches, one bar per shape, one panel for one thread and one for the most
# threads in the file.  PEERS.csv (a `make peers` result) adds its peer
# rows (peer = 1: PyTorch, JAX, ONNX Runtime), each a fraction of the copy
# timed in its own run, so they compare with ours as fractions, not as
# milliseconds.  Writes OUT.pdf and OUT.png (OUT.*.dat keep the numbers).
set -eu
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 BENCH.csv OUTPUT-PREFIX [PEERS.csv]" >&2; exit 2; }
csv=$1 out=$2 peers=${3:-}
[ -r "$csv" ] || { echo "plot-bench: cannot read $csv (run make bench, or use book/data/bench-reference.csv)" >&2; exit 1; }
[ -z "$peers" ] || [ -r "$peers" ] || { echo "plot-bench: cannot read the peers' CSV $peers (make peers writes build/peers.csv)" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot-bench: gnuplot is not installed; scripts/setup/deps.sh bench installs it (Debian: gnuplot-nox)" >&2
    exit 1
}
here=$(cd "$(dirname "$0")" && pwd)

# Pivot the long CSV (one row per measurement) into one table per panel:
# implementation down, shapes across, three numbers per shape (median
# fraction of copy, p10, p90) for gnuplot's error-bar histogram.  The
# implementations keep the CSV's (ladder) order; "-" marks no measurement.
meta=$(awk -F, -v out="$out" '
    FNR == 1 { hdr = 0; file++ }
    /^#/ || NF < 5 { next }
    !hdr { delete col; for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1
           if (!("frac_copy" in col)) { print "plot-bench: no frac_copy column in " FILENAME > "/dev/stderr"; exit 1 }
           next }
    $col["status"] != "ok" { next }
    file > 1 && $col["peer"] != 1 { next }
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
        if (!hdr || ni == 0) { print "plot-bench: no successful measurement in the CSV" > "/dev/stderr"; exit 1 }
        table(1, out ".t1.dat")
        if (tmax > 1) table(tmax, out ".tn.dat")
        s = ""; for (j = 1; j <= ns; j++) s = s (j > 1 ? " " : "") shapes[j]
        # Axis to 1.25x the tallest median (at least 1.2, so the roof
        # shows); a noisy p90 above that is clipped, not allowed to squash
        # every bar.
        ymax = fmax * 1.25; if (ymax < 1.2) ymax = 1.2
        w = 0; for (i = 1; i <= ni; i++) if (length(impls[i]) > w) w = length(impls[i])
        print ns "|" tmax "|" (1 in any ? 1 : 0) "|" ymax "|" int(w * 0.85 + 3) "|" s
    }' "$csv" ${peers:+"$peers"})

nshapes=${meta%%|*}; rest=${meta#*|}
tmax=${rest%%|*}; rest=${rest#*|}
have1=${rest%%|*}; rest=${rest#*|}
ymax=${rest%%|*}; rest=${rest#*|}
lmarg=${rest%%|*}; shapes=${rest#*|}
# Say where the numbers came from, under the figure.
source_line=$(grep -m1 '^# cpu:' "$csv" | sed 's/^# cpu: //' || true)

for term in pdf png; do
    gnuplot -e "out='$out.$term'; term='$term'; t1='$out.t1.dat'; tn='$out.tn.dat'; \
        have1=$have1; ymax=$ymax; tmax=$tmax; nshapes=$nshapes; lmarg=$lmarg; shapes='$shapes'; source='$source_line'" \
        "$here/plot-bench.gp"
done
echo "plot-bench: wrote $out.pdf and $out.png from $csv${peers:+ and the peers of $peers}"
