#!/usr/bin/env bash
# ci/perf.sh [--build DIR] [--out DIR] [--history FILE] [--repetitions N] [--record]
# Times epsmith's own stages and compares them with the baseline stored for the LibTorch the
# build uses (bench/baselines/<version>/, docs/perf.md): the Google Benchmark suites below,
# with repetitions, by Google Benchmark's compare.py and its U test; and the instructions each
# stage executes under callgrind, which a shared machine's noise does not move. Without
# --build it builds the default preset. --record writes the baseline instead of comparing.
# Writes DIR (default reports/perf-<UTC time>): bench/*.json, instructions.json, compare/,
# perf.md; appends a line to the history (default reports/perf-history.jsonl) and draws
# its plots beside it. Exit 0: no regression; 1: a regression beyond the thresholds of
# ci/perf_report.py; 2: it could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
build="" out="" history=reports/perf-history.jsonl repetitions=10 record=0
usage() { echo "usage: ci/perf.sh [--build DIR] [--out DIR] [--history FILE] [--repetitions N] [--record]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --history) history=${2:?}; shift 2 ;;
    --repetitions) repetitions=${2:?}; shift 2 ;;
    --record) record=1; shift ;;
    *) usage ;;
  esac
done
[[ "$repetitions" =~ ^[0-9]+$ ]] && [ "$repetitions" -ge 2 ] || usage

# The suites and the benchmarks of each that stand for a stage: one size each, the one a
# campaign meets (16 ops, a program of the corpus's size), so a run takes a minute or two.
suites=(
  "verifier:^BM_Verify/10000$"
  "functionalizer:^BM_Functionalize/10000$"
  "generators:^BM_Generate/16/0$"
  "oracle:^BM_Interpreter/1000$"
  "formats:^BM_(Read|Write)Program$"
  "fuzz:^BM_Case/16/1/real_time$"
)
if [ -z "$build" ]; then
  bash ci/install-deps.sh >&2
  cmake --preset default >/dev/null
  build=build
fi
targets=(epsmith)
for s in "${suites[@]}"; do targets+=("bench_${s%%:*}"); done
cmake --build "$build" --target "${targets[@]}" >&2
python=.venv/bin/python
[ -x "$python" ] || { echo "ci/perf.sh: no $python: run ci/install-deps.sh" >&2; exit 2; }

version=$("$build/tools/epsmith" --version | sed -n 's/.*(LibTorch \([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$version" ] || { echo "ci/perf.sh: $build/tools/epsmith --version names no LibTorch" >&2; exit 2; }
baseline=bench/baselines/$version
out=${out:-reports/perf-$(date -u +%Y-%m-%dT%H-%M-%SZ)}
mkdir -p "$out/bench"

for s in "${suites[@]}"; do
  suite=${s%%:*} filter=${s#*:}
  echo "ci/perf.sh: $suite ($filter), $repetitions repetitions" >&2
  "$build/bench/bench_$suite" --benchmark_filter="$filter" --benchmark_repetitions="$repetitions" \
    --benchmark_min_time=0.2 --benchmark_out="$out/bench/$suite.json" --benchmark_out_format=json \
    >"$out/bench/$suite.txt" 2>&1 || { tail -5 "$out/bench/$suite.txt" >&2; echo "ci/perf.sh: bench_$suite failed" >&2; exit 2; }
done

# Instructions per stage: `generate` of ATEN programs runs the generator, the functionalizer,
# the verifier and the JSON writer, each an inclusive cost in callgrind's annotation. One
# OpenMP thread: with more, the time a thread spins at a barrier counts as the stage's, and
# the generator's count moved by 3% between runs of one build; with one, it does not move.
echo "ci/perf.sh: instructions under callgrind (a minute, mostly LibTorch's start)" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
  "$build/tools/epsmith" generate --count 40 --seed 1 --dialect ATEN --out "$work/programs" >/dev/null 2>"$work/valgrind.log" ||
  { tail -5 "$work/valgrind.log" >&2; echo "ci/perf.sh: callgrind failed" >&2; exit 2; }
callgrind_annotate --inclusive=yes --threshold=100 "$work/callgrind.out" >"$work/annotated.txt" 2>/dev/null
"$python" ci/perf_report.py instructions "$work/annotated.txt" >"$out/instructions.json"

if [ "$record" = 1 ]; then
  mkdir -p "$baseline"
  cp "$out"/bench/*.json "$out/instructions.json" "$baseline/"
  echo "ci/perf.sh: recorded the baseline of LibTorch $version in $baseline" >&2
  exit 0
fi
[ -d "$baseline" ] || { echo "ci/perf.sh: no baseline for LibTorch $version ($baseline): run ci/perf.sh --record" >&2; exit 2; }
mkdir -p "$out/compare"
for s in "${suites[@]}"; do
  suite=${s%%:*}
  [ -f "$baseline/$suite.json" ] || { echo "ci/perf.sh: $baseline/$suite.json is missing: run ci/perf.sh --record" >&2; exit 2; }
  "$python" /usr/share/benchmark/compare.py --no-color -a -d "$out/compare/$suite.json" \
    benchmarks "$baseline/$suite.json" "$out/bench/$suite.json" >"$out/compare/$suite.txt"
done
status=0
"$python" ci/perf_report.py gate --baseline "$baseline" --out "$out" --history "$history" \
  --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" --libtorch "$version" || status=$?
"$python" ci/perf_report.py plot --history "$history" --report "$out/perf.md" --out "$(dirname "$history")" ||
  echo "ci/perf.sh: the plots could not be drawn (above); the verdict stands" >&2
cat "$out/perf.md"
exit "$status"
