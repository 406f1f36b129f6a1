#!/usr/bin/env bash
# train-experiment.sh — chapter 13's experiment, run by `make train-experiment`:
#
#   train-experiment.sh corpus WORK
#       the corpus, WORK/train.txt and WORK/val.txt: the course's own
#       chapters, worked solutions and C code (chapters/*.md,
#       solutions/*.md, code/**/*.{c,h,cl}), every tenth file (sorted by
#       path) held out for validation
#   train-experiment.sh run NORMLAB REPORT WORK OUT_CSV OUT_SAMPLE
#       the corpus, then for each seed a LayerNorm and an RMSNorm GPT-2 of
#       the same size, the same initial weights (the seed's) and the same
#       batches, trained in turn (the order alternates by seed, so that a
#       machine that slows down over the minutes favours neither norm);
#       then the first seed's LayerNorm model converted by `normlab
#       convert`, its logits and sampled text against the trained model's.
#       OUT_CSV: every run's rows after the runs' own comment lines and the
#       experiment's (commit, processor, corpus, conversion); OUT_SAMPLE:
#       the text the trained model sampled.
#
# Settings from the environment: TRAIN_SEEDS (1 2 3), TRAIN_STEPS (600),
# TRAIN_THREADS (every core), TRAIN_FLAGS (the model and batch options).
set -euo pipefail
usage() { sed -n '2,22p' "$0" >&2; exit 2; }

corpus() {
    local work=$1 i=0 f
    mkdir -p "$work"
    : >"$work/train.txt"
    : >"$work/val.txt"
    for f in $({ ls chapters/*.md solutions/*.md; find code \( -name '*.c' -o -name '*.h' -o -name '*.cl' \); } | LC_ALL=C sort); do
        if [ $((i % 10)) -eq 9 ]; then cat "$f" >>"$work/val.txt"; else cat "$f" >>"$work/train.txt"; fi
        i=$((i + 1))
    done
    echo "$i"
}

case ${1:-} in
corpus) [ $# -eq 2 ] || usage; corpus "$2" >/dev/null; exit 0 ;;
run) [ $# -eq 6 ] || usage; shift ;;
*) usage ;;
esac
normlab=$1 report=$2 work=$3 out=$4 sample_out=$5
seeds=${TRAIN_SEEDS:-1 2 3}
steps=${TRAIN_STEPS:-600}
threads=${TRAIN_THREADS:-$(nproc)}
read -r -a flags <<<"${TRAIN_FLAGS:---layers 4 --channels 128 --heads 4 --context 128 --batch 16 --seq 128 --lr 1e-3 --val-every 25 --val-batches 8}"
start=$(date +%s)
files=$(corpus "$work")
corpus_sum=$(cat "$work/train.txt" "$work/val.txt" | sha256sum | cut -c1-16)

first=${seeds%% *}
for seed in $seeds; do
    order="layernorm rmsnorm"
    [ $((seed % 2)) -eq 0 ] && order="rmsnorm layernorm"
    for norm in $order; do
        echo "::: $norm, seed $seed: $steps steps on $threads threads" >&2
        "$normlab" train --text "$work/train.txt" --val "$work/val.txt" --norm "$norm" \
            --seed "$seed" --steps "$steps" --threads "$threads" "${flags[@]}" \
            --csv "$work/$norm-$seed.csv" --out "$work/$norm-$seed.bin" --force >/dev/null
    done
done

echo "::: the first seed's LayerNorm model, converted to RMSNorm" >&2
ln=$work/layernorm-$first.bin rms=$work/converted-$first.bin
"$normlab" convert --in "$ln" --out "$rms" --force >/dev/null
context=$(sed -n 's/^# model:.* context=\([0-9]*\).*/\1/p' "$work/layernorm-$first.csv")
tokens=$(head -c "$context" "$work/val.txt" | od -An -tu1 -v | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
"$normlab" logits --model "$ln" --tokens "$tokens" --out "$work/ln.npy" --force >/dev/null
"$normlab" logits --model "$rms" --tokens "$tokens" --out "$work/rms.npy" --force >/dev/null
logits=$("$report" compare "$work/ln.npy" "$work/rms.npy")
prompt="The norm "
length=400
"$normlab" sample --model "$ln" --seed "$first" --length $length --prompt "$prompt" >"$work/ln.txt"
"$normlab" sample --model "$rms" --seed "$first" --length $length --prompt "$prompt" >"$work/rms.txt"
same=0
cmp -s "$work/ln.txt" "$work/rms.txt" && same=1

tmp=$out.tmp
{
    echo "# experiment: commit=$(git describe --always --dirty 2>/dev/null || echo unknown) seeds=${seeds// /,} steps=$steps"
    echo "# machine: cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | tr ' ' '_') cores=$(nproc) load=$(cut -d' ' -f1 /proc/loadavg)"
    echo "# corpus: files=$files train_bytes=$(wc -c <"$work/train.txt") val_bytes=$(wc -c <"$work/val.txt") sha256_16=$corpus_sum"
    echo "# convert: $logits sample_identical=$same sample_bytes=$length seed=$first"
    sed -n '/^#/p' "$work/layernorm-$first.csv"
    sed -n '/^norm,/p' "$work/layernorm-$first.csv"
    for seed in $seeds; do
        for norm in layernorm rmsnorm; do sed '/^#/d; /^norm,/d' "$work/$norm-$seed.csv"; done
    done
} >"$tmp"
mv "$tmp" "$out"
cp "$work/ln.txt" "$sample_out"
echo "::: wrote $out and $sample_out in $(( $(date +%s) - start )) s; converted model: $logits, same text: $same" >&2
