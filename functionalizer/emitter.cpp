// Node creation for the functionalizer; see emitter.h.
#include "functionalizer/emitter.h"

namespace epsmith::functionalizer {

Emitter::Emitter(Graph& g, const Graph& source) : graph_(g) {
  taken_.reserve(source.size() * 2);
  for (const Node& n : source.nodes()) taken_.insert(n.name());
}

std::string Emitter::freshName(std::string_view base) {
  std::string name(base);
  if (taken_.insert(name).second) return name;
  int& k = next_suffix_[name];
  for (;;) {
    std::string candidate = name + "_" + std::to_string(++k);
    if (taken_.insert(candidate).second) return candidate;
  }
}

Node* Emitter::call(const OpInfo& op, std::vector<Argument> args, Val val,
                    std::vector<std::pair<std::string, Argument>> kwargs) {
  Node* n = graph_.appendRaw(OpKind::CallFunction, freshName(localName(op)));
  n->target = Target::aten(&op);
  n->args = std::move(args);
  n->kwargs = std::move(kwargs);
  n->meta.val = std::move(val);
  return n;
}

Node* Emitter::builtin(const Target& target, std::vector<Argument> args, Val val, std::string_view name_hint) {
  Node* n = graph_.appendRaw(OpKind::CallFunction, freshName(name_hint));
  n->target = target;
  n->args = std::move(args);
  n->meta.val = std::move(val);
  return n;
}

Node* Emitter::copy(const Node& source, bool rename) {
  Node* n = graph_.appendRaw(source.op(), rename ? freshName(source.name()) : source.name());
  n->target = source.target;
  n->args = source.args;
  n->kwargs = source.kwargs;
  n->meta = source.meta;
  n->attr = source.attr;
  return n;
}

std::string_view localName(const OpInfo& op) {
  std::string_view q = op.qualified_name;
  auto sep = q.find("::");
  return sep == std::string_view::npos ? q : q.substr(sep + 2);
}

}  // namespace epsmith::functionalizer
