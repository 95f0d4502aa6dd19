#!/usr/bin/env bash
# cflite-check.sh [DIR]: runs .clusterfuzzlite/build.sh as ClusterFuzzLite's libFuzzer+ASan
# build does — the same environment variables, fresh $WORK and $OUT under DIR (default
# /tmp/epsmith-cflite) — then runs every target in $OUT on its seed corpus for a few
# hundred executions, as the engine's check_build step does. Exit 0 when every target
# built and ran without a crash.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/epsmith-cflite}
rm -rf "$dir/work" "$dir/out"
mkdir -p "$dir/work" "$dir/out"
export SRC=$dir EPSMITH_SRC=$here WORK=$dir/work OUT=$dir/out
export CC=clang-14 CXX=clang++-14 SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
bash "$here/.clusterfuzzlite/build.sh"
status=0
for zip in "$OUT"/*_seed_corpus.zip; do
  t=$(basename "$zip" _seed_corpus.zip)
  rm -rf "$WORK/run-$t" && mkdir -p "$WORK/run-$t" && (cd "$WORK/run-$t" && unzip -q "$zip")
  dict=()
  [ -f "$OUT/$t.dict" ] && dict=(-dict="$OUT/$t.dict")
  if ASAN_OPTIONS=detect_leaks=1 "$OUT/$t" -runs=300 "${dict[@]}" -artifact_prefix="$WORK/$t-" "$WORK/run-$t" \
      >"$WORK/$t.log" 2>&1; then
    echo "$t: ok ($(grep -o 'cov: [0-9]*' "$WORK/$t.log" | tail -1))"
  else
    echo "$t: FAILED (log: $WORK/$t.log)"; status=1
  fi
done
exit $status
