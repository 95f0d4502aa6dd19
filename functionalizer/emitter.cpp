// Node creation for the functionalizer; see emitter.h.
#include "functionalizer/emitter.h"

namespace epsmith::functionalizer {

Emitter::Emitter(Graph& g, const Graph& source) : graph_(g), source_(source) {
  graph_.reserve(source.size() + source.size() / 2);
}

namespace {
// A base ending in `_<digits>` could spell another base's suffixed name
// (Note [Emitted names]); such bases get a trailing `_` (an op's local name never ends so).
std::string safeBase(std::string_view base) {
  size_t i = base.size();
  while (i > 0 && base[i - 1] >= '0' && base[i - 1] <= '9') --i;
  std::string out(base.empty() ? "node" : base);
  if (i < base.size() && i > 0 && base[i - 1] == '_') out += '_';
  return out;
}
}  // namespace

Node* Emitter::fresh(OpKind op, std::string_view requested) {
  const std::string base = safeBase(requested);
  // A base seen before was taken then; resume its suffixes without asking again.
  std::string name = base;
  auto it = next_suffix_.find(name);
  if (it != next_suffix_.end() || taken(name)) {
    if (it == next_suffix_.end()) it = next_suffix_.emplace(name, 0).first;
    do {
      name = base + "_" + std::to_string(++it->second);
    } while (taken(name));
  } else {
    next_suffix_.emplace(name, 0);
  }
  return graph_.appendRaw(op, std::move(name));
}

Node* Emitter::call(const OpInfo& op, std::vector<Argument> args, Val val,
                    std::vector<std::pair<std::string, Argument>> kwargs) {
  Node* n = fresh(OpKind::CallFunction, op.localName());
  n->target = Target::aten(&op);
  n->args = std::move(args);
  n->kwargs = std::move(kwargs);
  n->meta.val = std::move(val);
  return n;
}

Node* Emitter::builtin(const Target& target, std::vector<Argument> args, Val val, std::string_view name_hint) {
  Node* n = fresh(OpKind::CallFunction, name_hint);
  n->target = target;
  n->args = std::move(args);
  n->meta.val = std::move(val);
  return n;
}

Node* Emitter::copy(const Node& source, std::vector<Argument> args,
                    std::vector<std::pair<std::string, Argument>> kwargs) {
  Node* n = graph_.appendRaw(source.op(), source.name());
  n->target = source.target;
  n->args = std::move(args);
  n->kwargs = std::move(kwargs);
  n->meta = source.meta;
  n->attr = source.attr;
  return n;
}

}  // namespace epsmith::functionalizer
