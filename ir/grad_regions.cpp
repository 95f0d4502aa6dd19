// See grad_regions.h.
#include "ir/grad_regions.h"

#include <string>
#include <string_view>
#include <unordered_map>

#include "ir/grad_mode.h"
#include "ir/op_info.h"

namespace epsmith {

namespace {

struct Region {
  Node* hop;
  Graph* body;
  std::vector<Node*> operands;  // one per placeholder of `body`
};

// The subgraph argument `index` of `n` names, where `n` calls higher-order op `op` with
// `arity` arguments (at least `arity` with `at_least`); null otherwise.
Graph* subgraphArgument(const Graph& g, const Node& n, std::string_view op, size_t index, size_t arity, bool at_least) {
  if (n.op() != OpKind::CallFunction || n.target.kind() != Target::Kind::HigherOrder || n.target.name() != op ||
      n.args.size() < arity || (!at_least && n.args.size() != arity))
    return nullptr;
  const auto* get = n.args[index].get<arg::Graph>();
  if (!get || !get->node || get->node->op() != OpKind::GetAttr) return nullptr;
  const Attribute* attr = g.attribute(get->node->attr);
  return attr && attr->subgraph ? attr->subgraph.get() : nullptr;
}

}  // namespace

Graph* gradRegionBody(const Graph& g, const Node& n) {
  return subgraphArgument(g, n, "wrap_with_set_grad_enabled", 1, 2, /*at_least=*/true);
}

namespace {

Node* setGradBefore(Graph& g, Node* before, bool enabled) {
  Node* n = g.insertBefore(before, OpKind::CallFunction, "_set_grad_enabled");
  n->target = Target::torchFunction(TorchFunction::CSetGradEnabled);
  n->args = {arg::Bool{enabled}};
  n->meta.val = Val::None{};
  return n;
}

// The region's calls, copied before its node with their inputs remapped; the values it
// returns, in order.
std::optional<std::vector<Node*>> layOut(Graph& g, const Region& r, std::string& why) {
  std::unordered_map<const Node*, Node*> to;
  size_t operand = 0;
  for (Node& s : r.body->nodes()) {
    if (s.isPlaceholder()) {
      if (operand >= r.operands.size() || !r.operands[operand])
        return why = "its operands are not one tensor per placeholder of its subgraph", std::nullopt;
      to[&s] = r.operands[operand++];
      continue;
    }
    if (s.isOutput()) break;
    if (s.op() != OpKind::CallFunction || s.target.kind() == Target::Kind::HigherOrder)
      return why = "its subgraph holds %" + s.name() + ", which is not a plain call", std::nullopt;
    Node* copy = g.insertBefore(r.hop, OpKind::CallFunction, s.name());
    copy->target = s.target;
    copy->args = s.args;
    copy->kwargs = s.kwargs;
    copy->meta = s.meta;
    bool closed = true;
    copy->forEachInputRef([&](Node*& in) {
      auto it = to.find(in);
      closed = closed && it != to.end();
      if (it != to.end()) in = it->second;
    });
    if (!closed) return why = "%" + s.name() + " reads a value from outside its subgraph", std::nullopt;
    to[&s] = copy;
  }
  std::vector<Node*> returned;
  if (const Node* out = r.body->outputNode()) {
    for (const Argument& a : out->args) {
      const auto* t = a.get<arg::Tensor>();
      if (!t) return why = "its subgraph returns something other than tensors", std::nullopt;
      returned.push_back(to.at(t->node));
    }
  }
  return returned;
}

// Replaces each getitem of the region's node by the value it picks; false where the node
// has a reader of another kind.
bool replaceGetitems(Graph& g, Node* hop, const std::vector<Node*>& returned) {
  std::vector<Node*> getitems;
  bool only_getitems = true;
  for (Node& n : g.nodes()) {
    bool reads = false;
    n.forEachInput([&](const Node* in) { reads = reads || in == hop; });
    if (!reads) continue;
    const auto* index = n.args.size() == 2 ? n.args[1].get<arg::Int>() : nullptr;
    const bool getitem = n.target.kind() == Target::Kind::Builtin && n.target.builtinOp() == BuiltinOp::GetItem &&
                         index && index->value >= 0 && index->value < static_cast<int64_t>(returned.size());
    only_getitems = only_getitems && getitem;
    if (getitem) getitems.push_back(&n);
  }
  if (!only_getitems) return false;
  for (Node* n : getitems) {
    g.replaceAllUsesWith(n, returned[n->args[1].get<arg::Int>()->value]);
    g.erase(n);
  }
  return true;
}

// Erases get_attr node `get` where nothing reads it, and the subgraph it names where no
// other node names it.
void dropAttribute(Graph& g, Node* get) {
  if (!g.users(get).empty()) return;
  const std::string attr = get->attr;
  g.erase(get);
  for (const Node& n : g.nodes()) {
    if (n.op() == OpKind::GetAttr && n.attr == attr) return;
  }
  g.attributes().erase(attr);
}

}  // namespace

std::vector<std::pair<Node*, bool>> gradRegionsOf(Graph& g, bool grad_enabled) {
  std::vector<std::pair<Node*, bool>> out;
  for (Node& n : g.nodes()) {
    if (auto set = gradModeSet(n)) grad_enabled = *set;
    if (gradRegionBody(g, n)) out.emplace_back(&n, grad_enabled);
  }
  return out;
}

std::optional<Diagnostic> inlineGradRegion(Graph& g, Node* hop, bool grad_around) {
  Region r{hop, gradRegionBody(g, *hop), {}};
  const auto* enabled = hop->args[0].get<arg::Bool>();
  if (!r.body || !enabled) return Diagnostic{"%" + hop->name(), "a grad region whose mode is not a literal bool"};
  for (size_t i = 2; i < hop->args.size(); ++i) {
    const auto* t = hop->args[i].get<arg::Tensor>();
    r.operands.push_back(t ? t->node : nullptr);
  }
  setGradBefore(g, hop, enabled->value);
  std::string why;
  auto returned = layOut(g, r, why);
  if (!returned) return Diagnostic{"%" + hop->name(), "cannot lay the grad region out inline: " + why};
  setGradBefore(g, hop, grad_around);
  if (!replaceGetitems(g, hop, *returned))
    return Diagnostic{"%" + hop->name(), "a grad region's result is read other than by a getitem"};
  Node* get = hop->args[1].get<arg::Graph>()->node;
  g.erase(hop);
  dropAttribute(g, get);
  return std::nullopt;
}

Graph* autocastRegionBody(const Graph& g, const Node& n) {
  return subgraphArgument(g, n, "wrap_with_autocast", 4, 5, /*at_least=*/true);
}

std::vector<Node*> autocastRegionsOf(Graph& g) {
  std::vector<Node*> out;
  for (Node& n : g.nodes()) {
    if (autocastRegionBody(g, n)) out.push_back(&n);
  }
  return out;
}

namespace {

Node* enterAutocastBefore(Graph& g, Node* before, std::vector<Argument> args) {
  Node* n = g.insertBefore(before, OpKind::CallFunction, "_enter_autocast");
  n->target = Target::torchFunction(TorchFunction::EnterAutocast);
  n->args = std::move(args);
  n->meta.val = Val::None{};
  return n;
}

Node* exitAutocastBefore(Graph& g, Node* before, Node* enter) {
  Node* n = g.insertBefore(before, OpKind::CallFunction, "_exit_autocast");
  n->target = Target::torchFunction(TorchFunction::ExitAutocast);
  n->args = {arg::Tensor{enter}};
  n->meta.val = Val::None{};
  return n;
}

}  // namespace

// Note [Writes inside an autocast region]
// Autocast casts the operands of the functional ops its policy lists (linear, mm, addmm to
// the region's dtype; others to float32) and passes every in-place and out= call through
// untouched: `self.acc.addmm_(a, b)` under `torch.autocast("cpu", torch.bfloat16)` runs in
// float32. Functionalized, that write becomes addmm(acc, a, b), which autocast would cast,
// so each call of the region that writes is laid out inside a nested region with autocast
// off, where the functional call that replaces it runs as the write did. AOTAutograd gets
// the same effect from its dispatch order: autocast handles a call before functionalization
// turns it functional (torch 2.13's run_decompositions of such a module keeps addmm in
// float32). A write by a composite op (CompositeImplicitAutograd: linalg_cond.out) is not
// passed through: its kernel runs above autocast and calls the functional op itself, which
// autocast casts, so it stays under autocast (eager's linalg_cond.out of bfloat16 there
// computes in float32, where with autocast off it would raise in svd).
std::optional<Diagnostic> inlineAutocastRegion(Graph& g, Node* hop, bool keep_autocast) {
  Region r{hop, autocastRegionBody(g, *hop), {}};
  if (!r.body) return Diagnostic{"%" + hop->name(), "an autocast region without a subgraph"};
  for (size_t i = 5; i < hop->args.size(); ++i) {
    const auto* t = hop->args[i].get<arg::Tensor>();
    r.operands.push_back(t ? t->node : nullptr);
  }
  Node* enter = keep_autocast ? enterAutocastBefore(g, hop, {hop->args.begin(), hop->args.begin() + 4}) : nullptr;
  std::string why;
  auto returned = layOut(g, r, why);
  if (!returned) return Diagnostic{"%" + hop->name(), "cannot lay the autocast region out inline: " + why};
  for (Node* n = enter ? enter->next() : nullptr; n && n != hop; n = n->next()) {
    if (!n->atenOp() || !n->atenOp()->is_mutable || n->atenOp()->composite_implicit) continue;
    Node* off = enterAutocastBefore(g, n, {hop->args[0], arg::None{}, arg::Bool{false}, arg::None{}});
    exitAutocastBefore(g, n->next(), off);
    n = n->next();  // past the exit
  }
  if (enter) exitAutocastBefore(g, hop, enter);
  if (!replaceGetitems(g, hop, *returned))
    return Diagnostic{"%" + hop->name(), "an autocast region's result is read other than by a getitem"};
  Node* get = hop->args[4].get<arg::Graph>()->node;
  g.erase(hop);
  dropAttribute(g, get);
  return std::nullopt;
}

Graph* condBranch(const Graph& g, const Node& n, bool which) {
  return subgraphArgument(g, n, "cond", which ? 1 : 2, 4, /*at_least=*/false);
}

std::optional<Diagnostic> inlineCondBranch(Graph& g, Node* hop, bool which) {
  const auto* operands = hop->args.size() == 4 ? hop->args[3].get<arg::TensorList>() : nullptr;
  Region r{hop, condBranch(g, *hop, which), {}};
  if (!r.body || !operands || !condBranch(g, *hop, !which))
    return Diagnostic{"%" + hop->name(), "a cond without two subgraphs and a list of operands"};
  r.operands = operands->nodes;
  std::string why;
  auto returned = layOut(g, r, why);
  if (!returned) return Diagnostic{"%" + hop->name(), "cannot lay the cond's branch out inline: " + why};
  if (!replaceGetitems(g, hop, *returned))
    return Diagnostic{"%" + hop->name(), "a cond's result is read other than by a getitem"};
  Node* gets[2] = {hop->args[1].get<arg::Graph>()->node, hop->args[2].get<arg::Graph>()->node};
  g.erase(hop);
  for (Node* get : gets) dropAttribute(g, get);
  return std::nullopt;
}

Graph* loopBody(const Graph& g, const Node& n) {
  return subgraphArgument(g, n, "while_loop", 1, 4, /*at_least=*/false);
}

Graph* loopCondition(const Graph& g, const Node& n) {
  return subgraphArgument(g, n, "while_loop", 0, 4, /*at_least=*/false);
}

std::optional<Diagnostic> inlineLoop(Graph& g, Node* hop, int iterations) {
  const auto* carried = hop->args.size() == 4 ? hop->args[2].get<arg::TensorList>() : nullptr;
  const auto* additional = hop->args.size() == 4 ? hop->args[3].get<arg::TensorList>() : nullptr;
  const auto* cond = hop->args.empty() ? nullptr : hop->args[0].get<arg::Graph>();
  Region r{hop, loopBody(g, *hop), {}};
  if (!r.body || !carried || !additional || !cond || !cond->node)
    return Diagnostic{"%" + hop->name(),
                      "a while_loop without two subgraphs and lists of carried and additional values"};
  std::vector<Node*> returned = carried->nodes;
  if (iterations > 0) {
    r.operands = carried->nodes;
    r.operands.insert(r.operands.end(), additional->nodes.begin(), additional->nodes.end());
    std::string why;
    auto body_returned = layOut(g, r, why);
    if (!body_returned) return Diagnostic{"%" + hop->name(), "cannot lay the loop's body out inline: " + why};
    returned = std::move(*body_returned);
  }
  if (returned.size() != carried->nodes.size())
    return Diagnostic{"%" + hop->name(), "the loop's body returns other than one value per carried value"};
  if (!replaceGetitems(g, hop, returned))
    return Diagnostic{"%" + hop->name(), "a while_loop's result is read other than by a getitem"};
  Node* gets[2] = {cond->node, hop->args[1].get<arg::Graph>()->node};
  g.erase(hop);
  for (Node* get : gets) dropAttribute(g, get);
  return std::nullopt;
}

Graph* mappedFunction(const Graph& g, const Node& n) {
  if (Graph* body = subgraphArgument(g, n, "map_impl", 0, 3, /*at_least=*/false)) return body;
  return subgraphArgument(g, n, "scan", 0, 4, /*at_least=*/false);
}

std::vector<const Node*> subgraphOperands(const Node& n) {
  size_t after = 0;
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (n.args[i].get<arg::Graph>()) after = i + 1;
  }
  std::vector<const Node*> out;
  for (size_t i = after; after > 0 && i < n.args.size(); ++i) {
    if (const auto* t = n.args[i].get<arg::Tensor>()) out.push_back(t->node);
    if (const auto* list = n.args[i].get<arg::TensorList>())
      out.insert(out.end(), list->nodes.begin(), list->nodes.end());
  }
  return out;
}

