// The eager interpreter: runs a Graph node by node through the boxed c10 dispatcher with real
// tensors and real aliasing. In-place and out= ops mutate the very tensors they are given,
// views alias their base, and inputs are the caller's tensors. Targets and argument plans
// are resolved once at construction; run() only moves IValues.
#pragma once

#include <ATen/core/ivalue.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "oracle/run_result.h"

namespace epsmith {

class Interpreter;

// Semantics of a higher-order op (e.g. cond). `args` are the evaluated positional arguments
// (subgraph arguments arrive as None); `subgraphs` are the graphs named by its arg::Graph
// arguments, in order, with an interpreter each. Return the node's value.
struct HigherOrderCall {
  const Node& node;
  std::vector<c10::IValue>& args;
  std::vector<const Interpreter*> subgraphs;
  // The run's observer, which a subgraph's calls are shown to as well (null: none).
  const ValueObserver* observe = nullptr;
  // Whether the observer is shown the subgraphs the call does not run (RunOptions).
  bool observe_untaken = false;
};
using HigherOrderFn = std::function<c10::IValue(HigherOrderCall& call)>;
// Registers (or replaces) the semantics of higher_order.<name>; `cond` is built in.
void registerHigherOrderOp(const std::string& name, HigherOrderFn fn);

class Interpreter {
 public:
  // Resolves every node of `g` (and, recursively, of the subgraphs it calls), for a run on
  // `device` (Note [Programs moved to a device]). Throws std::invalid_argument for a graph
  // it cannot plan (a target with no semantics).
  explicit Interpreter(const Graph& g, c10::Device device = c10::kCPU);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  struct Outcome {
    std::vector<c10::IValue> outputs;  // the output node's values
    std::optional<RunError> error;
  };
  // One value per placeholder, in order. An op that throws ends the run with `error` set.
  // Grad mode is the caller's (set it with at::AutoGradMode / c10::InferenceMode);
  // torch._C._set_grad_enabled nodes change it for the rest of the run and it is restored.
  // `observe`, when set, sees each call_function node's value as soon as it is computed;
  // with `observe_untaken`, those of the subgraphs not run too (RunOptions).
  Outcome run(const std::vector<c10::IValue>& inputs, const ValueObserver& observe = {},
              bool observe_untaken = false) const;

  // Note [One plan for the runs of a program]
  // A plan holds the IValues of its literal arguments, and a literal number passed for a
  // Tensor parameter is planned as a 0-dim tensor: an op that writes into that argument
  // would change it for every later run. A plan without such tensors can serve any number
  // of runs of its graph (the eager run and LibTorch's functionalization of one program,
  // say); one with them serves one run, as a fresh plan per run always did.
  bool servesManyRuns() const;
  c10::Device device() const;

  struct Plan;  // defined in interpreter.cpp

 private:
  friend Outcome runSingleCall(const Node& call, const std::function<c10::IValue(const Node*)>& value_of,
                               const Graph* owner);
  explicit Interpreter(std::unique_ptr<Plan> plan);
  std::unique_ptr<Plan> plan_;
};

// Runs one call_function node on its own, for probing a call before it joins a graph (the
// generators, the functionalizer's dtype probe): `value_of` gives the value of each node the
// call reads; tensors are used as given, so an in-place call writes into them. A
// higher-order call's subgraphs are the attributes of `owner`, the graph the call is
// drawn into (its get_attr inputs are asked for no value). The call's value is outputs[0];
// a call that cannot be planned or raises comes back as `error`.
Interpreter::Outcome runSingleCall(const Node& call, const std::function<c10::IValue(const Node*)>& value_of,
                                   const Graph* owner = nullptr);

}  // namespace epsmith
