// See grad_regions.h.
#include "functionalizer/grad_regions.h"

#include <unordered_map>
#include <vector>

#include "ir/grad_mode.h"
#include "ops/op_roles.h"

namespace epsmith::functionalizer {

// Note [Grad regions inlined before functionalization]
// torch.export (2.x) writes a module's `with torch.no_grad():` block as
// higher_order.wrap_with_set_grad_enabled(False, graph(%submod), *operands), and its
// functionalization (run_decompositions, AOTAutograd) carries a write inside the block out
// as any other: `self.w.mul_(0.5)` under no_grad becomes `mul = mul.Tensor(p_w, 0.5)` in
// the decomposed graph, with a PARAMETER_MUTATION output, and no trace of the region
// (torch 2.13). The pass follows grad mode through bare `_set_grad_enabled` calls, the form
// older exports wrote, so a region that writes or takes a view is laid out as such calls
// around its subgraph's own, which the pass then functionalizes like any other; a region
// whose calls are all functional stays a higher-order op, as the pass takes it whole.

namespace {

struct Region {
  Node* hop;
  Graph* body;
};

// The subgraph a wrap_with_set_grad_enabled call runs; null for any other node.
Graph* gradRegionBody(const Graph& g, const Node& n) {
  if (n.op() != OpKind::CallFunction || n.target.kind() != Target::Kind::HigherOrder ||
      n.target.name() != "wrap_with_set_grad_enabled" || n.args.size() < 2)
    return nullptr;
  const auto* get = n.args[1].get<arg::Graph>();
  if (!get || !get->node || get->node->op() != OpKind::GetAttr) return nullptr;
  const Attribute* attr = g.attribute(get->node->attr);
  return attr && attr->subgraph ? attr->subgraph.get() : nullptr;
}

bool writesOrViews(const Graph& body) {
  for (const Node& s : body.nodes()) {
    const OpInfo* op = s.atenOp();
    if (!op) continue;
    const OpRole role = opRole(*op).role;
    if (op->is_mutable || role == OpRole::View || role == OpRole::MaybeView) return true;
  }
  if (const Node* out = const_cast<Graph&>(body).outputNode()) {
    for (const Argument& a : out->args) {
      const auto* t = a.get<arg::Tensor>();
      if (t && t->node->isPlaceholder()) return true;  // it returns an operand: an alias
    }
  }
  return false;
}

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
  size_t operand = 2;
  for (Node& s : r.body->nodes()) {
    if (s.isPlaceholder()) {
      const auto* t = operand < r.hop->args.size() ? r.hop->args[operand++].get<arg::Tensor>() : nullptr;
      if (!t) return why = "its operands are not one tensor per placeholder of its subgraph", std::nullopt;
      to[&s] = t->node;
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

// Erases get_attr node `get`, and the subgraph it names where no other node names it.
void dropAttribute(Graph& g, Node* get) {
  const std::string attr = get->attr;
  g.erase(get);
  for (const Node& n : g.nodes()) {
    if (n.op() == OpKind::GetAttr && n.attr == attr) return;
  }
  g.attributes().erase(attr);
}

}  // namespace

bool hasGradRegionToInline(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    if (const Graph* body = gradRegionBody(p.graph(), n); body && writesOrViews(*body)) return true;
  }
  return false;
}

std::optional<Diagnostic> inlineGradRegions(ExportedProgram& p, bool grad_enabled) {
  Graph& g = p.graph();
  std::vector<std::pair<Region, bool>> regions;  // and the grad mode around each
  for (Node& n : g.nodes()) {
    if (auto set = gradModeSet(n)) grad_enabled = *set;
    Graph* body = gradRegionBody(g, n);
    if (body && writesOrViews(*body)) regions.push_back({{&n, body}, grad_enabled});
  }
  for (auto& [r, around] : regions) {
    const auto* enabled = r.hop->args[0].get<arg::Bool>();
    if (!enabled) return Diagnostic{"%" + r.hop->name(), "a grad region whose mode is not a literal bool"};
    setGradBefore(g, r.hop, enabled->value);
    std::string why;
    auto returned = layOut(g, r, why);
    if (!returned) return Diagnostic{"%" + r.hop->name(), "cannot lay the grad region out inline: " + why};
    setGradBefore(g, r.hop, around);
    if (!replaceGetitems(g, r.hop, *returned))
      return Diagnostic{"%" + r.hop->name(), "a grad region's result is read other than by a getitem"};
    Node* get = r.hop->args[1].get<arg::Graph>()->node;
    g.erase(r.hop);
    if (g.users(get).empty()) dropAttribute(g, get);
  }
  return std::nullopt;
}

}  // namespace epsmith::functionalizer
