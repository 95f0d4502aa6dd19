#!/usr/bin/env bash
# README's first command: installs dependencies, builds epsmith, and runs a one-minute fuzz
# campaign on the defaults (16-op programs, CPU, every check, the corpus in corpus/), then
# says where the report is. New buckets (exit 1 from epsmith fuzz) are what a campaign is
# for: they are listed in the report and their case files are in corpus/regressions.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target epsmith
echo "== epsmith fuzz --time 60"
status=0
./build/tools/epsmith fuzz --time 60 || status=$?
case $status in
  0) echo "== no new buckets: every finding is already in corpus/regressions" ;;
  1) echo "== new buckets: see the report; their cases are in corpus/regressions (epsmith replay PATH re-runs one)" ;;
  *) echo "== epsmith fuzz failed (exit $status)"; exit "$status" ;;
esac
echo "== report: $(pwd)/fuzz-report/report.md and fuzz-report/summary.json"
sed -n '1,14p' fuzz-report/report.md
