#!/bin/sh
# peers-smoke.sh NORMLAB VENV PIP BUILD — the peer harness end to end on
# one small shape: installs the peers into VENV if absent (skips, saying
# why, when PyPI cannot be reached), times them beside one kernel, and
# checks that the CSV holds a peer row of each framework with our copy roof,
# forward and backward (ONNX Runtime: the comment saying why it has none).
set -eu
normlab=$1 venv=$2 pip=$3 build=$4
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import torch, jax, onnxruntime' 2>/dev/null; then
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    if ! eval "\"$venv/bin/pip\" install -q --disable-pip-version-check $pip"; then
        echo "peers-smoke: SKIP: the peers could not be installed from PyPI (offline?)"
        exit 0
    fi
fi
ours=$build/peers-smoke-ours.csv out=$build/peers-smoke.csv
"$normlab" bench --force --csv "$ours" --shape 256x1024 --threads 1 --samples 3 --no-peer \
    --impl rmsnorm_best,layernorm_best,rmsnorm_bwd_fused,layernorm_bwd_fused > /dev/null
"$venv/bin/python" scripts/bench/peers.py --csv "$ours" --out "$out" --force --samples 3
for fw in torch jax ort; do
    grep -q "^$fw-[0-9][^,]*,RMSNorm,256,1024,1,1,ok," "$out" ||
        { echo "peers-smoke: FAIL: no timed $fw RMSNorm row in $out" >&2; exit 1; }
done
for fw in torch jax; do
    for norm in RMSNorm LayerNorm; do
        grep -q "^$fw-[0-9][^,]*,$norm,256,1024,1,1,ok,.*,f32,12," "$out" ||
            { echo "peers-smoke: FAIL: no timed $fw $norm backward row in $out" >&2; exit 1; }
    done
done
grep -q "^# peers: ONNX Runtime .* no backward rows" "$out" ||
    { echo "peers-smoke: FAIL: $out does not say why ONNX Runtime has no backward row" >&2; exit 1; }
roof=$(awk -F, '/^rmsnorm_best,/ {print $14}' "$ours")
grep "^torch-" "$out" | grep -q ",$roof," ||
    { echo "peers-smoke: FAIL: the peer rows do not carry the run's copy roof $roof" >&2; exit 1; }
"$normlab" bench --show "$out" | grep -q "(peer)" ||
    { echo "peers-smoke: FAIL: bench --show does not show the peers" >&2; exit 1; }
echo "peers-smoke: 1 passed, 0 failed"
