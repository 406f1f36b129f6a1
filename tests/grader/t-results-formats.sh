#!/usr/bin/env bash
# The results are valid and say what the table says: the JSON is
# Gradescope's results.json (score, and per test name, score, max_score,
# status, output, visibility; scores adding up) even when a compiler
# message quotes a stray byte and a backslash; the JUnit XML parses and has
# one testcase per counted test with its points; the exit status is 1
# below full marks (0 with GRADE_EXIT0=1) and 0 at full marks.
. tests/grader/lib.sh
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed, the formats cannot be validated"; exit 0; }
validate() {
    python3 - "$1" "$2" "$3" <<'PY' || fail "results do not validate"
import json, sys, xml.etree.ElementTree as ET
path, want, maxpts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
r = json.load(open(path + ".json", encoding="utf-8"))
assert abs(r["score"] - want) < 0.01, ("score", r["score"], want)
for t in r["tests"]:
    for k, ty in (("name", str), ("score", (int, float)), ("max_score", (int, float)),
                  ("status", str), ("output", str), ("visibility", str)):
        assert isinstance(t.get(k), ty), ("field", k, t)
    assert t["status"] in ("passed", "failed"), t
    assert t["visibility"] in ("visible", "hidden", "after_due_date", "after_published"), t
assert abs(sum(t["score"] for t in r["tests"]) - want) < 0.05, "test scores do not add up to the score"
assert abs(sum(t["max_score"] for t in r["tests"]) - maxpts) < 0.05, "max scores do not add up"
x = ET.parse(path + ".xml").getroot()
cases = x.findall("testcase")
assert len(cases) == len(r["tests"]), (len(cases), len(r["tests"]))
for c in cases:
    props = {p.get("name"): p.get("value") for p in c.iter("property")}
    assert "points" in props and "max_points" in props, c.attrib
PY
}
# A compiler message with a raw byte (invalid UTF-8) and backslashes.
printf 'int nl_fixture_sum(const int *v, unsigned long n) { return v[0] \342\200 "\\\\q"; }\n' | fixsum
grade "$T/sub"
expect '^98-fix-sum .* compile error'
[ $rc -eq 1 ] || fail "exit status $rc below full marks, expected 1"
validate "$T/results/sub" 5 15
GRADE_EXIT0=1 grade "$T/sub"
[ $rc -eq 0 ] || fail "GRADE_EXIT0=1: exit status $rc, expected 0"
# A half-right answer: per-test points.
positives_only
grade "$T/sub"
validate "$T/results/sub" 10 15
solutions "$T/sub"; grade "$T/sub"
[ $rc -eq 0 ] || fail "exit status $rc at full marks, expected 0"
validate "$T/results/sub" 15 15
