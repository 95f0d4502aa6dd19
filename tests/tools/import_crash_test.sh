#!/usr/bin/env bash
# import_crash_test.sh EPSMITH FUZZ_FUNCTIONALIZER: a planted functionalizer fault
# (Note [Planted functionalizer faults]) stops the functionalizer target on one of a fixed
# set of byte inputs; `epsmith import-crash` files that input as a minimized D1 case that
# replay reproduces with the fault and calls fixed without it, and that a known-bugs list
# naming it keeps from being filed. A reader's crash input is kept byte for byte; bad
# targets, files and lists exit 2.
set -uo pipefail
epsmith=$(realpath "$1")
target=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
expect() {  # expect NAME WANTED_EXIT PATTERN -- command...
  local name=$1 want=$2 pattern=$3 out code
  shift 4
  out=$("$@" 2>&1); code=$?
  if [ "$code" -ne "$want" ] || ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $code (wanted $want), output:"; echo "$out" | tail -15; failures=$((failures + 1))
  fi
}
python3 -c "
import random
r = random.Random(20261127)
for i in range(600):
    open('in-%03d' % i, 'wb').write(bytes(r.randrange(256) for _ in range(4096)))
"
export EPSMITH_FUNCTIONALIZER_FAULT=add-subtracts
crash=
for f in in-*; do
  if ! ("$target" "$f") >run.log 2>&1; then crash=$f; break; fi
done
if [ -z "$crash" ]; then
  echo "FAIL: none of 600 inputs stopped the functionalizer target with add-subtracts planted"; exit 1
fi
grep -q "epsmith functionalizer: D1 value-mismatch" run.log || { echo "FAIL: the target stopped otherwise:"; tail -5 run.log; exit 1; }
expect import 0 "filed d1-value-mismatch-" -- "$epsmith" import-crash functionalizer "$crash" --corpus corpus
expect replay_reproduces 0 "1 reproduce" -- "$epsmith" replay corpus/regressions
# A finding of a bug on the known-bugs list is counted as a campaign counts it, not filed.
cat >known.json <<'KNOWN'
{"epsmith_known_bugs": 2, "bugs": [{"id": "planted-add-subtracts", "check": "D1", "kind": "value-mismatch",
  "ops": ["add"], "path": "user", "issue": "unreported", "seen": ["1.13", "2.11", "2.13", "2.14"],
  "why": "the planted functionalizer fault add-subtracts"}]}
KNOWN
expect known_not_filed 0 "a known bug, not filed: planted-add-subtracts" -- \
  "$epsmith" import-crash functionalizer "$crash" --corpus known-corpus --known known.json
[ ! -e known-corpus ] || { echo "FAIL: a known bug's case was filed"; failures=$((failures + 1)); }
expect bad_known_list 2 "--known" -- "$epsmith" import-crash functionalizer "$crash" --known none.json
unset EPSMITH_FUNCTIONALIZER_FAULT
expect replay_fixed_without_the_fault 1 "1 fixed" -- "$epsmith" replay corpus/regressions
printf '{"graph_module": ' >reader-input
expect reader_input_kept 0 "kept as an input of json_reader: corpus/fuzz-inputs/json_reader/crash-" -- \
  "$epsmith" import-crash json_reader reader-input --corpus corpus
cmp -s reader-input corpus/fuzz-inputs/json_reader/crash-* || { echo "FAIL: the kept input differs"; failures=$((failures + 1)); }
expect unknown_target 2 "unknown target 'nope'" -- "$epsmith" import-crash nope reader-input
expect missing_file 2 "none: cannot open" -- "$epsmith" import-crash case none
echo "import-crash: $failures failed"
[ "$failures" -eq 0 ]
