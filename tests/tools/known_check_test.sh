#!/usr/bin/env bash
# known_check_test.sh EPSMITH SOURCE_DIR: `epsmith known --check` on a list made for the test,
# whose entries name three scripts of the corpus: one that shows its bug with torch alone (a
# crash of torch.func.functionalize), one that torch alone passes (a bug of LibTorch's C++
# functionalization only) and one that shows another difference than its case's. Each
# verdict comes out where the entry's claims make it: reproduces (and, seen only on another
# release, "add it to seen"), cpp-only as the path says, fixed (passes on a release after
# those it was seen on), changed (another difference on a release it was not seen on), not
# yet (passes on a release before them: a regression after it), wrong (passes where it says
# it was seen: exit 1), and no script; then --which matches cases to entries. Skipped where
# the venv's Python has no torch.
set -uo pipefail
epsmith=$(realpath "$1")
src=$(realpath "$2")
# The scripts need only a Python torch, whichever LibTorch this epsmith was built with.
export EPSMITH_PYTHON=${EPSMITH_PYTHON:-$src/.venv/bin/python}
# That torch alone: the releases a finding affects are cli_test.sh's.
export EPSMITH_RELEASE_PYTHONS=
python=$EPSMITH_PYTHON
if ! release=$("$python" -c 'import torch; print(".".join(torch.__version__.split(".")[:2]))' 2>/dev/null); then
  echo "skipped known_check: $python has no torch"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus/regressions"
crash=d2-crash-memory-a44aad4d cpp=d2-exception-in-one-676fff3f
cp -r "$src/corpus/regressions/$crash" "$src/corpus/regressions/$cpp" "$work/corpus/regressions/"
# A script that shows another difference than its case's: a confirmed case whose message is
# made another.
other=d2-exception-in-one-01af5ca7
cp -r "$src/corpus/regressions/$other" "$work/corpus/regressions/"
python3 - "$work/corpus/regressions/$other" <<'PY'
import glob, json, sys
f = glob.glob(sys.argv[1] + "/*.json")[0]
c = json.load(open(f))
c["expected"]["message"] = "a message no script prints"
json.dump(c, open(f, "w"))
PY
entry() {  # entry ID CASE PATH SEEN
  local pattern='"check": "D2", "kind": "crash-memory", "traits": ["resizes-a-viewed-tensor"]'
  [ "$2" = "$cpp" ] && pattern='"check": "D2", "kind": "exception-in-one", "ops": ["floor_divide"]'
  [ "$2" = "$other" ] && pattern='"check": "D2", "kind": "exception-in-one", "ops": ["arange"]'
  printf '{"id": "%s", %s, "path": "%s", "issue": "unreported", "seen": ["%s"], "repro": "corpus/regressions/%s/repro.py", "why": "test"}' \
    "$1" "$pattern" "$3" "$4" "$2"
}
{
  echo '{"epsmith_known_bugs": 2, "bugs": ['
  entry shows "$crash" user "$release"; echo ,
  entry shows-elsewhere "$crash" user 1.0; echo ,
  entry cpp-as-said "$cpp" cpp-only "$release"; echo ,
  entry fixed-since "$cpp" user 1.0; echo ,
  entry not-yet "$cpp" user 99.0; echo ,
  entry changed-since "$other" user 1.0; echo ,
  echo '{"id": "no-script", "check": "D2", "ops": ["add"], "path": "user", "issue": "unreported", "seen": ["1.0"], "why": "test"},'
  entry wrong "$cpp" user "$release"
  echo ']}'
} >"$work/corpus/known.json"
failures=0
out=$("$epsmith" known --check --known "$work/corpus/known.json" --jobs 2 2>&1); code=$?
for want in "reproduces  shows: set \"checked\": \"$release\"; affects $release" "reproduces  shows-elsewhere: add \"$release\" to its \"seen\"" "cpp-only    cpp-as-said" \
            "fixed       fixed-since: set \"fixed\": \"$release\"" "wrong       wrong: its script passes on $release" \
            "not yet     not-yet: passes on $release, before the releases it was seen on" \
            "changed     changed-since: its bug does not show on $release, the script shows another difference" \
            "2 reproduces, 1 cpp-only, 1 fixed, 1 changed, 1 not yet, 1 wrong, 0 cannot run, 1 no script"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL known_check: no line '$want'"; failures=$((failures + 1)); }
done
[ "$code" -eq 1 ] || { echo "FAIL known_check: exit $code, wanted 1 for a wrong entry"; failures=$((failures + 1)); }
# Without the wrong entry, fixed and reproducing bugs alike exit 0: upstream fixing a bug
# never fails it.
python3 - "$work/corpus/known.json" "$work/corpus/known2.json" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))
k["bugs"] = [b for b in k["bugs"] if b["id"] != "wrong"]
json.dump(k, open(sys.argv[2], "w"))
PY
out=$("$epsmith" known --check --known "$work/corpus/known2.json" --jobs 2 2>&1); code=$?
[ "$code" -eq 0 ] || { echo "FAIL known_check_no_wrong: exit $code"; echo "$out" | tail -3; failures=$((failures + 1)); }
# --which names the entry each case is an instance of, on the release the case was found on,
# and says which entries have no script yet; an unreadable case is a located error, exit 2,
# after the others are told.
found_on=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["provenance"]["libtorch"])' \
  "$(ls "$work"/corpus/regressions/$crash/*.json)")
{
  echo '{"epsmith_known_bugs": 2, "bugs": ['
  entry crash-no-script "$crash" user "$found_on" | sed 's/, "repro": "[^"]*"//'; echo ,
  entry cpp-with-script "$cpp" cpp-only "$found_on"
  echo ']}'
} >"$work/corpus/known3.json"
out=$("$epsmith" known --which "$work/corpus/regressions" --known "$work/corpus/known3.json" 2>&1); code=$?
for want in "no script   $work/corpus/regressions/$crash/" "has script  $work/corpus/regressions/$cpp/" \
            ": crash-no-script" ": cpp-with-script" "3 cases: 2 match an entry, 1 of them one without a script; 0 unreadable"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL known_which: no line '$want'"; echo "$out"; failures=$((failures + 1)); }
done
[ "$code" -eq 0 ] || { echo "FAIL known_which: exit $code"; failures=$((failures + 1)); }
mkdir -p "$work/bad/regressions/x" && echo '{"epsmith_case": 2' >"$work/bad/regressions/x/seed-1.json"
out=$("$epsmith" known --which "$work/bad" "$work/corpus/regressions/$cpp" --known "$work/corpus/known3.json" 2>&1); code=$?
{ [ "$code" -eq 2 ] && grep -q "x/seed-1.json" <<<"$out" && grep -qF ": cpp-with-script" <<<"$out"; } ||
  { echo "FAIL known_which_bad_case: exit $code: $out"; failures=$((failures + 1)); }
bad=$("$epsmith" known --check --known "$work/none.json" 2>&1); code=$?
{ [ "$code" -eq 2 ] && grep -q "none.json: cannot open the known-bugs list" <<<"$bad"; } ||
  { echo "FAIL known_check_bad_list: exit $code: $bad"; failures=$((failures + 1)); }
if [ "$failures" -eq 0 ]; then echo "known_check: all passed"; else echo "$out"; echo "known_check: $failures failed"; fi
[ "$failures" -eq 0 ]
