#!/usr/bin/env bash
# README's first command: installs dependencies, builds epsmith, and runs a one-minute fuzz
# campaign on the defaults (16-op programs, CPU, every check, the checked-in corpus and
# known-bugs list read but never written), then says where the report is. New root causes
# (exit 1 from epsmith fuzz) are what a campaign is for: they lead the report and their
# case files are in the git-ignored fuzz-out/corpus/regressions.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target epsmith
echo "== epsmith fuzz --time 60"
status=0
./build/tools/epsmith fuzz --time 60 || status=$?
case $status in
  0) echo "== nothing new: every finding is a known bug or already in a corpus" ;;
  1) echo "== new root causes, or findings left unminimized by their family's budget: see the report's first lines; new cases are in fuzz-out/corpus/regressions (epsmith replay PATH re-runs one)" ;;
  *) echo "== epsmith fuzz failed (exit $status)"; exit "$status" ;;
esac
echo "== report: $(pwd)/fuzz-out/report/report.md and fuzz-out/report/summary.json"
sed -n '1,16p' fuzz-out/report/report.md
