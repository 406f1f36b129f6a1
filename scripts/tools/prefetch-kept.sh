#!/bin/sh
# prefetch-kept.sh [BUILD] — fail when a function of chapter 8's one-row
# rungs, chapter 10's stream rung or the forward rungs of chapters 5-6
# (at each x86-64 width) streams its outputs but asks for no line ahead
# of it.
#
# Why a check of the object code: the compiler may remove a prefetch. A
# function that only prefetches has no side effects to GCC's analysis, so
# GCC 12 at -O2 dropped every call to one (castorder_pipe_avx512.c's
# former prefetch4), and the bf16 rows of the pipe and split rungs ran
# without their prefetch through every measurement that varied it
# (chapter 8, "The prefetch that was not there"). No test of results can
# see that: a prefetch changes no bits. Every function in these objects
# whose loop streams its stores (vmovnt*) is an output pass that should
# ask for the next row, so each must hold a prefetch instruction; but for
# the forward _nt rungs (nl_*_nt), which stream without asking, by
# definition (chapter 6 times them against the _pf rungs), the shift rungs
# (nl_layernorm_*_shift), which were measured faster without asking on the
# only CPU whose dispatchers take them (layernorm_rungs.h; their _shift_pf
# twins ask, and are checked), and the 16-bit block rung's loops
# (block_block_*), which read the next rows in the loop itself.
set -eu
build=${1:-build}
objs="precision/castorder_pipe_avx512 precision/castorder_f32stats_avx512
      backward/norm_bwd_avx512 backward/norm_bwd_avx2
      simd/rmsnorm_rungs_avx512 simd/layernorm_rungs_avx512
      simd/rmsnorm_rungs_avx2 simd/layernorm_rungs_avx2 precision/castorder_rungs_avx2"
dir=$build/obj/code
case $(uname -m) in x86_64) ;; *) echo "prefetch-kept: not x86-64, no AVX-512 rungs to check"; exit 0 ;; esac
command -v objdump >/dev/null || { echo "prefetch-kept: objdump not found (Debian: binutils)" >&2; exit 2; }
bad=0 seen=0
for o in $objs; do
    f=$dir/$o.o
    [ -f "$f" ] || { echo "prefetch-kept: no $f (make build first)" >&2; exit 2; }
    out=$(objdump -d --no-show-raw-insn "$f" | awk '
        /^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn) }
        /\tprefetch/ { pf[fn]++ }
        /\tvmovnt/ { nt[fn]++ }
        END { for (f in nt) if (f !~ /^nl_(layer|rms)norm_[a-z0-9]+_nt$/ && f !~ /^nl_layernorm_[a-z0-9]+_shift$/ && f !~ /^block_block_/) printf "%s %d %d\n", f, nt[f], pf[f] + 0 }')
    [ -n "$out" ] || { echo "prefetch-kept: $o.o has no streaming stores: is it built without AVX-512?" >&2; exit 2; }
    while read -r fn nts pfs; do
        seen=$((seen + 1))
        if [ "$pfs" -eq 0 ]; then
            echo "prefetch-kept: $o.o: $fn streams $nts stores and holds no prefetch" >&2
            bad=1
        fi
    done <<END
$out
END
done
[ "$bad" -eq 0 ] || exit 1
echo "prefetch-kept: $seen streaming functions, each with its prefetch"
