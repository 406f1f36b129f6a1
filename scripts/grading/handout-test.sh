#!/usr/bin/env bash
# handout-test.sh DIR TEST... — make test in the students' handout: every
# suite, on the student's own code (scripts/ci/run-tests.sh), then the list
# of exercises done and not done yet (handout-status.sh), so a red run
# ends by saying what is left, not with make's `Error 2` alone.
here=$(cd "$(dirname "$0")" && pwd)
"$here/../ci/run-tests.sh" "$@"
rc=$?
echo
echo "=== your exercises"
"$here/handout-status.sh" "$(dirname "$1")"
[ $rc -eq 0 ] || echo "some suites fail: the list above says which exercises are not done yet"
exit $rc
