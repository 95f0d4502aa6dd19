#!/usr/bin/env bash
# across_releases_test.sh EPSMITH SOURCE_DIR: D7 across releases
# (Note [Save and load across releases]) with the venv's torch standing for both releases,
# the "other" one a wrapper that plants a fault in what its torch.export.save writes
# (Note [Planted faults in the peer]): none, a truncated archive (the own release refuses
# it), parameters saved plus one (the own release runs another program). Then a campaign
# with the second fault files the finding minimized, and replay shows it again. Nothing
# depends on a bug of torch. Skipped where the venv's Python has no torch.
set -uo pipefail
epsmith=$(realpath "$1")
src=$(realpath "$2")
real=$src/.venv/bin/python
if ! "$real" -c 'import torch' 2>/dev/null; then
  echo "skipped across_releases: $real has no torch"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
other() {  # other NAME FAULT: a Python whose peer plants FAULT
  printf '#!/usr/bin/env bash\nEPSMITH_PLANTED_FAULT=%s exec %s "$@"\n' "$2" "$real" >"$work/$1"
  chmod +x "$work/$1"
}
other plain none
other truncating torch-resave:truncate
other perturbing torch-resave:perturb
export EPSMITH_PYTHON=$real
failures=0
expect() {  # expect NAME EXIT PATTERN -- command...
  local name=$1 want=$2 pattern=$3 out code
  shift 4
  out=$("$@" 2>&1); code=$?
  if [ "$code" -ne "$want" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $code (wanted $want), pattern '$pattern'"; echo "$out" | tail -15; failures=$((failures + 1))
  fi
}
example=$src/examples/linear_counter.ept
expect plain 0 "D7 pass" -- \
  env EPSMITH_OTHER_PYTHON="$work/plain" "$epsmith" check --checks D7 --across-releases "$example"
expect truncated 1 "across-releases-rejects" -- \
  env EPSMITH_OTHER_PYTHON="$work/truncating" "$epsmith" check --checks D7 --across-releases "$example"
expect perturbed 1 "across-releases-value-mismatch" -- \
  env EPSMITH_OTHER_PYTHON="$work/perturbing" "$epsmith" check --checks D7 --across-releases "$example"
expect not_asked 0 "D7 pass" -- \
  env EPSMITH_OTHER_PYTHON="$work/perturbing" "$epsmith" check --checks D7 "$example"
# A campaign asks on the drawn cases, minimizes, files; replay re-runs across releases.
printf 'nodes 6\n' >"$work/fuzz.cfg"
expect campaign 1 "" -- \
  env EPSMITH_OTHER_PYTHON="$work/perturbing" EPSMITH_RELEASE_PYTHONS= "$epsmith" fuzz --cases 4 --seed 3 --checks D7 \
  --config "$work/fuzz.cfg" --torch-every 1 --across-every 1 --minimize-calls 40 --confirm-timeout 0 \
  --corpus "$work/corpus" --report "$work/report"
expect campaign_report 0 "across-releases-value-mismatch" -- cat "$work/report/report.md"
case_file=$(grep -l '"check": "D7"' "$work"/corpus/regressions/*/*.json 2>/dev/null | head -1)
if [ -z "$case_file" ]; then
  echo "FAIL campaign: no D7 case filed"; failures=$((failures + 1))
else
  expect replay 0 "reproduces" -- env EPSMITH_OTHER_PYTHON="$work/perturbing" "$epsmith" replay "$case_file"
  expect replay_fixed 1 "fixed" -- env EPSMITH_OTHER_PYTHON="$work/plain" "$epsmith" replay "$case_file"
fi
if [ "$failures" -eq 0 ]; then echo "across_releases: all passed"; else echo "across_releases: $failures failed"; fi
[ "$failures" -eq 0 ]
