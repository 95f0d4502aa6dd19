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

# The native functionalizer on a program that writes through views: the functional ATEN
# program it prints verifies, and run through the exported calling convention it leaves the
# same outputs and inputs as the original run eagerly.
views=examples/writes_through_views.ept
echo "== epsmith run --mode eager $views"
$epsmith run --mode eager "$views"
echo "== epsmith functionalize $views"
$epsmith functionalize "$views" -o build/writes_through_views.functional.ept
$epsmith print build/writes_through_views.functional.ept
$epsmith verify build/writes_through_views.functional.ept
echo "== epsmith run build/writes_through_views.functional.ept   (exported calling convention)"
$epsmith run build/writes_through_views.functional.ept

# The generators: 100 random TRAINING programs from seed 1 (each verified as it is
# written), one of them printed; then one in the ATEN dialect (generated, functionalized,
# verified) run through the exported calling convention.
echo "== epsmith generate --seed 1 --count 100 --out build/generated"
$epsmith generate --seed 1 --count 100 --out build/generated
$epsmith print build/generated/gen-3.json
echo "== epsmith generate --seed 1 --count 1 --dialect ATEN --text --out build/generated-aten"
$epsmith generate --seed 1 --count 1 --dialect ATEN --text --out build/generated-aten
$epsmith run build/generated-aten/gen-1.ept
