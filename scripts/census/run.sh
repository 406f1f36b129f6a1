#!/usr/bin/env bash
# run.sh [--summary] — regenerate the census (maintainers only; never run by
# make or CI).  Creates build/census-venv with the pinned torch and
# transformers from PyPI, then writes code/config/census.def,
# tests/fixtures/census/small.jsonl and
# tests/fixtures/configs/real/census-expected.tsv.  About 15 minutes on 2 cores.
# --summary only prints the counts chapter 4 quotes.
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
if [ "${1:-}" = "--summary" ]; then
    exec "$py" scripts/census/summary.py
fi
"$py" scripts/census/census.py
"$py" scripts/census/census.py --real tests/fixtures/configs/real
"$py" scripts/census/summary.py
