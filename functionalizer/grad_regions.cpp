// See grad_regions.h.
#include "functionalizer/grad_regions.h"

#include "ir/grad_regions.h"
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
// whose calls are all functional stays a higher-order op, as the pass takes it whole. An
// autocast region (wrap_with_autocast, `with torch.autocast(...)`) is laid out alike, as
// bare _enter_autocast/_exit_autocast calls (Note [Writes inside an autocast region]).

std::optional<std::string> whyNotCarriedWhole(const Graph& body) {
  for (const Node& s : body.nodes()) {
    const OpInfo* op = s.atenOp();
    if (!op) continue;
    if (op->is_mutable) {
      return "mutates (" + s.target.textName() + "); mutation inside higher-order ops is not functionalized";
    }
    const OpRoleInfo& role = opRole(*op);
    if (role.role == OpRole::View || role.role == OpRole::MaybeView) {
      return "takes a view (" + s.target.textName() +
             "); a higher-order op's results that alias its operands are not functionalized";
    }
    // What the pass refuses outside a subgraph it must meet inside one too: carried whole,
    // an undeclared alias or a hidden write would go unseen.
    if (role.role == OpRole::Unsupported) {
      return "calls " + s.target.textName() + ", which " + role.reason + ", so it has no functional form";
    }
    if (readsEagerLayout(*op) != EagerLayoutRead::None) {  // Note [Reads of eager's layout]
      return "calls " + s.target.textName() + ", which reads its operand's storage as eager laid it out";
    }
    if (writesItsSchemaHides(s, *op)) {
      return "calls " + s.target.textName() + ", which writes what its schema does not say it writes";
    }
  }
  if (const Node* out = const_cast<Graph&>(body).outputNode()) {
    for (const Argument& a : out->args) {
      const auto* t = a.get<arg::Tensor>();
      if (t && t->node->isPlaceholder()) {
        return "returns its operand %" + t->node->name() +
               "; a higher-order op's results that alias its operands are not functionalized";
      }
    }
  }
  return std::nullopt;
}

namespace {

// The subgraph of a grad or autocast region, which the pass lays out inline where it cannot
// take it whole; null for any other node.
const Graph* regionBody(const Graph& g, const Node& n) {
  if (const Graph* body = gradRegionBody(g, n)) return body;
  return autocastRegionBody(g, n);
}

}  // namespace

bool hasRegionToInline(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    if (const Graph* body = regionBody(p.graph(), n); body && whyNotCarriedWhole(*body)) return true;
  }
  return false;
}

std::optional<Diagnostic> inlineRegions(ExportedProgram& p, bool grad_enabled) {
  Graph& g = p.graph();
  for (const auto& [hop, around] : gradRegionsOf(g, grad_enabled)) {
    if (!whyNotCarriedWhole(*gradRegionBody(g, *hop))) continue;
    if (auto refused = inlineGradRegion(g, hop, around)) return refused;
  }
  for (Node* hop : autocastRegionsOf(g)) {
    if (!whyNotCarriedWhole(*autocastRegionBody(g, *hop))) continue;
    if (auto refused = inlineAutocastRegion(g, hop, /*keep_autocast=*/true)) return refused;
  }
  return std::nullopt;
}

}  // namespace epsmith::functionalizer
