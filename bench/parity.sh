#!/usr/bin/env bash
# Bigger host-parity sweeps than CI runs: bench/parity.sh [CASES] [SEED...]
#   bench/parity.sh 50000 1 2 3
# For each seed, runs tests/cli/parity.rs (release build) with CASES cases per
# Python host and prints its agreement lines; a disagreement prints minimal
# repros and the script exits non-zero. Figures go to docs/PARITY.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-20000}"
shift || true
seeds=("${@:-14}")
PLUGINS_HOST_PYTHON="$(.ci/hosts-venv | tail -n 1)"
export PLUGINS_HOST_PYTHON PLUGINS_PARITY_CASES="$cases"
status=0
for seed in "${seeds[@]}"; do
  echo "== seed $seed, $cases cases per host"
  PLUGINS_PARITY_SEED="$seed" cargo test --release --locked --test cli parity -- --test-threads 1 2>&1 \
    | grep -E '^parity |^[0-9]+x |^  (repro|host|ours):' || status=1
done
exit "$status"
