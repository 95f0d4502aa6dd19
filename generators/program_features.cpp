// See program_features.h.
#include "generators/program_features.h"

#include <algorithm>

#include "ir/grad_mode.h"
#include "ir/subgraphs.h"
#include "ops/op_roles.h"

namespace epsmith {

std::array<bool, kProgramFeatures.size()> programFeatures(const ExportedProgram& p) {
  bool region = false, bare = false, autocast = false, cond = false, nested = false, loop = false, effect = false,
       read = false, map = false, scan = false;
  forEachGraph(p.graph(), [&](const Graph& g) {
    const bool sub = &g != &p.graph();
    for (const Node& n : g.nodes()) {
      const bool hop = n.target.kind() == Target::Kind::HigherOrder;
      region = region || (hop && n.target.name() == "wrap_with_set_grad_enabled");
      autocast = autocast || (hop && n.target.name() == "wrap_with_autocast");
      cond = cond || (hop && n.target.name() == "cond");
      nested = nested || (hop && sub && n.target.name() == "cond");
      loop = loop || (hop && n.target.name() == "while_loop");
      map = map || (hop && n.target.name() == "map_impl");
      scan = scan || (hop && n.target.name() == "scan");
      bare = bare || gradModeSet(n) == false;
      effect = effect || (n.atenOp() && hasEffects(*n.atenOp()));
      read = read || n.meta.val.get<Val::SymInt>() != nullptr;
    }
  });
  bool tree = false, symbolic = false;
  for (const ModuleCallEntry& e : p.module_call_graph) tree = tree || !e.fqn.empty();
  for (const Node* in : p.graph().placeholders()) {
    const TensorMeta* t = in->meta.val.tensor();
    symbolic = symbolic || (t && std::any_of(t->sizes.begin(), t->sizes.end(),
                                             [](const SymIntValue& s) { return !s.isConcrete(); }));
  }
  return {region, bare, autocast, cond, nested, loop, map, scan, symbolic, read, tree, effect};
}

}  // namespace epsmith
