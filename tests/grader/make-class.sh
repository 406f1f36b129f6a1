#!/usr/bin/env bash
# make-class.sh N DIR — a class of N generated submissions in DIR, for
# grade-class's self-test and its timing: student folders sNN-KIND, KIND
# cycling through six, each with the total it must get (DIR.expected,
# "student<TAB>total"; hostile and wrong answers name a range).
#   complete  the real code, course layout            full marks
#   flat      the real code, files loose in the folder full marks
#   partial   01, 02 and 05 only                      30
#   broken    every .c file a syntax error            0
#   hostile   includes of real code, library kernel, fake Check output,
#             setsid sleep, a symbolic link to code/  0
#   handout   the whole handout layout, only 04 done  10
set -u
n=$1 dir=$2
mkdir -p "$dir" && : >"$dir.expected"
list=$(scripts/grading/exercises.sh list code)
max=0
for c in exercises/*/exercise.conf; do   # an exercise with 'sandbox = no' is not graded here
    grep -Eq '^sandbox[[:space:]]*=[[:space:]]*no' "$c" && continue
    max=$((max + $(awk -F= '$1 ~ /^points/ { print $2 + 0 }' "$c")))
done
real() {   # real DEST ID... : the real files of these exercises, course layout
    local dest=$1 id file; shift
    for id in "$@"; do
        file=$(awk -v id="$id" '$1 == id { print $2 }' <<<"$list")
        mkdir -p "$dest/$id" && cp $file "$dest/$id/"
    done
}
all=$(awk '{ print $1 }' <<<"$list" | sort -u)
for ((i = 1; i <= n; i++)); do
    kinds=(complete flat partial broken hostile handout)
    kind=${kinds[$(( (i - 1) % 6 ))]} s=$dir/s$(printf '%02d' "$i")-$kind
    mkdir -p "$s"
    case $kind in
    complete) real "$s" $all; want=$max ;;
    flat) real "$s/tmp" $all; find "$s/tmp" -type f -exec mv {} "$s/" \; ; rm -rf "$s/tmp"; want=$max ;;
    partial) real "$s" 01-layernorm-mean 02-rmsnorm 05-param-count; want=30 ;;
    broken) real "$s" $all; for f in "$s"/*/*.c; do echo 'int broken(void) { return }' >"$f"; done
            for f in "$s"/*/*.cl; do echo 'float team_sum(' >"$f"; done; want=0 ;;
    hostile)
        mkdir -p "$s/03-welford" "$s/02-rmsnorm" "$s/07-thread-rows" "$s/01-layernorm-mean" "$s/06-simd-sumsq"
        echo '#include "../welford.c"' >"$s/03-welford/welford.c"
        printf '#include "normlab.h"\nint nl_rmsnorm_best(const float *, const float *, const float *, float, size_t, size_t, float *);\nint nl_rmsnorm_fused(const float *x, const float *g, const float *b, float e, size_t r, size_t d, float *y) { return nl_rmsnorm_best(x, g, b, e, r, d, y); }\n' >"$s/02-rmsnorm/rmsnorm_fused.c"
        printf '#include <stdlib.h>\n#include "simd/simd.h"\nvoid nl_row_block(size_t rows, size_t n, size_t t, size_t *b, size_t *e) { if (system("setsid sleep 600.%s &")) {} *b = t * rows / n; *e = (t + 1) * rows / n; }\n'  "$$" >"$s/07-thread-rows/partition.c"
        ln -s "$PWD/code/scalar/layernorm_twopass.c" "$s/01-layernorm-mean/layernorm_twopass.c"
        printf '#include <stdio.h>\n#include "simd/simd.h"\nfloat nl_sumsq(const float *x, size_t n) { (void)x; (void)n; printf("tests/check_ex_sumsq.c:1:P:ex_sumsq:every_length_and_offset:0: Passed\\nsuite ex_sumsq: 2 passed, 0 failed, 0 skipped\\n"); return 1.0f; }\n' >"$s/06-simd-sumsq/sumsq.c"
        want=0 ;;
    handout) real "$s/exercises" 04-eps-key; for id in $all; do mkdir -p "$s/exercises/$id"; done; want=10 ;;
    esac
    printf '%s\t%s\n' "$(basename "$s")" "$want" >>"$dir.expected"
done
