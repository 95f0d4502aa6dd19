// What one execution of a program produced: user outputs, the final value of every input a
// program may mutate, and the exception an op raised (a result, never a crash).
#pragma once

#include <ATen/core/ivalue.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace epsmith {

struct RunError {
  std::string node;     // "add_" (empty: raised outside a node, e.g. moving inputs)
  std::string op;       // "aten::add_.Tensor"
  std::string message;  // the exception's first line
  std::string str() const;
};

struct RunResult {
  // User outputs in order (tensors, or ints/floats/bools/None for scalar outputs), on CPU.
  std::vector<c10::IValue> outputs;
  // Final values of the inputs a program may mutate, in input-spec order, on CPU:
  // ("parameter:weight", t), ("buffer:calls", t), ("user_input:x", t).
  std::vector<std::pair<std::string, at::Tensor>> final_inputs;
  std::optional<RunError> error;

  bool ok() const { return !error.has_value(); }
};

class Node;
// Sees a call_function node's value as soon as a run computes it.
using ValueObserver = std::function<void(const Node& node, const c10::IValue& value)>;

}  // namespace epsmith
