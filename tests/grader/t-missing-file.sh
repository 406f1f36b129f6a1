#!/usr/bin/env bash
# A submission without one exercise's file scores 0 there, not an abort.
. tests/grader/lib.sh
solutions "$T/sub"; rm "$T/sub/99-fix-max/fixmax.c"
grade "$T/sub"
expect '^99-fix-max .* 0/5 +no file'
expect '^Score: 10/15$'
