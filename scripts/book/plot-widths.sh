#!/bin/sh
# plot-widths.sh RUNGS NARROW.csv WIDE.csv OUT — one schedule at two
# widths: the fraction of copy bandwidth each rung reaches at one thread,
# one row per rung, one bar per width (chapter 6). NARROW.csv and WIDE.csv
# are `normlab bench` runs of the rungs of one width each (make simd-goals:
# the isa line of each file says which). RUNGS names the rungs without
# their width, in the order drawn, first rung to last (comma-separated):
# "rmsnorm_nt" is rmsnorm_avx2_nt in an AVX2 file, rmsnorm_avx512_nt in an
# AVX-512 one. Writes OUT.pdf and OUT.png (OUT.t1.dat keeps the numbers),
# drawn by plot-bench.gp with the two widths where it has shapes.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 RUNGS NARROW.csv WIDE.csv OUT" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot-widths: gnuplot is not installed; scripts/setup/deps.sh bench installs it (Debian: gnuplot-nox)" >&2
    exit 1
}
rungs=$1 narrow=$2 wide=$3 out=$4
for f in "$narrow" "$wide"; do
    [ -r "$f" ] || { echo "plot-widths: cannot read $f (make simd-goals writes build/simd-rungs-ISA.csv)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)

# The width of a file: its "# isa:" line's first word.
isa_of() { sed -n 's/^# isa: \([a-z0-9]*\).*/\1/p' "$1" | head -1; }
isa1=$(isa_of "$narrow") isa2=$(isa_of "$wide")
if [ -z "$isa1" ] || [ -z "$isa2" ]; then
    echo "plot-widths: $narrow or $wide has no '# isa:' line (a run of normlab bench from before the column)" >&2
    exit 1
fi
label() { case $1 in avx2) echo AVX2 ;; avx512) echo AVX-512 ;; neon) echo NEON ;; *) echo "$1" ;; esac; }

# One line per rung: its name, then median, p10 and p90 of each width;
# "-" where a file has no such row. A rung that neither file has is a typo.
awk -F, -v rungs="$rungs" -v isa1="$isa1" -v isa2="$isa2" -v out="$out.t1.dat" '
    FNR == 1 { hdr = 0; file++ }
    /^#/ || NF < 5 { next }
    !hdr { delete col; for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
    $col["status"] != "ok" || $col["threads"] != 1 { next }
    { f[file, $col["impl"]] = $col["frac_copy"] " " $col["frac_p10"] " " $col["frac_p90"]
      if ($col["frac_copy"] + 0 > fmax) fmax = $col["frac_copy"] + 0 }
    # rmsnorm_nt at width avx2: rmsnorm_avx2_nt
    function at(r, isa,   u) { u = index(r, "_"); return u ? substr(r, 1, u - 1) "_" isa substr(r, u) : r "_" isa }
    END {
        n = split(rungs, r, ","); w = 0; printf "" > out
        for (i = 1; i <= n; i++) {
            a = at(r[i], isa1); b = at(r[i], isa2)
            if (!((1, a) in f) && !((2, b) in f)) { print "plot-widths: rung " r[i] ": neither " a " nor " b " in the CSVs" > "/dev/stderr"; bad = 1; continue }
            print "\"" r[i] "\" " ((1, a) in f ? f[1, a] : "- - -") " " ((2, b) in f ? f[2, b] : "- - -") > out
            if (length(r[i]) > w) w = length(r[i])
        }
        if (bad) exit 1
        ymax = fmax * 1.25; if (ymax < 1.2) ymax = 1.2
        print ymax "|" int(w * 0.95 + 3)
    }' "$narrow" "$wide" >"$out.meta"
ymax=$(cut -d'|' -f1 "$out.meta") lmarg=$(cut -d'|' -f2 "$out.meta")
rm -f "$out.meta"
source_line=$(grep -m1 '^# cpu:' "$wide" | sed 's/^# cpu: //' || true)
for term in pdf png; do
    gnuplot -e "out='$out.$term'; term='$term'; t1='$out.t1.dat'; tn=''; \
        have1=1; ymax=$ymax; tmax=1; nshapes=2; lmarg=$lmarg; shapes='$(label "$isa1") $(label "$isa2")'; source='$source_line'" \
        "$here/plot-bench.gp"
done
echo "plot-widths: wrote $out.pdf and $out.png from $narrow ($isa1) and $wide ($isa2)"
