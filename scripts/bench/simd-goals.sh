#!/bin/sh
# simd-goals.sh BUILD PEERS_VENV — the AVX2 goals' measurement, and the
# AVX-512 rows beside it, with the peers, in one session (`make simd-goals`):
#
#   for each width this CPU has, avx2 (NORMLAB_ISA=avx2 where the CPU is
#   wider) and avx512:
#     normlab bench on 4096x4096 and 16384x8192, 1 thread and every core,
#       f32 and bf16, 9 samples: the dispatchers the goals name
#       -> BUILD/simd-goals-ISA-ours.csv
#     scripts/bench/peers.py: PyTorch, JAX and ONNX Runtime on the same
#       shapes against that run's copy roof -> BUILD/simd-goals-ISA.csv
#     normlab bench on 16384x8192, 1 thread and every core: every rung of
#       the width, first to last (the figure of the same schedule at two
#       widths) -> BUILD/simd-rungs-ISA.csv
#   then normlab bench --goals on the goals' CSVs (bench_goals.def: the
#   AVX2 goals read only the avx2 rows, the others only the avx512 rows).
#
# On a CPU with AVX-512 the AVX2 run caps the peers too where they allow
# it: PyTorch by ATEN_CPU_CAPABILITY=avx2 (aten/src/ATen/native/
# DispatchStub.cpp), its oneDNN by ONEDNN_MAX_CPU_ISA=AVX2 (oneDNN's
# "CPU Dispatcher Control"), XLA by --xla_cpu_max_isa=AVX2 (XLA's flags).
# ONNX Runtime has no such setting (its MLAS kernels pick the CPU's own
# instructions: microsoft/onnxruntime#12479), so beside a capped run its
# rows are its AVX-512 rows; an AVX2-only CPU measures both natively.
# NORMLAB_RUNGS=block|row, when set, is passed on (the rung shape: the
# AVX2 rungs keep the block shape unless told).
set -eu
build=${1:?usage: simd-goals.sh BUILD PEERS_VENV}
venv=${2:?usage: simd-goals.sh BUILD PEERS_VENV}
normlab=$build/normlab
[ -x "$normlab" ] || { echo "simd-goals: no $normlab (make build first)" >&2; exit 2; }
[ -x "$venv/bin/python" ] || { echo "simd-goals: no peers' environment in $venv (make peers builds it)" >&2; exit 2; }
cores=$(nproc)
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
impls=rmsnorm_best,layernorm_best,rmsnorm_omp,layernorm_omp
impls=$impls,rmsnorm_llama_bf16_best,rmsnorm_llama_bf16_omp,rmsnorm_gemma_bf16_best
impls=$impls,rmsnorm_gemma_bf16_omp,layernorm_torch_bf16_best,layernorm_torch_bf16_omp
impls=$impls,rmsnorm_bwd_omp,layernorm_bwd_omp

widths=avx2
grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && widths="avx2 avx512"
grep -qw avx2 /proc/cpuinfo || { echo "simd-goals: this CPU has no AVX2" >&2; exit 2; }

goals=""
for isa in $widths; do
    ours=$build/simd-goals-$isa-ours.csv out=$build/simd-goals-$isa.csv
    echo "simd-goals: $isa, our kernels -> $ours" >&2
    if [ "$isa" = avx2 ]; then
        set -- env NORMLAB_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 \
            XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_cpu_max_isa=AVX2"
    else
        set -- env NORMLAB_ISA=avx512
    fi
    "$@" "$normlab" bench --force --csv "$ours" --note "commit: $commit" \
        --note "measured by scripts/bench/simd-goals.sh" --shape 4096x4096,16384x8192 \
        --threads "1,$cores" --dtype f32,bf16 --samples 9 --no-peer --impl "$impls"
    echo "simd-goals: $isa, the peers -> $out" >&2
    "$@" "$venv/bin/python" scripts/bench/peers.py --csv "$ours" --out "$out" --force \
        --frameworks torch,jax,ort
    goals="$goals --goals $out"
    rungs=""
    for n in rmsnorm layernorm; do
        rungs="$rungs,${n}_$isa,${n}_${isa}_nt,${n}_${isa}_pf,${n}_${isa}_block,${n}_bwd_$isa"
        rungs="$rungs,${n}_bwd_${isa}_stream,${n}_bwd_${isa}_skew"
    done
    rungs="$rungs,layernorm_${isa}_shift"
    for o in rmsnorm_llama rmsnorm_gemma layernorm_torch; do
        rungs="$rungs,${o}_bf16_$isa,${o}_bf16_${isa}_f32stats,${o}_bf16_${isa}_split,${o}_bf16_${isa}_block"
    done
    echo "simd-goals: $isa, every rung -> $build/simd-rungs-$isa.csv" >&2
    "$@" "$normlab" bench --force --csv "$build/simd-rungs-$isa.csv" --note "commit: $commit" \
        --note "measured by scripts/bench/simd-goals.sh" --shape 16384x8192 --threads "1,$cores" \
        --dtype f32,bf16 --samples 9 --no-peer --impl "${rungs#,}"
done
# shellcheck disable=SC2086
"$normlab" bench $goals
echo "simd-goals: wrote $(for isa in $widths; do printf '%s ' "$build/simd-goals-$isa.csv" "$build/simd-rungs-$isa.csv"; done)" >&2
