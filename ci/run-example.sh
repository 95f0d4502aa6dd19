#!/usr/bin/env bash
# Installs dependencies, builds epsmith, and runs it on the bundled example program: README's
# first command until the fuzz campaign exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target epsmith
epsmith=./build/tools/epsmith
example=examples/linear_counter.ept
echo "== epsmith print $example"
$epsmith print "$example"
echo "== epsmith verify $example   (its own dialect, TRAINING)"
$epsmith verify "$example"
echo "== epsmith verify --dialect ATEN $example   (mutating ops are not functional)"
$epsmith verify --dialect ATEN "$example" || true
for mode in eager exported libtorch-functionalize; do
  echo "== epsmith run --mode $mode $example"
  $epsmith run --mode "$mode" "$example"
done
$epsmith convert "$example" build/linear_counter.json
echo "== wrote build/linear_counter.json (torch.export JSON of $example)"
