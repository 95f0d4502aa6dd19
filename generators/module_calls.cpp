// See module_calls.h.
#include "generators/module_calls.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "ir/call_specs.h"
#include "ir/state_keys.h"

namespace epsmith {
namespace {

// A call's specs: its positional arguments (with empty kwargs) and its results, as tuples.
void setSpecs(ModuleCallSignature& s, size_t inputs, size_t outputs) {
  s.in_spec = flatInSpec(inputs);
  s.out_spec = flatOutSpec(outputs);
}

// The submodules a generated program's state may live in: a tree of three under the root
// (none named "block", the submodule whose call signature a program may preserve, which a
// reproducer writes as a module of its own: Note [Preserved submodules in scripts]).
struct TreeModule {
  const char* path;
  const char* type;
};
constexpr TreeModule kTree[] = {
    {"", "epsmith.Module"}, {"layer", "epsmith.Layer"}, {"layer.inner", "epsmith.Inner"}, {"head", "epsmith.Head"}};

// The stack torch.export records for a call made in module `m`: the root, then each module
// on the way down to it.
std::vector<ModuleStackEntry> stackOf(size_t m) {
  std::vector<ModuleStackEntry> stack{{"L__self__", "", kTree[0].type}};
  const std::string path = kTree[m].path;
  for (size_t k = 1; k < std::size(kTree); ++k) {
    const std::string p = kTree[k].path;
    if (path == p || path.rfind(p + ".", 0) == 0) stack.push_back({"L__self__" + p, p, kTree[k].type});
  }
  return stack;
}

// The placeholder name torch.export gives lifted state: its kind's prefix, then its fully
// qualified name with '_' for '.'.
std::string placeholderName(const std::string& prefix, std::string target) {
  std::replace(target.begin(), target.end(), '.', '_');
  return prefix + target;
}

}  // namespace

// Note [Module trees of generated programs]
// A module's parameters and buffers mostly live in its submodules. torch.export names such
// state by its fully qualified name (target `layer.inner.weight0`, placeholder
// `p_layer_inner_weight0`), records on each call the nn_module_stack of the modules whose
// forward made it, and writes a module call graph entry for every submodule called, with a
// signature only where preserve_module_call_signature kept one (2.13: `block.lin None`
// beside a preserved `block`). The generator draws the tree last, from a program already
// made, so the program's calls are those it would have without one.
void addModuleTree(ExportedProgram& p, uint32_t module_tree_percent, RandomSource& random) {
  if (!random.chance(module_tree_percent)) return;
  Graph& g = p.graph();
  std::map<const Node*, size_t> module_of;  // each moved placeholder's module
  std::set<std::string> held;               // the modules holding state, and those above them
  for (InputSpec& spec : p.signature.input_specs) {
    if ((spec.kind != InputKind::Parameter && spec.kind != InputKind::Buffer) || !spec.target) continue;
    const size_t m = random.below(std::size(kTree));
    Node* n = g.find(spec.arg.name);
    if (m == 0 || !n) continue;
    const std::string was = *spec.target;
    const std::string target = std::string(kTree[m].path) + "." + was;
    spec.target = target;
    spec.arg.name = g.rename(n, placeholderName(spec.kind == InputKind::Parameter ? "p_" : "b_", target));
    renameStateKey(p, was, target);
    module_of[n] = m;
    for (const ModuleStackEntry& e : stackOf(m)) held.insert(e.path);
  }
  // Each call's stack: the deepest module whose state it reads (the root where it reads none).
  for (Node& n : g.nodes()) {
    if (n.op() != OpKind::CallFunction) continue;
    size_t deepest = 0;
    n.forEachInput([&](const Node* in) {
      auto m = module_of.find(in);
      if (m != module_of.end() && stackOf(m->second).size() > stackOf(deepest).size()) deepest = m->second;
    });
    n.meta.nn_module_stack = stackOf(deepest);
  }
  // A module holding state is one its parent calls, whether or not the program reads it.
  for (size_t k = 1; k < std::size(kTree); ++k) {
    if (held.count(kTree[k].path)) p.module_call_graph.push_back({kTree[k].path, std::nullopt});
  }
}

void addModuleCallGraph(ExportedProgram& p, const std::vector<Node*>& outputs, uint32_t submodule_percent,
                        RandomSource& random) {
  ModuleCallSignature root;
  std::vector<std::string> user_inputs;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind != InputKind::UserInput) continue;
    root.inputs.push_back(spec.arg);
    user_inputs.push_back(spec.arg.name);
  }
  // The root entry lists no inputs and outputs, as torch.export writes it (2.13's
  // _trace.py): its specs say how many there are, and run_decompositions renames nodes
  // without renaming the root entry's names (docs/fuzzing.md, "PyTorch's export stack").
  setSpecs(root, root.inputs.size(), outputs.size());
  root.inputs.clear();
  p.module_call_graph.push_back({"", std::move(root)});
  if (!random.chance(submodule_percent) || user_inputs.empty()) return;
  ModuleCallSignature sub;
  sub.inputs.push_back(SpecArg::tensor(user_inputs[random.below(user_inputs.size())]));
  sub.outputs.push_back(SpecArg::tensor(outputs[random.below(outputs.size())]->name()));
  setSpecs(sub, sub.inputs.size(), sub.outputs.size());
  p.module_call_graph.push_back({"block", std::move(sub)});
}

}  // namespace epsmith
