// ExportedProgram construction, deep copy and dialect naming.
#include "ir/program.h"

namespace epsmith {

ExportedProgram::ExportedProgram() : graph_(std::make_unique<Graph>()) {}
ExportedProgram::ExportedProgram(ExportedProgram&&) noexcept = default;
ExportedProgram& ExportedProgram::operator=(ExportedProgram&&) noexcept = default;
ExportedProgram::~ExportedProgram() = default;

ExportedProgram ExportedProgram::clone() const { return cloneWithGraph(graph_->clone()); }

ExportedProgram ExportedProgram::cloneWithGraph(std::unique_ptr<Graph> g) const {
  ExportedProgram p;
  p.graph_ = std::move(g);
  p.signature = signature;
  p.state_dict = state_dict;
  p.constants = constants;
  p.module_call_graph = module_call_graph;
  p.range_constraints = range_constraints;
  p.example_inputs = example_inputs;
  p.verifiers = verifiers;
  p.schema_version = schema_version;
  p.opset_version = opset_version;
  p.torch_version = torch_version;
  p.guards_code = guards_code;
  p.metadata = metadata;
  p.treespec_namedtuple_fields = treespec_namedtuple_fields;
  return p;
}

std::string ExportedProgram::dialectName() const {
  return verifiers.empty() ? std::string("ATEN") : verifiers.front();
}

void ExportedProgram::setDialect(IrDialect d) { verifiers = {std::string(epsmith::dialectName(d))}; }

std::string_view dialectName(IrDialect d) { return d == IrDialect::Aten ? "ATEN" : "TRAINING"; }

}  // namespace epsmith
