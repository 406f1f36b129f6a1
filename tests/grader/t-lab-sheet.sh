#!/usr/bin/env bash
# A lab: LAB=09,10 limits the grader to those
# exercises (Score out of 20), and the lab's assignment sheet gives the
# points the grader gives: per exercise and per group of tests, checked
# here against an independent grading of the real answers, with the
# sheet's placeholders and its submission section.
. tests/grader/lib.sh
export LAB=09,10
scripts/grading/lab-sheet.sh "$T/sheet/lab.md" >"$T/out.txt" 2>&1 || fail "lab-sheet.sh failed"
s=$T/sheet/lab.md
real_solution "$T/sub" 09-bf16-round; real_solution "$T/sub" 10-cast-order
scripts/grading/grade.sh --submission "$T/sub" --out "$T/results" --name sol --build "${GRADE_BUILD:-build}" \
    ${STAGE_REAL:+--stage "$STAGE_REAL"} >"$T/out.txt" 2>&1
expect '^Score: 20/20$'
python3 - "$T/results/sol.json" "$s" <<'PY' || exit 1
import json, re, sys
g = json.load(open(sys.argv[1])); sheet = open(sys.argv[2]).read()
want = {}
for t in g["tests"]:
    ex, key = t["name"].split(": ", 1)
    k = (ex, re.sub(r":\d+$", "", key))
    want[k] = want.get(k, 0) + t["max_score"]
got, ex = {}, None
for line in sheet.splitlines():
    m = re.match(r"## (\d\d-[a-z0-9-]+): .*\(([\d.]+) points\)$", line)
    if m:
        ex = m.group(1)
        mx = [e["max"] for e in g["extra_data"]["exercises"] if e["id"] == ex]
        assert mx and float(m.group(2)) == mx[0], "sheet: %s is %s points, the grader's max is %s" % (ex, m.group(2), mx)
    m = re.match(r"\| `([^`]+)` \| (\d+) \| ([\d.]+) \|$", line)
    if m and ex:
        got[(ex, m.group(1))] = float(m.group(3))
for k, v in want.items():
    assert k in got, "sheet: no rubric row for %s %s" % k
    assert abs(got[k] - v) < 0.006, "sheet: %s %s is %s points, the grader gives %s" % (k[0], k[1], got[k], v)
assert set(got) == set(want), "sheet rows the grader does not have: %s" % (set(got) - set(want))
m = re.search(r"\*\*total\*\* \| \| \*\*([\d.]+)\*\*", sheet)
assert m and float(m.group(1)) == g["extra_data"]["max"], "sheet total %s, grader %s" % (m and m.group(1), g["extra_data"]["max"])
PY
for w in '<DUE DATE>' '<LATE POLICY>' 'GitHub Classroom' 'Gradescope' 'make grade-class' 'Estimated time' 'chapters/08-precision.md'; do
    grep -qF -- "$w" "$s" || fail "the sheet does not say $w"
done
! grep -q '11-fused-add' "$s" || fail "the sheet lists an exercise outside the lab"
echo "lab 09,10: graded out of 20; the sheet's points are the grader's"
