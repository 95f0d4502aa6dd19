#!/usr/bin/env bash
# `epsmith perf` end to end: a kernel made slower on purpose (EPSMITH_PLANTED_FAULT=slow:,
# Note [Planted faults]) is found by --compare in every program that calls it, and as an
# op; bad inputs are located errors with exit 2 that keep what could be timed.
# Usage: perf_test.sh EPSMITH
set -uo pipefail
epsmith=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# Programs of abs and neg only, so that most call the op planted slow. What is compared here
# is one build's timing against another's: a functionalized form far slower than eager (an
# `abs_` whose functional form is the slowed `abs`) is a finding of its own, tested below, and
# kept out of these runs' exit status.
printf 'nodes 6\nallow ^aten::(abs|neg)$\n' >"$work/config"
for round in 1 2; do
  "$epsmith" perf --config "$work/config" --count 12 --rounds 1 --reps 8 --modes eager,libtorch-functionalize \
    --far-slower 1000 --append --out "$work/a.json" >/dev/null || fail "timing A (exit $?)"
  EPSMITH_PLANTED_FAULT=slow:aten::abs "$epsmith" perf --config "$work/config" --count 12 --rounds 1 --reps 8 \
    --modes eager,libtorch-functionalize --far-slower 1000 --append --out "$work/b.json" >/dev/null 2>&1 ||
    fail "timing B (exit $?)"
done
"$epsmith" perf --compare "$work/a.json" "$work/b.json" --top 100 >"$work/report"
status=$?
[ "$status" = 1 ] || fail "--compare of a slowed build: exit $status, want 1"
grep -q "^  [0-9.]*x  aten::abs  over" "$work/report" || fail "aten::abs not reported as an op that got slower"
# Every program that calls abs (read from A's timing, not assumed) and runs under 1 ms, so
# that one call's 200 µs is more than the 10% threshold, is reported slower. Eight repetitions
# a round: a busy machine's hiccups, longer than the delay, must not leave the U test in doubt.
callers=$(python3 -c '
import json, statistics, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    eager = p["modes"]["eager"]
    if "aten::abs" in eager["ops"] and eager["micros"] and statistics.median(eager["micros"]) < 1000:
        print(p["id"])' "$work/a.json")
[ -n "$callers" ] || fail "no generated program calls aten::abs"
for id in $callers; do
  grep -q "  $id\$" "$work/report" || fail "$id calls the slowed op but is not reported"
done
"$epsmith" perf --compare "$work/a.json:eager" "$work/b.json:libtorch-functionalize" >/dev/null
[ $? = 1 ] || fail "a mode named after the file is not compared"

# A functionalized form far slower than eager: eager's `abs_` is not slowed, as in-place
# kernels keep their own (Note [Planted faults]); the functionalized form's `abs` is, 200 us
# a call.
cat >"$work/abs_.ept" <<'EOF'
program {
  verifiers ["TRAINING"]
  schema_version 8.20
  torch_version "2.13.0"
  opset {"aten": 10}
}
graph {
  %x: f32[2, 3] = placeholder
  %abs_: f32[2, 3] = aten::abs_(%x)
  return (%abs_)
}
signature {
  input user_input %x
  output user_input_mutation %abs_ -> "x"
}
example_inputs {
  $0 f32[2, 3]
}
storages {
  $0: f32[6] = [0.5, -1.25, 3.0, 0.0, 2.0, -0.0]
}
EOF
EPSMITH_PLANTED_FAULT=slow:aten::abs "$epsmith" perf "$work/abs_.ept" --rounds 1 --reps 8 \
  --modes eager,functionalized --out "$work/far.json" >"$work/out" 2>/dev/null
status=$?
[ "$status" = 1 ] || fail "a functionalized form far slower than eager: exit $status, want 1"
grep -q "^finding: $work/abs_.ept: functionalized runs [0-9.]*x as long as eager" "$work/out" ||
  fail "no far-slower finding in: $(cat "$work/out")"

expect_bad() {  # expect_bad WHAT PATTERN ARGS...: exit 2 and PATTERN on stderr
  local what=$1 pattern=$2
  shift 2
  "$epsmith" perf "$@" >"$work/out" 2>"$work/err"
  local status=$?
  [ "$status" = 2 ] || fail "$what: exit $status, want 2"
  grep -q -- "$pattern" "$work/err" || fail "$what: no '$pattern' in: $(cat "$work/err")"
}
expect_bad "nothing to time" "nothing to time" --out "$work/x.json"
expect_bad "an unknown mode" "--modes: unknown mode 'eagre'" --count 1 --modes eagre --out "$work/x.json"
expect_bad "a missing timing file" "$work/missing.json: cannot open" --compare "$work/missing.json" "$work/a.json"
echo '{"epsmith_perf": 1}' >"$work/short.json"
expect_bad "a timing file without its fields" "short.json: \$: " --compare "$work/short.json" "$work/a.json"
echo 'not a program' >"$work/bad.ept"
expect_bad "an unreadable program" "bad.ept" "$work/bad.ept" --count 1 --reps 1 --rounds 1 --out "$work/kept.json"
python3 -c '
import json, sys
ids = [p["id"] for p in json.load(open(sys.argv[1]))["programs"]]
sys.exit(0 if ids[-1] == "seed:1" and ids[0].endswith("bad.ept") else 1)' "$work/kept.json" ||
  fail "the programs that could be timed are not kept beside the unreadable one"
expect_bad "appending rounds timed otherwise" "cannot append" --count 1 --reps 3 --out "$work/a.json" --append
exit $failed
