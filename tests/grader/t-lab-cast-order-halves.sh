#!/usr/bin/env bash
# Exercise 10 is half Llama, half Gemma: a right
# Llama with the starter's Gemma scores 5/10, and so does the reverse (they
# scored 0 and 9.05); Gemma's order written x*r + x*r*w, which differs from
# x*r * (1 + w) on about 2 in 10^6 bf16 inputs, loses points, and the first
# feedback line names the test that caught it.
. tests/grader/lib.sh
real=code/precision/cast_points.c
starter_gemma='    return nl_half_from_float(dt, xr * nl_half_to_float(dt, w));'
mk() { mkdir -p "$T/$1/10-cast-order"; cat >"$T/$1/10-cast-order/cast_points.c"; }
awk -v s="$starter_gemma" '/float scale = 1.0f \+ nl_half_to_float\(dt, w\);/ { print s; skip = 1; next }
    skip && /return nl_half_from_float\(dt, xr \* scale\);/ { skip = 0; next } { print }' "$real" | mk llama
awk -v s="$starter_gemma" '/uint16_t h = nl_half_from_float\(dt, xr\);/ { print s; skip = 2; next }
    skip { skip--; next } { print }' "$real" | mk gemma
sed 's|return nl_half_from_float(dt, xr \* scale);|(void)scale; return nl_half_from_float(dt, xr + xr * nl_half_to_float(dt, w));|' "$real" | mk order
for s in llama gemma order; do cmp -s "$real" "$T/$s/10-cast-order/cast_points.c" && fail "the $s variant is the real code"; done
grade_real "$T/llama" 10; expect '^Score: 5/10$'
grade_real "$T/gemma" 10; expect '^Score: 5/10$'
grade_real "$T/order" 10
reject '^Score: 10/10$'
first=$(grep -m1 '^  half_cast:' "$T/out.txt")
grep -q 'gemma_multiplies_by_one_plus_w' <<<"$first" || fail "the first feedback line does not name Gemma's order: $first"
grep -q 'x\*r + x\*r\*w' <<<"$first" || fail "the first feedback line does not say x*r + x*r*w: $first"
echo "exercise 10: 5/10 for each order alone; x*r + x*r*w caught and named"
