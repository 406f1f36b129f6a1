#!/usr/bin/env bash
# The wrong answers students write, each made from the real code by one
# edit: every one loses points, and the first line of its feedback names
# the mistake.  Two submissions hold them (one exercise can hold one answer
# per submission); each row: exercise, file, edit (a sed script), and a
# pattern the first feedback line must match.
. tests/grader/lib.sh
wrong() {   # wrong SUB ID FILE SED PATTERN
    local src
    src=$(scripts/grading/exercises.sh list code | awk -v id="$2" '$1 == id { print $2 }' | grep "/$3\$")
    mkdir -p "$1/$2"
    sed "$4" "$src" >"$1/$2/$3"
    ! cmp -s "$src" "$1/$2/$3" || fail "the edit '$4' no longer changes $src: update this test"
    printf '%s\t%s\n' "$2" "$5" >>"$1.expect"
}
A=$T/a B=$T/b
wrong "$A" 01-layernorm-mean layernorm_twopass.c 's/    double sum = 0.0;/    float sum = 0.0f;/' 'mean was summed in float'
wrong "$B" 01-layernorm-mean layernorm_twopass.c 's|sum / (double)d;|sum / (double)(d - 1);|' 'divided by d - 1'
wrong "$A" 02-rmsnorm rmsnorm_fused.c 's/        double sq = 0.0;/        float sq = 0.0f;/' 'sum of squares was kept in float'
wrong "$B" 02-rmsnorm rmsnorm_fused.c 's|1.0 / sqrt(sq / (double)d + eps)|1.0 / (sqrt(sq / (double)d) + eps)|' 'eps was added outside the square root'
wrong "$A" 03-welford welford.c 's|    m->m2 += delta \* (x - m->mean);|    m->m2 += delta * delta;|' 'M2 grows by delta \* delta'
wrong "$A" 04-eps-key eps.c 's|{lm, root}|{root, lm}|; s|{prefix, ""}|{"", prefix}|' 'eps came from the root'
wrong "$A" 06-simd-sumsq sumsq.c '/^float nl_sumsq/,/^}/c\
float nl_sumsq(const float *x, size_t n)\
{\
    float s = 0.0f;\
    for (size_t i = 0; i < n; i++)\
        s += x[i] * x[i];\
    return s;\
}' 'no packed \(vector\) arithmetic runs in your loop'
wrong "$B" 06-simd-sumsq sumsq.c 's/    for (; i < n; i++)/    for (; i <= n; i++)/' 'outside an array'
wrong "$A" 07-thread-rows partition.c 's|^    size_t base = rows / nthreads, extra = rows % nthreads;|    size_t base = (rows + nthreads - 1) / nthreads, extra = 0; if (t * base > rows) { *begin = *end = rows; return; }|; s|^    \*end = \*begin + base + (t < extra ? 1 : 0);|    *end = *begin + base < rows ? *begin + base : rows;|' 'ceil\(rows / nthreads\)'
wrong "$B" 07-thread-rows partition.c 's|^    \*end = \*begin + base + (t < extra ? 1 : 0);|    *begin = t * base; *end = t + 1 == nthreads ? rows : *begin + base;|' 'last thread takes all'
for sub in "$A" "$B"; do
    scripts/grading/grade.sh --submission "$sub" --out "$T/results" --build "${GRADE_BUILD:-build}" \
        ${STAGE_REAL:+--stage "$STAGE_REAL"} >"$T/out.txt" 2>&1
    while IFS=$'\t' read -r id pattern; do
        row=$(grep -E "^$id " "$T/out.txt") || fail "$id is not in the table"
        awk '{ split($3, p, "/"); exit !(p[1] + 0 < p[2] + 0) }' <<<"$row" || fail "$id scored full marks: $row"
        first=$(awk -v h="--- $id " 'index($0, h) == 1 { getline; print; exit }' "$T/out.txt")
        grep -qE -- "$pattern" <<<"$first" || fail "$id: the first feedback line does not name the mistake /$pattern/: $first"
    done <"$sub.expect"
done
