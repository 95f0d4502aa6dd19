// See op_aliases.h.
#include "ops/op_aliases.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/normalize_ops.h>

#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

namespace epsmith {
namespace {

// Alias → the name the JIT normalizes it to (Note [Op aliases from the JIT's normalization]).
std::unordered_map<std::string, std::string> askTheJit() {
  std::set<std::string> names;
  for (const c10::OperatorName& op : c10::Dispatcher::singleton().getAllOpNames()) {
    if (op.name.rfind("aten::", 0) == 0) names.insert(op.name.substr(6));
  }
  const std::vector<std::string> asked(names.begin(), names.end());
  auto graph = std::make_shared<torch::jit::Graph>();
  for (const std::string& name : asked) graph->insertNode(graph->create(c10::Symbol::aten(name), 1));
  torch::jit::NormalizeOps(graph);
  std::unordered_map<std::string, std::string> aliases;
  size_t i = 0;
  for (const torch::jit::Node* node : graph->nodes()) {
    if (i >= asked.size()) break;
    const std::string now = node->kind().toUnqualString();
    if (now != asked[i]) aliases.emplace(asked[i], now);
    ++i;
  }
  return aliases;
}

}  // namespace

std::string canonicalOpName(std::string_view name) {
  static const std::unordered_map<std::string, std::string> aliases = askTheJit();
  auto it = aliases.find(std::string(name));
  return it == aliases.end() ? std::string(name) : it->second;
}

}  // namespace epsmith
