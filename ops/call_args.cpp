// See call_args.h.
#include "ops/call_args.h"

namespace epsmith {

const Argument* schemaArgument(const Node& n, const OpInfo& o, size_t i) {
  if (i < n.args.size()) return &n.args[i];
  if (i >= o.arguments.size()) return nullptr;
  for (const auto& [name, a] : n.kwargs) {
    if (name == o.arguments[i].name) return &a;
  }
  return nullptr;
}

std::optional<int64_t> intArgument(const Node& n, const OpInfo& o, size_t i, std::optional<int64_t> fallback) {
  const Argument* a = schemaArgument(n, o, i);
  if (!a || a->kind() == ArgKind::None) return fallback;
  if (const auto* v = a->get<arg::Int>()) return v->value;
  if (const auto* v = a->get<arg::SymInt>(); v && v->value.isLiteral()) return v->value.literal;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> intListArgument(const Node& n, const OpInfo& o, size_t i) {
  const Argument* a = schemaArgument(n, o, i);
  if (!a) return std::nullopt;
  if (const auto* v = a->get<arg::IntList>()) return v->values;
  if (const auto* v = a->get<arg::Int>()) return std::vector<int64_t>{v->value};
  if (const auto* v = a->get<arg::SymIntList>()) {
    std::vector<int64_t> out;
    for (const auto& s : v->values) {
      if (!s.isLiteral()) return std::nullopt;
      out.push_back(s.literal);
    }
    return out;
  }
  return std::nullopt;
}

void keptArguments(const Node& n, const OpInfo& op, const std::vector<int>& dropped, std::vector<Argument>& args,
                   std::vector<std::pair<std::string, Argument>>& kwargs) {
  auto isDropped = [&](std::string_view name) {
    for (int i : dropped) {
      if (op.arguments[static_cast<size_t>(i)].name == name) return true;
    }
    return false;
  };
  args.reserve(n.args.size());
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (i < op.arguments.size() && isDropped(op.arguments[i].name)) continue;
    args.push_back(n.args[i]);
  }
  for (const auto& kv : n.kwargs) {
    if (!isDropped(kv.first)) kwargs.push_back(kv);
  }
}

Node* scratchFunctionalCall(Graph& scratch, const Node& n, const OpInfo& fn, const std::vector<int>& dropped) {
  Node* f = scratch.append(OpKind::CallFunction, fn.localName());
  f->target = Target::aten(&fn);
  keptArguments(n, *n.target.op(), dropped, f->args, f->kwargs);
  return f;
}

}  // namespace epsmith
