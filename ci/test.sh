#!/usr/bin/env bash
# Installs dependencies, then builds everything with warnings as errors and runs the whole test
# suite through ctest, on both supported LibTorch releases: the torch 2.13 wheel (the default
# build, as C++20) and Debian's libtorch-dev (the `debian` preset). This is README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh --debian-libtorch
# ccache may serve objects compiled in another clone: paths below here hash relative.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
for preset in ci ci-debian; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset" -j2
done
