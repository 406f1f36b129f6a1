#!/usr/bin/env bash
# mpi-scaling.sh [CHAPTER] — the measurements chapter 11 quotes, made with
# build/normlab-mpi under mpirun and written into CHAPTER (default
# chapters/11-mpi.md) between marker lines, so the book shows the last run
# and nothing is copied by hand:
#   <!-- mpi-run:begin/end -->      one run's report, as the chapter's example
#   <!-- mpi-offset:begin/end -->   max error of the sums and the Chan
#                                   summaries as the rows' mean grows (no
#                                   timing: the same on every machine)
#   <!-- mpi-scaling:begin/end -->  1 to 4 ranks, each way of splitting and
#                                   combining: bytes, time, max error
#   <!-- mpi-latency:begin/end -->  the all-reduce of one row's statistics:
#                                   its latency between processes here
# HTML comments above each table (not printed) say where and when it ran.
# Run it on a quiet machine: the timings are medians over --repeat steps,
# but mpirun --oversubscribe puts ranks on shared cores when P exceeds them.
#   ROWS, D, REPEAT, MAX_RANKS override the timed shape and run.
set -euo pipefail
chapter=${1:-chapters/11-mpi.md}
prog=${NORMLAB_MPI:-build/normlab-mpi}
rows=${ROWS:-256} d=${D:-8192} repeat=${REPEAT:-50} max_ranks=${MAX_RANKS:-4}
[ -x "$prog" ] || { echo "mpi-scaling: no $prog (make mpi)" >&2; exit 2; }
for name in mpi-run mpi-offset mpi-scaling mpi-latency; do
    grep -q "^<!-- $name:begin -->$" "$chapter" && grep -q "^<!-- $name:end -->$" "$chapter" ||
        { echo "mpi-scaling: $chapter has no <!-- $name:begin/end --> lines" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# run P ARGS...: normlab-mpi's report (it exits 1 when the error is above
# its tolerance: that is a result here, not a failure).
run() { local p=$1; shift; mpirun -np "$p" --oversubscribe "$prog" "$@" 2>/dev/null || true; }
# The value after "key: " on the report's line that starts with key.
field() { sed -n "s/^$1: //p" <<<"$2" | head -n1; }
error() { field "max error" "$1" | cut -d' ' -f1; }
origin() {
    echo "<!-- made by scripts/tools/mpi-scaling.sh (make mpi-scaling): do not edit -->"
    echo "<!-- $(date -u +%F) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
         "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores," \
         "load average $(cut -d' ' -f1-3 /proc/loadavg), $(mpirun --version | head -n1) -->"
}

sample_run() {
    origin
    echo
    echo '```text'
    run 4 --norm ln --shard hidden --method chan --rows 64 --d 4099
    echo '```'
}

offset_table() {
    origin
    echo "<!-- 64 rows x 4099, data Gaussian std 1, LayerNorm split by columns -->"
    echo
    echo "| mean of the rows | sums, 1 rank | sums, 4 ranks | Chan, 4 ranks |"
    echo "|------:|------:|------:|------:|"
    for mean in 0 10 100 1000 10000 40000; do
        local a=(--norm ln --shard hidden --rows 64 --d 4099 --mean "$mean")
        echo "| $mean | $(error "$(run 1 "${a[@]}" --method sums)") |" \
             "$(error "$(run 4 "${a[@]}" --method sums)") |" \
             "$(error "$(run 4 "${a[@]}" --method chan)") |"
    done
}

scaling_table() {
    origin
    echo "<!-- $rows rows x $d, data Gaussian mean 4e4 std 1, median of $repeat steps, slowest rank -->"
    echo
    echo "| ranks | split | norm, statistics | B/row sent per rank | compute µs | communication µs | max error |"
    echo "|---:|------|------------|-----:|------:|------:|------:|"
    local p cfg shard method norm o what bytes t
    for p in $(seq 1 "$max_ranks"); do
        for cfg in "hidden chan ln" "hidden sums ln" "hidden - rms" "rows chan ln"; do
            read -r shard method norm <<<"$cfg"
            local a=(--norm "$norm" --shard "$shard" --rows "$rows" --d "$d" --mean 4e4 --repeat "$repeat")
            [ "$method" = - ] || a+=(--method "$method")
            o=$(run "$p" "${a[@]}")
            case $norm/$method/$shard in
            ln/chan/hidden) what="LN, (n, mean, M2)" ;;
            ln/sums/hidden) what="LN, (Σx, Σx²) float" ;;
            rms/*/hidden) what="RMS, Σx²" ;;
            *) what="${norm^^}, none" ;;
            esac
            bytes=$(field statistics "$o" | sed -n 's/.*, \([0-9]*\) B per row from each rank.*/\1/p')
            t=$(field "time per step (slowest rank, median of $repeat)" "$o")
            echo "| $p | $shard | $what | ${bytes:-0} |" \
                 "$(sed -n 's/.*compute \([0-9.]*\) us.*/\1/p' <<<"$t") |" \
                 "$(sed -n 's/.*communication \([0-9.]*\) us.*/\1/p' <<<"$t") | $(error "$o") |"
        done
    done
}

latency_table() {
    origin
    echo "<!-- 1 row x 64, LayerNorm split by columns, median of 500 steps, slowest rank -->"
    echo
    echo "| ranks | compute µs | communication µs |"
    echo "|---:|------:|------:|"
    local p t
    for p in $(seq 2 "$max_ranks"); do
        t=$(field "time per step (slowest rank, median of 500)" \
            "$(run "$p" --norm ln --shard hidden --method chan --rows 1 --d 64 --repeat 500)")
        echo "| $p | $(sed -n 's/.*compute \([0-9.]*\) us.*/\1/p' <<<"$t") |" \
             "$(sed -n 's/.*communication \([0-9.]*\) us.*/\1/p' <<<"$t") |"
    done
}

# put NAME FILE: the chapter with the lines between NAME's markers
# replaced by FILE.
put() {
    awk -v name="$1" -v table="$2" '
        $0 == "<!-- " name ":begin -->" { print; while ((getline l < table) > 0) print l; skip = 1; next }
        $0 == "<!-- " name ":end -->" { skip = 0 }
        !skip' "$chapter" >"$tmp.md" && mv "$tmp.md" "$chapter"
}

tmp=$(mktemp); trap 'rm -f "$tmp" "$tmp.md"' EXIT
sample_run | tee "$tmp"; put mpi-run "$tmp"
offset_table | tee "$tmp"; put mpi-offset "$tmp"
scaling_table | tee "$tmp"; put mpi-scaling "$tmp"
latency_table | tee "$tmp"; put mpi-latency "$tmp"
echo "mpi-scaling: tables written into $chapter"
