#!/usr/bin/env bash
# The nightly job: ci/nightly.sh [MINUTES] [TARGET_MINUTES] (defaults 30 and 10). Builds
# epsmith, runs a campaign of MINUTES on every core, reading corpus/ and corpus/known.json and filing new root causes in
# the git-ignored fuzz-out/corpus (kept from night to night, so a root cause is filed once
# until someone adds it to corpus/), writes its report to reports/<UTC date>/, then replays
# the whole corpus, then runs the libFuzzer targets for TARGET_MINUTES (ci/libfuzzer.sh,
# their crash inputs beside the report; 0 skips them), then ci/perf.sh against the stored
# baseline (its figures appended to reports/perf-history.jsonl, plots and perf.html beside
# it; docs/perf.md). Exit 0 when the campaign found no new root cause and every corpus case
# is as its status expects; 1 when there is something to look at (new root causes, or a
# case that was fixed or changed, a target that crashed, a stage slower than its baseline); 2 or 3 when the campaign itself could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
target_minutes=${2:-10}
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || [ "$minutes" -lt 1 ] || ! [[ "$target_minutes" =~ ^[0-9]+$ ]]; then
  echo "usage: ci/nightly.sh [MINUTES] [TARGET_MINUTES]   (whole numbers of minutes, MINUTES at least 1)" >&2
  exit 2
fi
bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target epsmith
report=reports/$(date -u +%Y-%m-%dT%H-%M-%SZ)
fuzz_status=0
./build/tools/epsmith fuzz --time $((minutes * 60)) --jobs "$(nproc)" --corpus fuzz-out/corpus --report "$report" || fuzz_status=$?
if [ "$fuzz_status" -ge 2 ]; then
  echo "nightly: the campaign failed (exit $fuzz_status)" >&2
  exit "$fuzz_status"
fi
replay_status=0
./build/tools/epsmith replay corpus/regressions >"$report/replay.txt" || replay_status=$?
tail -1 "$report/replay.txt"
targets_status=0
if [ "$target_minutes" -gt 0 ]; then
  bash ci/libfuzzer.sh "$target_minutes" "$report" || targets_status=$?
fi
perf_status=0
bash ci/perf.sh --build build --out "$report/perf" --history reports/perf-history.jsonl >"$report/perf.txt" 2>&1 ||
  perf_status=$?
tail -1 "$report/perf.txt"
if [ "$perf_status" -ge 2 ]; then echo "nightly: ci/perf.sh could not run (exit $perf_status): $report/perf.txt" >&2; fi
echo "nightly: report in $report/report.md (summary.json, replay.txt, libfuzzer/, perf/ beside it)"
if [ "$fuzz_status" -ne 0 ] || [ "$replay_status" -ne 0 ] || [ "$targets_status" -ne 0 ] || [ "$perf_status" -ne 0 ]; then
  exit 1
fi
