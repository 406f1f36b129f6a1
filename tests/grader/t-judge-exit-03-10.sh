#!/usr/bin/env bash
# Exercises 03 and 10 through the judge: answers whose graded functions
# call _exit(0) at their first call.  When 03 and 10 were graded in the
# suite's own test processes (calls/in-process.txt), Check counted a test
# child that exits 0 as passed; now the exit ends the worker and each test
# fails, saying so.  Without policy.sh, which refuses _exit by name.
. tests/grader/lib.sh
mkdir -p "$T/sub/03-welford" "$T/sub/10-cast-order"
sed '/^void nl_welford_push/,/^{/!b; /^{/a\
    _exit(0);' code/scalar/welford.c | sed '1i #include <unistd.h>' >"$T/sub/03-welford/welford.c"
sed '/^uint16_t nl_\(llama\|gemma\)_point/,/^{/!b; /^{/a\
    _exit(0);' code/precision/cast_points.c | sed '1i #include <unistd.h>' >"$T/sub/10-cast-order/cast_points.c"
for ex in 03 10; do
    GRADE_NO_POLICY=1 grade_real "$T/sub" $ex
    expect "^$ex-[a-z-]+ .* 0/10 "
    expect 'the process running your code exited \(status 0\)'
done
