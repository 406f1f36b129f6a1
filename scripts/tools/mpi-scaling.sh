#!/usr/bin/env bash
# mpi-scaling.sh [CHAPTER] — the measurements chapter 11 quotes: normlab-mpi
# with 1 to 4 ranks on this machine, for each way of splitting and
# combining, as a Markdown table written into CHAPTER (default
# chapters/11-mpi.md) between the lines <!-- mpi-scaling:begin --> and
# <!-- mpi-scaling:end -->, so the book shows the last run and nothing is
# copied by hand. HTML comments above the table (not printed) say where and
# when it ran. Run it on a quiet machine: the timings are medians over
# --repeat steps, but mpirun --oversubscribe puts ranks on shared cores
# when P exceeds them.
#   ROWS, D, REPEAT, MAX_RANKS override the shape and the run.
set -euo pipefail
chapter=${1:-chapters/11-mpi.md}
prog=${NORMLAB_MPI:-build/normlab-mpi}
rows=${ROWS:-256} d=${D:-8192} repeat=${REPEAT:-50} max_ranks=${MAX_RANKS:-4}
[ -x "$prog" ] || { echo "mpi-scaling: no $prog (make mpi)" >&2; exit 2; }
grep -q '^<!-- mpi-scaling:begin -->$' "$chapter" && grep -q '^<!-- mpi-scaling:end -->$' "$chapter" ||
    { echo "mpi-scaling: $chapter has no <!-- mpi-scaling:begin/end --> lines" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# The value after "key: " on normlab-mpi's line that starts with key.
field() { sed -n "s/^$1: //p" <<<"$2" | head -n1; }

tmp=$(mktemp); trap 'rm -f "$tmp" "$tmp.md"' EXIT
{
    echo "<!-- mpi-scaling:begin -->"
    echo "<!-- made by scripts/tools/mpi-scaling.sh (make mpi-scaling): do not edit -->"
    echo "<!-- $(date -u +%F) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
         "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores," \
         "load average $(cut -d' ' -f1-3 /proc/loadavg), $(mpirun --version | head -n1) -->"
    echo "<!-- $rows rows x $d, data Gaussian mean 4e4 std 1, median of $repeat steps, slowest rank -->"
    echo
    echo "| ranks | split | norm, statistics | B/row sent per rank | compute µs | communication µs | max error |"
    echo "|---:|------|------------|-----:|------:|------:|------:|"
    for p in $(seq 1 "$max_ranks"); do
        for cfg in "hidden chan ln" "hidden sums ln" "hidden - rms" "rows chan ln"; do
            read -r shard method norm <<<"$cfg"
            args=(--norm "$norm" --shard "$shard" --rows "$rows" --d "$d" --mean 4e4 --repeat "$repeat")
            [ "$method" = - ] || args+=(--method "$method")
            o=$(mpirun -np "$p" --oversubscribe "$prog" "${args[@]}" 2>/dev/null) || true
            err=$(field "max error" "$o" | cut -d' ' -f1)
            stats=$(field statistics "$o")
            bytes=$(sed -n 's/.*: \([0-9]*\) B per row from each rank.*/\1/p' <<<"$stats")
            case $norm/$method/$shard in
            ln/chan/hidden) what="LN, (n, mean, M2)" ;;
            ln/sums/hidden) what="LN, (Σx, Σx²) float" ;;
            rms/*/hidden) what="RMS, Σx²" ;;
            *) what="${norm^^}, none" ;;
            esac
            [ -n "$bytes" ] || bytes=0
            t=$(field "time per step (slowest rank, median of $repeat)" "$o")
            compute=$(sed -n 's/.*compute \([0-9.]*\) us.*/\1/p' <<<"$t")
            comm=$(sed -n 's/.*communication \([0-9.]*\) us.*/\1/p' <<<"$t")
            echo "| $p | $shard | $what | $bytes | $compute | $comm | $err |"
        done
    done
    echo "<!-- mpi-scaling:end -->"
} >"$tmp"
cat "$tmp"
# The chapter with the lines between the markers replaced by the new block.
awk -v table="$tmp" '$0 == "<!-- mpi-scaling:begin -->" { while ((getline l < table) > 0) print l; skip = 1; next }
    $0 == "<!-- mpi-scaling:end -->" { skip = 0; next }
    !skip' "$chapter" >"$tmp.md" && mv "$tmp.md" "$chapter"
echo "mpi-scaling: table written into $chapter"
