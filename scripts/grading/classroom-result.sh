#!/usr/bin/env bash
# classroom-result.sh RESULTS.json — one exercise's grade, as GitHub
# Classroom's reporter (classroom-resources/autograding-grading-reporter)
# reads it: `result=` and base64 of {"version", "status", "max_score",
# "tests": [{"name", "status", "score", "message"}]}, for $GITHUB_OUTPUT.
# The reporter adds up the tests' scores and max_score, so each counted
# test keeps the points grade.sh gave it (partial credit, the same score
# as make grade), its rounding folded into the first test so that the sum
# is the grader's exactly.  A missing or broken file is a failed test
# worth nothing, said plainly.
set -u
f=${1:-}
python3 - "$f" <<'PY'
import base64, json, sys
path = sys.argv[1]
try:
    with open(path) as fh:
        g = json.load(fh)
    exs = [e for e in g["extra_data"]["exercises"] if e.get("graded", True)]
    mx = sum(e["max"] for e in exs)
    got = round(sum(e["points"] for e in exs), 2)
    tests = [{"name": t["name"], "status": "pass" if t.get("status") == "passed" else "fail",
              "score": float(t["score"]), "message": t.get("output", "")[:2000]} for t in g["tests"]]
    if tests:
        tests[0]["score"] = round(tests[0]["score"] + got - sum(t["score"] for t in tests), 4)
    status = "pass" if got == mx else "fail"
    out = {"version": 1, "status": status, "max_score": mx, "tests": tests}
except (OSError, ValueError, KeyError, TypeError) as e:
    out = {"version": 1, "status": "error", "max_score": 0,
           "tests": [{"name": "grading", "status": "fail", "score": 0,
                      "message": "the grader wrote no results (%s): see the job log" % e}]}
print("result=" + base64.b64encode(json.dumps(out).encode()).decode())
PY
