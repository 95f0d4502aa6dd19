// Interpreter overhead: a 1 000-node program of small ops run by the oracle's interpreter,
// against the same ops called directly through the boxed dispatcher with pre-built argument
// lists. Target (issue 4): the interpreter adds at most 25%.
#include <ATen/core/Tensor.h>
#include <ATen/ops/randn.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench/programs.h"
#include "ops/op_registry.h"
#include "oracle/interpreter.h"

namespace epsmith::bench {
namespace {

// The same computation as the program, as a flat list of boxed calls over value slots.
struct DirectCall {
  const c10::OperatorHandle* op;
  std::vector<int> slots;              // tensor arguments, by slot
  std::vector<c10::IValue> constants;  // the remaining arguments, appended in order
  bool constants_first_after_self = false;
};

struct Fixture {
  ExportedProgram program;
  std::unique_ptr<Interpreter> interpreter;
  std::vector<c10::IValue> inputs;
  std::vector<DirectCall> calls;
  size_t num_slots = 0;

  explicit Fixture(int64_t nodes) : program(chainProgram(nodes)) {
    interpreter = std::make_unique<Interpreter>(program.graph());
    std::unordered_map<const Node*, int> slot;
    for (const auto& n : program.graph().nodes()) {
      int s = static_cast<int>(num_slots++);
      slot[&n] = s;
      if (n.isPlaceholder()) inputs.push_back(at::randn({4, 4}));
      if (n.op() != OpKind::CallFunction) continue;
      const OpInfo& op = *n.target.op();
      DirectCall call{op.handle, {}, {}};
      for (const auto& a : n.args) {
        if (const auto* t = a.get<arg::Tensor>()) call.slots.push_back(slot[t->node]);
        if (const auto* l = a.get<arg::IntList>()) call.constants.emplace_back(l->values);
      }
      if (op.qualified_name == "aten::add" || op.qualified_name == "aten::mul") {
        if (op.qualified_name == "aten::add") call.constants.emplace_back(1);  // alpha
      }
      calls.push_back(std::move(call));
    }
  }

  void runDirect() const {
    std::vector<c10::IValue> env(num_slots);
    for (size_t i = 0; i < inputs.size(); ++i) env[i] = inputs[i];
    size_t slot = inputs.size();
    std::vector<c10::IValue> stack;
    for (const auto& call : calls) {
      stack.clear();
      for (int s : call.slots) stack.push_back(env[static_cast<size_t>(s)]);
      for (const auto& c : call.constants) stack.push_back(c);
      call.op->callBoxed(&stack);
      env[slot++] = std::move(stack.back());
    }
    benchmark::DoNotOptimize(env);
  }
};

void BM_DirectDispatcher(benchmark::State& state) {
  Fixture f(state.range(0));
  for (auto _ : state) f.runDirect();
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(f.calls.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Interpreter(benchmark::State& state) {
  Fixture f(state.range(0));
  for (auto _ : state) {
    auto out = f.interpreter->run(f.inputs);
    if (out.error) state.SkipWithError(out.error->message.c_str());
    benchmark::DoNotOptimize(out);
  }
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(f.calls.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Both in one loop, alternating, so machine noise hits them alike; reports the ratio.
void BM_InterpreterOverDirect(benchmark::State& state) {
  Fixture f(state.range(0));
  using Clock = std::chrono::steady_clock;
  Clock::duration direct{}, interp{};
  for (auto _ : state) {
    auto t0 = Clock::now();
    f.runDirect();
    auto t1 = Clock::now();
    auto out = f.interpreter->run(f.inputs);
    auto t2 = Clock::now();
    benchmark::DoNotOptimize(out);
    direct += t1 - t0;
    interp += t2 - t1;
  }
  state.counters["ratio"] =
      std::chrono::duration<double>(interp).count() / std::chrono::duration<double>(direct).count();
}

BENCHMARK(BM_DirectDispatcher)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Interpreter)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_InterpreterOverDirect)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace epsmith::bench
