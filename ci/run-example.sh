#!/usr/bin/env bash
# Installs dependencies, builds epsmith, and runs it on the bundled example program: README's
# first command until the fuzz campaign exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target epsmith
./build/tools/epsmith print examples/linear_counter.ept
./build/tools/epsmith convert examples/linear_counter.ept build/linear_counter.json
echo "epsmith: wrote build/linear_counter.json (torch.export JSON of examples/linear_counter.ept)"
