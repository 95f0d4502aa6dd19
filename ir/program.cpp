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
  p.copyAllButGraph(*this);
  return p;
}

void ExportedProgram::copyAllButGraph(const ExportedProgram& from) {
  signature = from.signature;
  state_dict = from.state_dict;
  constants = from.constants;
  module_call_graph = from.module_call_graph;
  range_constraints = from.range_constraints;
  example_inputs = from.example_inputs;
  verifiers = from.verifiers;
  schema_version = from.schema_version;
  opset_version = from.opset_version;
  torch_version = from.torch_version;
  guards_code = from.guards_code;
  metadata = from.metadata;
  treespec_namedtuple_fields = from.treespec_namedtuple_fields;
}

std::string ExportedProgram::dialectName() const { return verifiers.empty() ? std::string("ATEN") : verifiers.front(); }

void ExportedProgram::setDialect(IrDialect d) { verifiers = {std::string(epsmith::dialectName(d))}; }

std::string_view dialectName(IrDialect d) { return d == IrDialect::Aten ? "ATEN" : "TRAINING"; }

}  // namespace epsmith
