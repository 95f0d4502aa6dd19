#!/usr/bin/env bash
# Installs dependencies, builds everything with warnings as errors, and runs the whole test
# suite through ctest. This is README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci -j2
