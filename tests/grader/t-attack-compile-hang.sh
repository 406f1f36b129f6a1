#!/usr/bin/env bash
# Attack on the compile step: #include of an endless device, of stdin, or
# of a FIFO handed in with the submission.  The compile is bounded in time
# and memory, a FIFO is not copied (only plain files are), and the exercise
# scores 0 while the other is still graded.
. tests/grader/lib.sh
for inc in '"/dev/zero"' '"/dev/stdin"' '"pipe"'; do
    printf '#include %s\n' "$inc" | fixsum
    mkfifo "$T/sub/98-fix-sum/pipe"
    start=$(date +%s)
    GRADE_COMPILE_TIMEOUT=3 grade "$T/sub"
    took=$(( $(date +%s) - start ))
    [ $took -lt 60 ] || fail "grading took $took s with #include $inc"
    expect '^98-fix-sum .* 0/10 +(compile error|timeout)'
    expect '^99-fix-max .* ok$'
    rm -rf "$T/sub"
done
