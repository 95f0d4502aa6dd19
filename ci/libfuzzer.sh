#!/usr/bin/env bash
# libfuzzer.sh MINUTES [REPORT_DIR]: the libFuzzer targets with ASan+UBSan (the `fuzz`
# preset), MINUTES in all, shared evenly, each with -fork over every core, on its corpus in
# the git-ignored fuzz-out/libfuzzer/<target> (seeded from fuzz/targets/seeds.sh the first
# time, kept from night to night, so new coverage merges into it). Crash inputs and each
# target's log go to REPORT_DIR/libfuzzer (default fuzz-out/libfuzzer/report); `epsmith
# import-crash TARGET FILE` files a crash input. Exit 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:?usage: ci/libfuzzer.sh MINUTES [REPORT_DIR]}
report=${2:-fuzz-out/libfuzzer/report}/libfuzzer
targets=(json_reader text_parser pt2_reader verifier functionalizer case)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target epsmith "${targets[@]/#/fuzz_}"
mkdir -p "$report"
if [ ! -d fuzz-out/libfuzzer/seeds ]; then
  bash fuzz/targets/seeds.sh build-fuzz/tools/epsmith . fuzz-out/libfuzzer/seeds
fi
seconds=$((minutes * 60 / ${#targets[@]}))
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
status=0
for t in "${targets[@]}"; do
  corpus=fuzz-out/libfuzzer/$t
  mkdir -p "$corpus"
  dict=()
  case $t in
    json_reader | verifier) dict=(-dict=fuzz/targets/json.dict) ;;
    text_parser) dict=(-dict=fuzz/targets/text.dict) ;;
  esac
  if ! build-fuzz/fuzz/targets/fuzz_"$t" -fork="$(nproc)" -max_total_time="$seconds" -ignore_crashes=1 \
      "${dict[@]}" -artifact_prefix="$report/$t-" "$corpus" fuzz-out/libfuzzer/seeds/"$t" >"$report/$t.log" 2>&1; then
    status=1
  fi
  if ls "$report/$t-"* >/dev/null 2>&1; then status=1; fi
  echo "$t: $(grep -o 'cov: [0-9]* ft: [0-9]*' "$report/$t.log" | tail -1), corpus $(ls "$corpus" | wc -l)," \
       "$(grep -o 'exec/s: [0-9]*' "$report/$t.log" | tail -1)"
done
exit $status
