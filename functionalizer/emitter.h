// Internal to the functionalizer: appends nodes to the graph being built, with names that
// clash neither with each other nor with any name of the source graph (so every source node
// keeps its name), and with `meta.val` set.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace epsmith::functionalizer {

class Emitter {
 public:
  Emitter(Graph& g, const Graph& source);
  Graph& graph() { return graph_; }

  // A new call_function node at the end.
  Node* call(const OpInfo& op, std::vector<Argument> args, Val val,
             std::vector<std::pair<std::string, Argument>> kwargs = {});
  Node* builtin(const Target& target, std::vector<Argument> args, Val val, std::string_view name_hint);
  // A copy of a source node under its own name (or a fresh one when `rename`).
  Node* copy(const Node& source, bool rename = false);
  std::string freshName(std::string_view base);

 private:
  Graph& graph_;
  std::unordered_set<std::string> taken_;  // source names and every name handed out
  std::unordered_map<std::string, int> next_suffix_;
};

// "aten::slice_scatter" → "slice_scatter"; "aten::add_" → "add_".
std::string_view localName(const OpInfo& op);

}  // namespace epsmith::functionalizer
