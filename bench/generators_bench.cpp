// Generation speed: valid 16-node TRAINING programs per second on one core (issue 6's
// target: at least 2 000/s), with the share the TRAINING verifier accepts (target: at
// least 99.9%). Each iteration generates one program from its own seed; the verifier runs
// outside the timed region.
#include <benchmark/benchmark.h>

#include "fuzz/programs.h"
#include "generators/graph_generator.h"
#include "verifier/verifier.h"

namespace epsmith::bench {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

// Arguments: nodes, and 1 for the ATEN dialect (generated, then functionalized).
void BM_Generate(benchmark::State& state) {
  GeneratorConfig config;
  config.nodes = static_cast<int>(state.range(0));
  config.dialect = state.range(1) ? IrDialect::Aten : IrDialect::Training;
  const Dialect& training = *findDialect(std::string(dialectName(config.dialect)));
  uint64_t seed = 1, verified = 0, nodes = 0;
  for (auto _ : state) {
    SeededSource random(seed++);
    auto p = generateInDialect(catalog(), config, random);
    if (!p.ok()) {
      state.SkipWithError(p.error().message.c_str());
      return;
    }
    state.PauseTiming();
    nodes += p.value().graph().size();
    verified += verify(p.value(), training).empty() ? 1 : 0;
    state.ResumeTiming();
  }
  const auto n = static_cast<double>(seed - 1);
  state.counters["programs"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["verified_pct"] = 100.0 * static_cast<double>(verified) / n;
  state.counters["nodes_per_program"] = static_cast<double>(nodes) / n;
}
BENCHMARK(BM_Generate)->Args({16, 0})->Args({64, 0})->Args({16, 1})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace epsmith::bench
