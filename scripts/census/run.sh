#!/usr/bin/env bash
# run.sh [--summary | --enums | --placement] — regenerate the census
# (maintainers only; never run by make or CI).  Creates build/census-venv
# with the pinned torch and transformers from PyPI, then:
#   census.py      code/config/census.def, tests/fixtures/census/small.jsonl
#   enums.py       the string fields that change norms, added to census.def's
#                  toggles; tests/fixtures/census/enums.jsonl
#   placement.py   code/config/placement.def: each row's small model run on
#                  the CPU, where its norms sit in a block (log and progress in
#                  build/census/placement.log)
#   census.py --real   tests/fixtures/configs/{real,traps}/census-expected.tsv:
#                  what transformers builds from each file at full size
# The census fits every norm width over builds with each size field varied
# (scripts/census/widths.py); the notebook (notebook/04-config.md) records
# how long each step took.  --summary only prints the counts chapter 4 and
# appendix A quote; --enums and --placement redo only that step.
set -euo pipefail
cd "$(dirname "$0")/../.."
TORCH=2.15.0
TRANSFORMERS=5.23.0
venv=build/census-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "torch==$TORCH" "transformers==$TRANSFORMERS"
fi
py="$venv/bin/python"
case "${1:-}" in
    --summary) exec "$py" scripts/census/summary.py ;;
    --enums) exec "$py" scripts/census/enums.py ;;
    --placement) exec "$py" scripts/census/placement.py ;;
esac
# Two halves side by side (one a core), merged into one table; progress in
# build/census/shard-{0,1}.log.
mkdir -p build/census
"$py" scripts/census/census.py --shard 0/2 > build/census/shard-0.log 2>&1 &
"$py" scripts/census/census.py --shard 1/2 > build/census/shard-1.log 2>&1
wait
"$py" scripts/census/census.py --merge 2
"$py" scripts/census/enums.py
"$py" scripts/census/placement.py
"$py" scripts/census/census.py --real tests/fixtures/configs/real
"$py" scripts/census/census.py --real tests/fixtures/configs/traps
"$py" scripts/census/summary.py
