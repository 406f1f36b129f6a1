#!/bin/sh
# plot-bench.sh [--rows KIND] [--impl NAMES] [--shape SHAPES] CSV OUT [PEERS.csv]
# — draw the benchmark figure from a `normlab bench` CSV: the fraction of
# copy bandwidth each implementation reaches, one bar per shape, one panel
# for one thread and one for the most threads in the file.  PEERS.csv (a
# `make peers` result) adds its peer rows (peer = 1: PyTorch, JAX, ONNX
# Runtime), each a fraction of the copy timed in its own run, so they
# compare with ours as fractions, not as milliseconds.  KIND (f32, half,
# backward or all) keeps one kind of row from both files:
# scripts/book/bench-tables.sh, which makes the tables, says how.
# --impl and --shape keep only the rows named (bench-tables.sh says how),
# so that a chapter's figure shows the rungs its text reads, not every row
# of the run.  Writes OUT.pdf and OUT.png (OUT.*.dat keep the numbers).
set -eu
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot-bench: gnuplot is not installed; scripts/setup/deps.sh bench installs it (Debian: gnuplot-nox)" >&2
    exit 1
}
here=$(cd "$(dirname "$0")" && pwd)
# bench-tables.sh checks the arguments; the options come in pairs.
meta=$("$here/bench-tables.sh" "$@")
rows=all
while [ "${1#--}" != "$1" ]; do
    [ "$1" != --rows ] || rows=$2
    shift 2
done
csv=$1 out=$2 peers=${3:-}

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
echo "plot-bench: wrote $out.pdf and $out.png from $csv${peers:+ and the peers of $peers}$([ "$rows" = all ] || echo " ($rows rows)")"
