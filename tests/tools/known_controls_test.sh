#!/usr/bin/env bash
# known_controls_test.sh EPSMITH SOURCE_DIR: the negative controls of the known-bugs list
# (Note [Known bugs]). Bugs planted in this process's LibTorch and in the torch peer look like
# bugs the list knows: a D2 exception with ATen's most generic message (at sin, and at a plain
# transpose, as the lost in-place metadata mutation of transpose_ raises it), a D2 crash, a D2
# value mismatch through a plain t (as the lost metadata mutation of t_ shows), and
# a D5 ValueError from unpacking in torch's Python. A campaign reading the real
# corpus/known.json, and no corpus, files each as its own new root cause and counts no
# finding as known; without the faults the same campaign finds nothing.
set -uo pipefail
epsmith=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir empty
failures=0
cat >ops.cfg <<'CFG'
nodes 6
source grad-region 0
source cond 0
source while-loop 0
allow ^aten::add_\.Tensor$
allow ^aten::add\.Tensor$
allow ^aten::mul\.Tensor$
allow ^aten::sin$
allow ^aten::cos$
allow ^aten::t$
allow ^aten::transpose\.int$
allow ^aten::diagonal$
allow ^aten::squeeze\.dim$
allow ^aten::unsqueeze$
CFG
campaign() {  # campaign NAME CASES CHECKS [fuzz flags...]
  local name=$1 cases=$2 checks=$3
  shift 3
  "$epsmith" fuzz --cases "$cases" --seed 1 --config "${config:-ops.cfg}" --checks "$checks" --known "$src/corpus/known.json" \
    --known-corpus empty --corpus "c-$name" --report "r-$name" --confirm-timeout 0 "$@" >"$name.log" 2>&1
}
expect_root() {  # expect_root CAMPAIGN KEY_REGEX: a new root cause of that key was filed
  if grep -qE "^NEW [^ ]+: $2 " "$1.log"; then return; fi
  echo "FAIL $1: no new root cause matching '$2'; filed:"; grep "^NEW" "$1.log"; failures=$((failures + 1))
}
expect_stat() {  # expect_stat CAMPAIGN STAT VALUE
  if grep -qx "stat::$2: $3" "$1.log"; then return; fi
  echo "FAIL $1: wanted stat::$2: $3, got: $(grep "^stat::$2:" "$1.log")"; failures=$((failures + 1))
}
EPSMITH_PLANTED_FAULT=generic:aten::sin,generic:aten::transpose.int,crash:aten::add_.Tensor,value:aten::t campaign d2 300 D2
expect_root d2 'D2\|exception-in-one\|Dimension out of range \(expected to be in range of \[\.\.\.\], but got N\)\|sin'
expect_root d2 'D2\|exception-in-one\|Dimension out of range \(expected to be in range of \[\.\.\.\], but got N\)\|transpose'
expect_root d2 'D2\|crash-memory\|[^|]*\|add'
expect_root d2 'D2\|value-mismatch\|value mismatch\|t'
expect_stat d2 new_buckets 4
expect_stat d2 known_bug_findings 0
# The same faults met inside grad regions, conds and loops are no known bug either (an entry
# keyed by sum alone once took every finding in a cond's branch, whose predicate is a sum).
# The weights of docs/generators.md's measured mix.
sed 's/^source \(grad-region\|cond\|while-loop\) 0$/source \1 1/; s/^nodes 6$/nodes 6\nsource aten-call 100/' ops.cfg >hop.cfg
EPSMITH_PLANTED_FAULT=generic:aten::sin,generic:aten::transpose.int,crash:aten::add_.Tensor,value:aten::t \
  config=hop.cfg campaign d2_hop 300 D2
expect_stat d2_hop known_bug_findings 0
campaign d2_clean 300 D2
expect_stat d2_clean findings 0
# The torch peer runs where this build's LibTorch is the venv's torch (oracle/torch_peer.h).
EPSMITH_PLANTED_FAULT=torch-raise:aten::sin campaign d5 30 D5 --torch-every 1
if no_peer=$(grep -m1 "no torch peer" d5.log); then
  echo "skipped known_controls_d5: ${no_peer#epsmith fuzz: }"
else
  expect_root d5 'D5\|exception-in-one\|ValueError: not enough values to unpack \(expected N, got N\)\|[^ ]*sin'
  expect_stat d5 known_bug_findings 0
fi
if [ "$failures" -eq 0 ]; then echo "known_controls: all passed"; else echo "known_controls: $failures failed"; fi
[ "$failures" -eq 0 ]
