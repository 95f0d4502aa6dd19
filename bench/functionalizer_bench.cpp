// Functionalization time per node for TRAINING programs of 1 000 and 100 000 nodes with a
// realistic mix of views, writes through them, stale reads, buffer updates and out= calls
// (bench/programs.h, mutationProgram). Target (issue 5): at most 1 us per node, linear.
#include <benchmark/benchmark.h>

#include "bench/programs.h"
#include "functionalizer/functionalize.h"

namespace epsmith::bench {
namespace {

void BM_Functionalize(benchmark::State& state) {
  ExportedProgram p = mutationProgram(state.range(0));
  auto first = functionalize(p);
  if (!first.ok()) {
    state.SkipWithError(("the benchmark program does not functionalize: " + first.error().str()).c_str());
    return;
  }
  for (auto _ : state) {
    auto result = functionalize(p);
    benchmark::DoNotOptimize(result);
    // Freeing the result is the IR's cost, not the pass's (BM_FreeResult measures it).
    state.PauseTiming();
    result = Diagnostic{};
    state.ResumeTiming();
  }
  const auto size = static_cast<double>(p.graph().size());
  state.counters["nodes"] = size;
  state.counters["nodes_out"] = static_cast<double>(first->graph().size());
  // Seconds per source node (the reporter prints e.g. 450n = 450 ns/node).
  state.counters["per_node"] =
      benchmark::Counter(size, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Functionalize)->Arg(1000)->Arg(10000)->Arg(100000)->Arg(300000)->Unit(benchmark::kMillisecond);

// What freeing a functionalized program of that size costs (its ~1.3x nodes).
void BM_FreeResult(benchmark::State& state) {
  ExportedProgram p = mutationProgram(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    auto result = functionalize(p);
    state.ResumeTiming();
    result = Diagnostic{};
  }
  const auto size = static_cast<double>(p.graph().size());
  state.counters["per_node"] =
      benchmark::Counter(size, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FreeResult)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace epsmith::bench
