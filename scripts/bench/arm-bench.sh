#!/bin/sh
# arm-bench.sh [BUILD] — one command for a reader on an Arm machine (a
# Graviton or Ampere server, a Raspberry Pi 5, an Apple-silicon Mac inside a
# Linux VM): build normlab, time the NEON rungs of chapters 5, 6, 8 and 10
# against this machine's copy roof, and leave one CSV to send back.
#
#   scripts/bench/arm-bench.sh            (or: make arm-bench)
#
# What it times, each on 4096x4096 and 16384x8192 (both larger than the
# caches of the Arm cores we know), on one thread and on every core:
#   f32     the NEON first rungs and each memory-wall rung of the schedule
#           (_nt: output by STNP, _pf: the next row prefetched, _shift:
#           LayerNorm's one-pass statistics, _block: four rows a loop), and
#           the dispatchers _best and _omp
#   bf16    the Llama, Gemma and LayerNorm cast orders: the first NEON rung
#           and the f32stats, split and block rungs, and the dispatchers
#   backward the first NEON rung, the stream and skew rungs, and _omp
# Both rung shapes are in it (the block rungs and the row rungs they are
# built from), so the run says which this core prefers; NORMLAB_RUNGS
# picks the dispatchers' shape (default: block).
#
# What it prints: the table of every row (ms, GB/s, fraction of the copy,
# the copy's own GB/s), then where it wrote the CSV. The CSV starts with
# the machine (CPU, caches, compiler, the commit): send that file back
# as it is. It needs about 3 GiB of free memory and takes 5-15 minutes;
# nothing is installed but what `make` installs (the build's packages).
set -eu
build=${1:-build}
arch=$(uname -m)
case $arch in
    aarch64 | arm64) ;;
    *) echo "arm-bench: this is $arch, not an Arm core; the NEON rungs exist only on aarch64" >&2
       exit 2 ;;
esac
[ "$(uname -s)" = Linux ] || {
    echo "arm-bench: normlab builds on Linux; on a Mac run it inside a Linux VM (the VM's cores are the Mac's)" >&2
    exit 2
}
make -j"$(nproc)" BUILD="$build" build >&2
normlab=$build/normlab
host=$(hostname 2>/dev/null | tr -c 'A-Za-z0-9_.\n-' _ || echo arm)
csv=$build/arm-bench-$host-$(date -u +%Y%m%dT%H%M%SZ).csv
rungs=rmsnorm_neon,rmsnorm_neon_nt,rmsnorm_neon_pf,rmsnorm_neon_block,rmsnorm_best,rmsnorm_omp
rungs=$rungs,layernorm_neon,layernorm_neon_nt,layernorm_neon_pf,layernorm_neon_shift
rungs=$rungs,layernorm_neon_block,layernorm_best,layernorm_omp
for order in rmsnorm_llama rmsnorm_gemma layernorm_torch; do
    rungs=$rungs,${order}_bf16_neon,${order}_bf16_neon_f32stats,${order}_bf16_neon_split
    rungs=$rungs,${order}_bf16_neon_block
done
rungs=$rungs,rmsnorm_llama_bf16_best,rmsnorm_llama_bf16_omp,rmsnorm_gemma_bf16_best
rungs=$rungs,rmsnorm_gemma_bf16_omp,layernorm_torch_bf16_best,layernorm_torch_bf16_omp
for norm in rmsnorm layernorm; do
    rungs=$rungs,${norm}_bwd_neon,${norm}_bwd_neon_stream,${norm}_bwd_neon_skew,${norm}_bwd_omp
done
"$normlab" bench --csv "$csv" \
    --note "commit: $(git describe --always --dirty 2>/dev/null || echo unknown)" \
    --note "measured by scripts/bench/arm-bench.sh" \
    --shape 4096x4096,16384x8192 --dtype f32,bf16 --samples 9 --impl "$rungs"
echo "arm-bench: wrote $csv: please send this file back (normlab bench --show $csv prints it again)" >&2
