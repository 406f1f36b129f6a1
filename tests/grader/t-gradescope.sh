#!/usr/bin/env bash
# make gradescope builds a zip with setup.sh and run_autograder at its root
# and no solutions/; run_autograder, given a flat upload (count.c and
# eps.c loose, as Gradescope stores them), writes results.json with the
# fields Gradescope documents: score, and per test name, score, max_score,
# status, output, visibility.  The zip is a lab's (LAB=01,04,05: the whole
# tree and a lab.txt), so that the run grades three exercises, not
# seventeen, and shows that a lab's autograder leaves the others out.
. tests/grader/lib.sh
command -v zip >/dev/null && command -v unzip >/dev/null || { echo "SKIP: zip/unzip not installed"; exit 0; }
LAB=01,04,05 scripts/grading/gradescope/make-zip.sh "$T/ag.zip" >"$T/out.txt" 2>&1 || fail "make-zip failed"
mkdir -p "$T/ag/source" "$T/ag/submission"
(cd "$T/ag/source" && unzip -q "$T/ag.zip") || fail "the zip does not unpack"
[ -x "$T/ag/source/run_autograder" ] && [ -f "$T/ag/source/setup.sh" ] || fail "setup.sh / run_autograder not at the zip's root"
[ ! -e "$T/ag/source/solutions" ] || fail "solutions/ is in the autograder zip"
cp code/config/count.c code/config/eps.c "$T/ag/submission/"
AUTOGRADER_ROOT=$T/ag GRADE_BUILD=$PWD/${GRADE_BUILD:-build} "$T/ag/source/run_autograder" >"$T/out.txt" 2>&1
r=$T/ag/results/results.json
[ -s "$r" ] || fail "no results.json"
command -v python3 >/dev/null || { echo "SKIP: python3 missing, results.json not validated"; exit 0; }
python3 - "$r" <<'PY' || fail "results.json does not validate: $(head -c 2000 "$r")"
import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r["score"], (int, float)) and abs(r["score"] - 20) < 0.01, r["score"]
assert r["tests"], "no tests"
for t in r["tests"]:
    assert set(("name", "score", "max_score", "status", "output", "visibility")) <= set(t), t
    assert t["status"] in ("passed", "failed") and t["visibility"] == "visible", t
assert any(t["name"].startswith("05-param-count") and t["status"] == "passed" for t in r["tests"])
assert any(t["name"].startswith("01-layernorm-mean") and t["status"] == "failed" for t in r["tests"])
assert all(t["name"][:2] in ("01", "04", "05") for t in r["tests"]), "the lab's autograder graded another exercise"
PY
