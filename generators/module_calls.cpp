// See module_calls.h.
#include "generators/module_calls.h"

#include <string>

#include "ir/call_specs.h"

namespace epsmith {
namespace {

// A call's specs: its positional arguments (with empty kwargs) and its results, as tuples.
void setSpecs(ModuleCallSignature& s, size_t inputs, size_t outputs) {
  s.in_spec = flatInSpec(inputs);
  s.out_spec = flatOutSpec(outputs);
}

}  // namespace

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