std::pair<size_t, size_t> elementOperands(const Node& n) {
  const std::string_view hop = n.target.kind() == Target::Kind::HigherOrder ? n.target.name() : "";
  const auto count = [&](size_t i) {
    const auto* list = i < n.args.size() ? n.args[i].get<arg::TensorList>() : nullptr;
    return list ? list->nodes.size() : 0;
  };
  if (hop == "map_impl") return {0, count(1)};
  if (hop == "scan") return {count(1), count(1) + count(2)};
  return {0, 0};
}

namespace {

// A call of `op` on `args` before `before`, named after `name`, with metadata `meta` (stale
// where the inlined program computes other sizes: the minimizer's run rebuilds it).
Node* callBefore(Graph& g, Node* before, const OpInfo* op, const std::string& name, std::vector<Argument> args,
                 const NodeMeta& meta) {
  Node* n = g.insertBefore(before, OpKind::CallFunction, name);
  n->target = Target::aten(op);
  n->args = std::move(args);
  n->meta = meta;
  return n;
}

}  // namespace

std::optional<Diagnostic> inlineFirstElement(Graph& g, Node* hop, const StackOps& ops) {
  Region r{hop, mappedFunction(g, *hop), {}};
  const bool scan = r.body && hop->target.name() == "scan";
  std::vector<const arg::TensorList*> lists;
  for (size_t i = 1; i < hop->args.size(); ++i) lists.push_back(hop->args[i].get<arg::TensorList>());
  const size_t xs_at = scan ? 1 : 0;  // init, xs, additional; or xs, args
  for (const auto* list : lists) {
    if (!list) r.body = nullptr;
  }
  if (!r.body || !ops.select || !ops.unsqueeze)
    return Diagnostic{"%" + hop->name(), "a map or scan without a function and lists of operands"};
  std::vector<const Node*> placeholders;
  for (const Node& n : r.body->nodes()) {
    if (n.isPlaceholder()) placeholders.push_back(&n);
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    for (Node* operand : lists[i]->nodes) {
      const size_t at = r.operands.size();
      if (i != xs_at || !operand || at >= placeholders.size()) {
        r.operands.push_back(operand);
        continue;
      }
      r.operands.push_back(callBefore(g, hop, ops.select, operand->name() + "_first",
                                      {arg::Tensor{operand}, arg::Int{0}, arg::Int{0}}, placeholders[at]->meta));
    }
  }
  std::string why;
  auto returned = layOut(g, r, why);
  if (!returned) return Diagnostic{"%" + hop->name(), "cannot lay the function out inline: " + why};
  const size_t carries = scan ? lists[0]->nodes.size() : 0;
  if (returned->size() < carries)
    return Diagnostic{"%" + hop->name(), "the scan's function returns fewer values than it carries"};
  for (size_t k = carries; k < returned->size(); ++k) {
    Node* y = (*returned)[k];
    (*returned)[k] = callBefore(g, hop, ops.unsqueeze, y->name() + "_stacked", {arg::Tensor{y}, arg::Int{0}}, y->meta);
  }
  if (!replaceGetitems(g, hop, *returned))
    return Diagnostic{"%" + hop->name(), "a map's or scan's result is read other than by a getitem"};
  Node* get = hop->args[0].get<arg::Graph>()->node;
  g.erase(hop);
  dropAttribute(g, get);
  return std::nullopt;
}

}  // namespace epsmith
