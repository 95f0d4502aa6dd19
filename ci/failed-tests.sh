#!/usr/bin/env bash
# failed-tests.sh CTEST_VERBOSE_LOG: what each failed test printed about its failure, taken
# from the `ctest -V` log of the run that failed (a rerun can pass, and a flaky failure would
# leave no trace). GoogleTest's failures are printed with the lines after them; a test that
# is not GoogleTest's gets its last lines.
set -euo pipefail
log="$1"
# The numbers ctest lists under "The following tests FAILED:" (not those that did not run).
ids=$(sed -n '/^The following tests FAILED:/,$p' "$log" | sed -nE 's/^[[:space:]]+([0-9]+) - [^ ]+ \(.*\)$/\1/p')
for id in $ids; do
  output=$(sed -nE "s/^$id: //p" "$log")
  echo "== the output of test #$id where it failed"
  if grep -qE '(Failure|\[  FAILED  \])' <<<"$output"; then
    grep -E -A12 '(: Failure$|^\[  FAILED  \])' <<<"$output" | head -n 200
  else
    tail -n 60 <<<"$output"
  fi
done
