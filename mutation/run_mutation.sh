#!/usr/bin/env bash
# Mutation score of ovk_ref's algorithm files (docs/mutation.md).
#
# mutmut 3 (the `mutation` extra) copies the project to mutants/, mutates onorma, monorma, online_learner,
# learner_state, batch, rkhs and truncation (pyproject.toml [tool.mutmut]), and kills each mutant with the tests of
#   tests/ref                                   (the reference's tests)
#   tests/claims/test_claims_verdicts.py        (every claim of `ovk-check verify`, expected verdict)
# that reach the mutated function, under the ci Hypothesis profile (derandomised, 25 examples per claim).
# Usage: mutation/run_mutation.sh [mutmut run options]   (MUTATION_WORKERS parallel workers, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
export CI=true HYPOTHESIS_PROFILE=ci
start=$(date +%s)
nice -n 10 "$PYTHON" -m mutmut run --max-children "${MUTATION_WORKERS:-2}" "$@"
echo "wall time: $(( $(date +%s) - start )) s"
"$PYTHON" -m mutmut export-cicd-stats
cat mutants/mutmut-cicd-stats.json
echo
"$PYTHON" -m mutmut results
