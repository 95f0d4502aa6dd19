// See call_specs.h.
#include "ir/call_specs.h"

#include "ir/program.h"

namespace epsmith {
namespace {

std::string tupleSpec(size_t leaves) {
  std::string children;
  for (size_t i = 0; i < leaves; ++i) {
    children += std::string(i ? ", " : "") + R"({"type": null, "context": null, "children_spec": []})";
  }
  return R"({"type": "builtins.tuple", "context": "null", "children_spec": [)" + children + "]}";
}

}  // namespace

std::string flatInSpec(size_t leaves) {
  return R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)" + tupleSpec(leaves) +
         R"(, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
}

std::string flatOutSpec(size_t leaves) { return "[1, " + tupleSpec(leaves) + "]"; }

std::pair<size_t, size_t> userInputOutputCounts(const ExportedProgram& p) {
  size_t inputs = 0, outputs = 0;
  for (const auto& s : p.signature.input_specs) inputs += s.kind == InputKind::UserInput ? 1 : 0;
  for (const auto& s : p.signature.output_specs) outputs += s.kind == OutputKind::UserOutput ? 1 : 0;
  return {inputs, outputs};
}

void flattenRootCallSpecs(ExportedProgram& p) {
  const auto [inputs, outputs] = userInputOutputCounts(p);
  for (auto& entry : p.module_call_graph) {
    if (entry.fqn != "" || !entry.signature) continue;
    entry.signature->in_spec = flatInSpec(inputs);
    entry.signature->out_spec = flatOutSpec(outputs);
  }
}

}  // namespace epsmith
