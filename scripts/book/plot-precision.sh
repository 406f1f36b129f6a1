#!/bin/sh
# plot-precision.sh DAT OUT — chapter 8's figure: how many rows of a bf16
# tensor have their worst output within each error bucket, for the Llama
# and the Gemma cast order, from `normlab precision --histogram DAT`.
# Writes OUT.pdf and OUT.png.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 HISTOGRAM.dat OUTPUT-PREFIX" >&2; exit 2; }
dat=$1 out=$2
[ -r "$dat" ] || { echo "plot-precision: cannot read $dat (normlab precision --histogram $dat)" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot-precision: gnuplot is not installed; scripts/setup/deps.sh bench installs it (Debian: gnuplot-nox)" >&2
    exit 1
}
for term in pdf png; do
    if [ $term = pdf ]; then t="pdfcairo size 14cm,7cm font 'Sans,8'"; else t="pngcairo size 1050,525 font 'Sans,13'"; fi
    gnuplot -e "set terminal $t; set output '$out.$term'; \
        set style data histograms; set style histogram clustered gap 1; \
        set style fill solid 0.8 border -1; set boxwidth 0.9; set grid ytics; \
        set key top right; set xlabel 'worst error in the row (ulps of bf16, against double)'; \
        set ylabel 'rows'; set yrange [0:*]; \
        set title 'per-row worst error, bf16 RMSNorm, outlier-channel data (normlab precision)'; \
        plot '$dat' using 2:xtic(1) title 'llama order (two roundings)', \
             '' using 3 title 'gemma order (one rounding)'"
done
echo "plot-precision: wrote $out.pdf and $out.png from $dat"
