// The logic of the generator's screens (generators/screens.def), as two tables the graph
// generator asks: before a drawn call runs, and after it ran on the live values. Internal
// to generators/ (includes ATen).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generators/result_values.h"
#include "generators/screens.h"

namespace epsmith {

// The screens a drawn call meets before it is drawn into the graph, in the order of
// screens.def; the first that refuses it, if any.
std::optional<Screen> refusedBeforeRun(const OpInfo& op, const std::vector<Argument>& args,
                                       const std::vector<std::pair<std::string, Argument>>& kwargs,
                                       LiveValueOf value_of, HeldElements held);

// What the screens after the run see: the call, now a node of the graph, what it returned,
// and the generator's own questions about the values it holds.
struct RanCall {
  const OpInfo& op;
  const Node& node;
  const Interpreter::Outcome& outcome;
  Val* val;  // set by the first screen, from what the call returned
  LiveValueOf value_of;
  c10::function_ref<Interpreter::Outcome()> run_again;  // the call once more on the live values
  c10::function_ref<bool()> leaves_bits_no_op_made;     // Note [A NaN's sign and payload]
  c10::function_ref<bool()> index_writes_by_layout;     // Note [Kernels that write by the written tensor's layout]
};

// The screens a call meets after it ran on the live values, in the order of screens.def;
// the first that refuses it, if any.
std::optional<Screen> refusedAfterRun(const RanCall& r);

}  // namespace epsmith
