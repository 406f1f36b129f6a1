#!/usr/bin/env bash
# The real code scores full marks, and the JSON and JUnit results say so.
. tests/grader/lib.sh
solutions "$T/sub"; grade "$T/sub"
expect '^Score: 15/15$'
grep -q '"score": 15,' "$T/results/sub.json" || fail "sub.json lacks \"score\": 15"
grep -q 'failures="0"' "$T/results/sub.xml" || fail "sub.xml reports failures"
