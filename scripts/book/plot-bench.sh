#!/bin/sh
# plot-bench.sh [--rows KIND] CSV OUT [PEERS.csv] — draw the benchmark
# figure from a `normlab bench` CSV: the fraction of copy bandwidth each
# implementation reaches, one bar per shape, one panel for one thread and
# one for the most threads in the file.  PEERS.csv (a `make peers` result)
# adds its peer rows (peer = 1: PyTorch, JAX, ONNX Runtime), each a
# fraction of the copy timed in its own run, so they compare with ours as
# fractions, not as milliseconds.  KIND (f32, half, backward or all) keeps
# one kind of row from both files: scripts/book/bench-tables.sh, which
# makes the tables, says how.  --impl LIST (names, comma-separated) keeps
# of CSV only those implementations, in that order, so that a chapter's
# figure shows the kernels its text is about; the peers' rows stay.
# Writes OUT.pdf and OUT.png (OUT.*.dat keep the numbers).
set -eu
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot-bench: gnuplot is not installed; scripts/setup/deps.sh bench installs it (Debian: gnuplot-nox)" >&2
    exit 1
}
here=$(cd "$(dirname "$0")" && pwd)
rows=all impls=
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift 2 ;;
        --impl) impls=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--rows KIND] [--impl LIST] BENCH.csv OUTPUT-PREFIX [PEERS.csv]" >&2; exit 2; }
csv=$1 out=$2 peers=${3:-}
src=$csv
if [ -n "$impls" ]; then
    [ -r "$csv" ] || { echo "plot-bench: cannot read $csv" >&2; exit 1; }
    # The '#' lines and the header as they are, then the rows of each
    # named implementation in the order of LIST.
    mkdir -p "$(dirname "$out")"
    awk -F, -v list="$impls" '
        BEGIN { n = split(list, want, ","); for (i = 1; i <= n; i++) pos[want[i]] = i }
        /^#/ || !hdr { print; if (!/^#/) hdr = 1; next }
        $1 in pos { keep[pos[$1]] = keep[pos[$1]] $0 "\n"; found[$1] = 1 }
        END { for (i = 1; i <= n; i++) {
                  if (!(want[i] in found)) printf "plot-bench: %s has no row of %s\n", FILENAME, want[i] > "/dev/stderr"
                  printf "%s", keep[i] } }' "$csv" > "$out.impl.csv"
    csv=$out.impl.csv
fi
meta=$("$here/bench-tables.sh" --rows "$rows" "$csv" "$out" ${peers:+"$peers"})

nshapes=${meta%%|*}; rest=${meta#*|}
tmax=${rest%%|*}; rest=${rest#*|}
have1=${rest%%|*}; rest=${rest#*|}
ymax=${rest%%|*}; rest=${rest#*|}
lmarg=${rest%%|*}; shapes=${rest#*|}
# Say where the numbers came from, under the figure.
source_line=$(grep -m1 '^# cpu:' "$src" | sed 's/^# cpu: //' || true)

for term in pdf png; do
    gnuplot -e "out='$out.$term'; term='$term'; t1='$out.t1.dat'; tn='$out.tn.dat'; \
        have1=$have1; ymax=$ymax; tmax=$tmax; nshapes=$nshapes; lmarg=$lmarg; shapes='$shapes'; source='$source_line'" \
        "$here/plot-bench.gp"
done
echo "plot-bench: wrote $out.pdf and $out.png from $src${peers:+ and the peers of $peers}$([ "$rows" = all ] || echo " ($rows rows)")"
