#!/bin/sh
# gpu-check.sh — build normlab against a machine's NVIDIA OpenCL driver and
# run the OpenCL tests and benchmark there; results go to $OUT if set.
#
# For a bare x86-64 machine that has gcc, make and the NVIDIA driver but no
# OpenCL packages and no root: the ICD loader, the headers, Check and cJSON
# come as Debian packages unpacked into build-gpu/prefix (no install).
#   scripts/gpu-check.sh           fetch what is missing (apt-get download), then run
#   scripts/gpu-check.sh --fetch   only fetch the .debs into build-gpu/debs, e.g. on a
#                                  networked machine, to carry them to one without
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
work=$top/build-gpu
debs=$work/debs
prefix=$work/prefix
out=${OUT:-$work/out}
mkdir -p "$debs" "$prefix" "$out"

pkgs="ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers
      check libsubunit0 libsubunit-dev libcjson1 libcjson-dev"
for p in $pkgs; do
    ls "$debs/${p}_"*.deb >/dev/null 2>&1 || (cd "$debs" && apt-get download "$p")
done
[ "${1:-}" = --fetch ] && exit 0

# Unpack, then point the compiler, linker and loader at the prefix.  The
# libraries are named outright, so pkg-config need not exist here.
for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix"; done
lib=$prefix/usr/lib/x86_64-linux-gnu
export CPATH="$prefix/usr/include:$prefix/usr/include/cjson"
export LIBRARY_PATH="$lib" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
libs="LDLIBS=-lcjson -lOpenCL -fopenmp -lm"
check_libs="CHECK_LIBS=-lcheck_pic -lrt -lm -lsubunit"

# The NVIDIA driver ships libnvidia-opencl.so.1; a container often has the
# library but not /etc/OpenCL/vendors/nvidia.icd, so write our own.
nv=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')
[ -n "$nv" ] || nv=$(find /usr/lib* /usr/local -name 'libnvidia-opencl.so.1' 2>/dev/null | head -n1)
if [ -z "$nv" ]; then
    echo "gpu-check: no libnvidia-opencl.so.1 on this machine: is the NVIDIA driver installed?" | tee "$out/error.txt"
    exit 1
fi
mkdir -p "$work/vendors"
echo "$nv" > "$work/vendors/nvidia.icd"
export OCL_ICD_VENDORS="$work/vendors" NORMLAB_REQUIRE_OPENCL=1
export NORMLAB_CL_DEVICE="${NORMLAB_CL_DEVICE:-nvidia}"

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
make -j"$(nproc)" BUILD=build-gpu/build "$libs" "$check_libs" build > "$out/build.txt" 2>&1 ||
    { tail -n 30 "$out/build.txt"; exit 1; }
bin=build-gpu/build
"$bin/normlab" devices 2>&1 | tee "$out/devices.txt"
status=0
scripts/ci/run-tests.sh "$bin/tests" "$bin"/tests/check_* > "$out/tests.txt" 2>&1 || status=1
tail -n 3 "$out/tests.txt"
"$bin/normlab" bench --opencl --force --csv "$out/bench-opencl.csv" 2>&1 | tee "$out/bench-opencl.txt" || status=1
# Chapter 8: the bf16/fp16 cast orders on the GPU (kernels/half.cl), each
# against its scalar CPU kernel: how many outputs differ, and the worst ulps.
NL_SHOW_ERR=1 NL_IMPLS= "$bin/tests/check_half_cast" 2>&1 | grep -E 'opencl|suite' | tee "$out/half-opencl.txt"
grep -q 'suite.* 0 failed' "$out/half-opencl.txt" || status=1
# Chapter 9's fused add + norm kernels (kernels/fused_add.cl) on the GPU:
# bit-identical to the unfused OpenCL pair, in and out of place.
NL_IMPLS=fused_add_rmsnorm_opencl,fused_add_rmsnorm_gemma_opencl,fused_add_layernorm_opencl \
    "$bin/tests/check_fused_props" > "$out/fused-opencl.txt" 2>&1 || status=1
tail -n 2 "$out/fused-opencl.txt"
# Chapter 10: the OpenCL backward (kernels/backward.cl) against the double
# gradient on the GPU; check_backward_grad above already ran it on the
# test grid.
"$bin/normlab" gradcheck --rows 64 --d 1024 2>&1 | tee "$out/gradcheck.txt" || status=1
echo "gpu-check: results in $out (exit $status)"
exit $status
