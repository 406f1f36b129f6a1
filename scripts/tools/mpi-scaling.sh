#!/usr/bin/env bash
# mpi-scaling.sh [CHAPTER [NOTEBOOK]] — the measurements of chapter 11,
# made with build/normlab-mpi under mpirun and written between marker
# lines, so the book shows the last run and nothing is copied by hand.
# Into CHAPTER (default chapters/11-mpi.md), what every machine shows:
#   <!-- mpi-run:begin/end -->      one run's report, as the chapter's example
#   <!-- mpi-offset:begin/end -->   max error of the sums and the Chan
#                                   summaries as the rows' mean grows (no
#                                   timing: the same on every machine)
# Into NOTEBOOK (default notebook/11-mpi.md), the timings of this machine:
#   <!-- mpi-scaling:begin/end -->  1 to 4 ranks, each way of splitting and
#                                   combining: bytes, time, max error
#   <!-- mpi-latency:begin/end -->  the all-reduce of one row's statistics:
#                                   its latency between processes here
# HTML comments above each table (not printed) say when and on what CPU.
# Run it on a quiet machine: the timings are medians over --repeat steps,
# but mpirun --oversubscribe puts ranks on shared cores when P exceeds them.
#   ROWS, D, REPEAT, MAX_RANKS override the timed shape and run.
set -euo pipefail
chapter=${1:-chapters/11-mpi.md}
notebook=${2:-notebook/11-mpi.md}
prog=${NORMLAB_MPI:-build/normlab-mpi}
rows=${ROWS:-256} d=${D:-8192} repeat=${REPEAT:-50} max_ranks=${MAX_RANKS:-4}
[ -x "$prog" ] || { echo "mpi-scaling: no $prog (make mpi)" >&2; exit 2; }
for pair in "mpi-run $chapter" "mpi-offset $chapter" "mpi-scaling $notebook" "mpi-latency $notebook"; do
    read -r name file <<<"$pair"
    grep -q "^<!-- $name:begin -->$" "$file" && grep -q "^<!-- $name:end -->$" "$file" ||
        { echo "mpi-scaling: $file has no <!-- $name:begin/end --> lines" >&2; exit 2; }
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
    echo "<!-- $(date -u +%F)," \
         "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores," \
         "$(mpirun --version | head -n1) -->"
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

# put NAME TABLE DOC: DOC with the lines between NAME's markers replaced
# by the file TABLE.
put() {
    awk -v name="$1" -v table="$2" '
        $0 == "<!-- " name ":begin -->" { print; while ((getline l < table) > 0) print l; skip = 1; next }
        $0 == "<!-- " name ":end -->" { skip = 0 }
        !skip' "$3" >"$tmp.md" && mv "$tmp.md" "$3"
}

tmp=$(mktemp); trap 'rm -f "$tmp" "$tmp.md"' EXIT
sample_run | tee "$tmp"; put mpi-run "$tmp" "$chapter"
offset_table | tee "$tmp"; put mpi-offset "$tmp" "$chapter"
scaling_table | tee "$tmp"; put mpi-scaling "$tmp" "$notebook"
latency_table | tee "$tmp"; put mpi-latency "$tmp" "$notebook"
echo "mpi-scaling: tables written into $chapter and $notebook"
