#!/usr/bin/env bash
# Installs dependencies, then builds everything with warnings as errors and runs the whole test
# suite through ctest, on three LibTorch builds: the torch 2.13 wheel (the default
# build, as C++20), the torch 2.14.1 wheel (the `2.14` preset, in .venv-2.14) and the
# LibTorch of PyPI's torch 2.11, the last to link NativeRT (the `nativert` preset). Then it runs the known-bugs
# list's scripts (`epsmith known --check`), as information unless an entry is wrong. Every
# skipped test is listed with its reason, and the last line says which builds ran. This is
# README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh --torch-2.14
presets=(ci ci-2.14)
left_out=""
# NativeRT's LibTorch (D9 against the real runtime) needs CUDA's runtime libraries, which
# the machines this runs on have with the CUDA toolkit; where they lack them (exit 3), the
# preset is left out, and the last line says so. Any other failure to install it fails.
nativert=0
bash ci/install-deps.sh --nativert-libtorch || nativert=$?
case "$nativert" in
  0) presets+=(ci-nativert) ;;
  3) left_out=" (ci-nativert left out: this machine lacks CUDA's runtime libraries)" ;;
  *) echo "ci/test.sh: installing NativeRT's LibTorch failed (exit $nativert)" >&2; exit "$nativert" ;;
esac
# ccache may serve objects compiled in another clone: paths below here hash relative.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
skipped=0
for preset in "${presets[@]}"; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  # Every test's output goes to the log (ctest -V), for the skipped tests' reasons; the
  # console gets ctest's own lines, and a failed test's output.
  log="build-$preset/ctest-output.log"
  status=0
  ctest --preset "$preset" -j2 -V >"$log" 2>&1 || status=$?
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed|The following tests|^[[:space:]]+[0-9]+ - ' "$log" || true
  if [ "$status" -ne 0 ]; then
    bash ci/failed-tests.sh "$log" || true
    exit "$status"
  fi
  bash ci/skipped-tests.sh "$log" >"$log.skipped"
  cat "$log.skipped"
  skipped=$((skipped + $(wc -l <"$log.skipped")))
done
echo "== epsmith known --check (the known-bugs list's scripts on this machine's Python torch)"
./build-ci/tools/epsmith known --check --known corpus/known.json --jobs 2
echo "ci/test.sh: built and tested ${presets[*]}$left_out; $skipped tests skipped, each listed above with its reason"
