#!/usr/bin/env bash
# Installs dependencies, then builds everything with warnings as errors and runs the whole test
# suite through ctest, on three LibTorch builds: the torch 2.13 wheel (the default
# build, as C++20), Debian's libtorch-dev (the `debian` preset) and the LibTorch of PyPI's
# torch 2.11, the last to link NativeRT (the `nativert` preset). This is README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh --debian-libtorch
presets=(ci ci-debian)
# NativeRT's LibTorch (D9 against the real runtime) needs CUDA's runtime libraries, which
# the machines this runs on have with the CUDA toolkit; where they lack them, the preset is
# left out with the reason rather than failing everything else.
if bash ci/install-deps.sh --nativert-libtorch; then
  presets+=(ci-nativert)
else
  echo "ci/test.sh: NativeRT's LibTorch cannot run here: the ci-nativert preset is left out" >&2
fi
# ccache may serve objects compiled in another clone: paths below here hash relative.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
for preset in "${presets[@]}"; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset" -j2
done
