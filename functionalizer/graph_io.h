// Internal to the functionalizer: what the pass needs to know of the graph's inputs before
// it walks (their specs, runtime values, requires_grad, which share memory), and what it does
// to the graph it built afterwards (dead superseded views, module call graph names).
#pragma once

#include <vector>

#include "ir/program.h"

namespace epsmith::functionalizer {

struct GraphInput {
  const Node* node = nullptr;
  const InputSpec* spec = nullptr;
  const TensorValue* runtime = nullptr;  // state, constant or example input, when known
  bool requires_grad = false;
  int aliases = -1;  // another input's ordinal whose memory overlaps this one's
};

// One per placeholder, in order.
std::vector<GraphInput> describeInputs(const ExportedProgram& p);

// Erases the nodes of `superseded` that are views nothing reads (latest first, so a dropped
// view's own inputs are looked at after it). Numbers the graph's nodes (Node::visit_stamp).
void dropSupersededViews(Graph& g, std::vector<Node*>& superseded);

// The module call graph names user outputs; a user output that was an in-place result is a
// functional node with another name in `result`. User outputs keep their order, after the
// tokens and mutations.
void renameModuleCallOutputs(const GraphSignature& before, ExportedProgram& result);

}  // namespace epsmith::functionalizer
