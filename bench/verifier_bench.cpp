// Verification time per node for programs of 100, 10 000 and 1 000 000 nodes. PyTorch's
// Python verifier costs about 6-8 us per node on this class of machine; the target is at most
// 60 ns per node at 10 000 nodes, growing linearly.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "bench/programs.h"
#include "verifier/verifier.h"

namespace epsmith::bench {
namespace {

void BM_Verify(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  ExportedProgram p = chainProgram(nodes);
  const Dialect& aten = *findDialect("ATEN");
  if (!verify(p, aten).empty()) {
    state.SkipWithError("the benchmark program does not verify");
    return;
  }
  for (auto _ : state) {
    auto ds = verify(p, aten);
    benchmark::DoNotOptimize(ds);
  }
  const auto size = static_cast<double>(p.graph().size());
  state.counters["nodes"] = size;
  // Seconds per node, shown by the reporter with an SI prefix (e.g. 25n = 25 ns/node).
  state.counters["per_node"] =
      benchmark::Counter(size, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Verify)->Arg(100)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace epsmith::bench
