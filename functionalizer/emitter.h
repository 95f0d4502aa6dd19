// Internal to the functionalizer: appends nodes to the graph being built, with names that
// clash neither with each other nor with any name of the source graph (so every source node
// keeps its name), and with `meta.val` set.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace epsmith::functionalizer {

class Emitter {
 public:
  Emitter(Graph& g, const Graph& source);
  Graph& graph() { return graph_; }

  // A new call_function node at the end.
  Node* call(const OpInfo& op, std::vector<Argument> args, Val val,
             std::vector<std::pair<std::string, Argument>> kwargs = {});
  Node* builtin(const Target& target, std::vector<Argument> args, Val val, std::string_view name_hint);
  // A copy of a source node under its own name, with these arguments.
  Node* copy(const Node& source, std::vector<Argument> args, std::vector<std::pair<std::string, Argument>> kwargs);

 private:
  // A new node named `base`, or `base_N` when that is taken.
  Node* fresh(OpKind op, std::string_view base);
  // Note [Emitted names]: names handed out here are `base` or `base_N` with a counter per
  // base, and no base ends in `_<digits>`, so they never collide with one another; only
  // the source's names (which every copied node keeps) can be in the way.
  bool taken(const std::string& name) const { return source_.hasName(name); }
  Graph& graph_;
  const Graph& source_;
  std::unordered_map<std::string, int> next_suffix_;  // per base (op names: a few dozen)
};

}  // namespace epsmith::functionalizer
