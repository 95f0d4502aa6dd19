#!/usr/bin/env bash
# tools/nativert_repro.cpp, the C++ half of a D9 finding's reproducer, runs an archive
# epsmith wrote on its sample inputs and prints what NativeRT returns: linear_counter's
# output is eager's (`epsmith run`), element for element.
set -euo pipefail
epsmith=$1 repro=$2 source=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$epsmith" convert "$source/examples/linear_counter.ept" "$dir/case.pt2"
"$repro" "$dir/case.pt2" >"$dir/out.txt"
# Eager's first output, as `epsmith run` prints it: "output 0: f32[2, 3] = [1.125, 5.0, ...]".
eager=$("$epsmith" run --mode eager "$source/examples/linear_counter.ept" | sed -n 's/^  output 0: [^=]*= \[\(.*\)\]$/\1/p' | tr -d ',')
# NativeRT's, as c10::IValue prints a tensor: rows of numbers, then "[ CPUFloatType{2,3} ]".
grep -q "CPUFloatType{2,3}" "$dir/out.txt" || { echo "FAIL: no f32[2, 3] output:"; cat "$dir/out.txt"; exit 1; }
theirs=$(sed -n '1,/CPUFloatType/p' "$dir/out.txt" | grep -v CPUFloatType | tr -s ' \n' ' ')
python3 - "$eager" "$theirs" <<'PY'
import sys
eager = [float(v) for v in sys.argv[1].split()]
theirs = [float(v) for v in sys.argv[2].split()]
if len(eager) != 6 or len(theirs) != 6 or any(abs(a - b) > 1e-4 for a, b in zip(eager, theirs)):
    sys.exit(f"FAIL: eager {eager}, NativeRT {theirs}")
print("nativert_repro prints eager's output")
PY
