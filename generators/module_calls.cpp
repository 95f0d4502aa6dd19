// See module_calls.h.
#include "generators/module_calls.h"

#include <string>

namespace epsmith {
namespace {

// A pytree spec of `leaves` plain leaves in a tuple.
std::string tupleSpec(size_t leaves) {
  std::string children;
  for (size_t i = 0; i < leaves; ++i) {
    children += std::string(i ? ", " : "") + R"({"type": null, "context": null, "children_spec": []})";
  }
  return R"({"type": "builtins.tuple", "context": "null", "children_spec": [)" + children + "]}";
}

// A call's specs: its positional arguments (with empty kwargs) and its results, as tuples.
void setSpecs(ModuleCallSignature& s) {
  s.in_spec = R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)" + tupleSpec(s.inputs.size()) +
              R"(, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
  s.out_spec = "[1, " + tupleSpec(s.outputs.size()) + "]";
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
  for (Node* o : outputs) root.outputs.push_back(SpecArg::tensor(o->name()));
  setSpecs(root);
  p.module_call_graph.push_back({"", std::move(root)});
  if (!random.chance(submodule_percent) || user_inputs.empty()) return;
  ModuleCallSignature sub;
  sub.inputs.push_back(SpecArg::tensor(user_inputs[random.below(user_inputs.size())]));
  sub.outputs.push_back(SpecArg::tensor(outputs[random.below(outputs.size())]->name()));
  setSpecs(sub);
  p.module_call_graph.push_back({"block", std::move(sub)});
}

}  // namespace epsmith
