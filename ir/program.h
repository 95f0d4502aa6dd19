// ExportedProgram: graph + graph signature + state + constants + module call graph, the unit
// every epsmith component consumes and produces (torch/export/exported_program.py).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/signature.h"
#include "ir/tensor_data.h"

namespace epsmith {

// A state dict entry: parameters are torch.nn.Parameter, buffers plain tensors.
struct StateEntry {
  bool is_parameter = false;
  TensorValue tensor;
};

// A lifted constant: a tensor or a custom (TorchBind) object placeholder.
struct Constant {
  std::optional<TensorValue> tensor;  // set for tensor constants
  std::string class_fqn;              // set for custom objects
  bool isTensor() const { return tensor.has_value(); }
};

struct ModuleCallSignature {
  std::vector<SpecArg> inputs;
  std::vector<SpecArg> outputs;
  std::string in_spec;  // pytree treespec JSON
  std::string out_spec;
  std::optional<std::vector<std::string>> forward_arg_names;
};

struct ModuleCallEntry {
  std::string fqn;
  std::optional<ModuleCallSignature> signature;
};

struct RangeConstraint {
  std::optional<int64_t> min_val;  // nullopt: -inf
  std::optional<int64_t> max_val;  // nullopt: +inf
};

// The newest torch.export serialized schema epsmith reads and writes (2.13's schema.py).
struct SchemaVersion {
  int64_t major = 8;
  int64_t minor = 20;
};

// The two built-in dialects (the verifier registers them, and any later ones, by name).
enum class IrDialect : uint8_t { Aten, Training };

class ExportedProgram {
 public:
  ExportedProgram();
  ExportedProgram(ExportedProgram&&) noexcept;
  ExportedProgram& operator=(ExportedProgram&&) noexcept;
  ~ExportedProgram();
  // Deep copy (graphs are not copyable by accident).
  ExportedProgram clone() const;
  // Everything but the graph copied (tensor payloads shared), with `g` as the graph: for
  // passes that build a new graph.
  ExportedProgram cloneWithGraph(std::unique_ptr<Graph> g) const;
  // Everything but the graph becomes a copy of `from`'s (the graph stays as it is).
  void copyAllButGraph(const ExportedProgram& from);

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  // Takes ownership of `g` as the program's graph (loaders build the graph first).
  void replaceGraph(std::unique_ptr<Graph> g) { graph_ = std::move(g); }

  GraphSignature signature;
  std::map<std::string, StateEntry> state_dict;
  std::map<std::string, Constant> constants;
  std::vector<ModuleCallEntry> module_call_graph;
  std::map<std::string, RangeConstraint> range_constraints;
  // Flat user inputs, one per USER_INPUT spec, in order.
  std::vector<InputValue> example_inputs;

  // Names of the dialects the program claims (torch.export's `verifiers`); [] means ATEN.
  std::vector<std::string> verifiers{"ATEN"};
  SchemaVersion schema_version;
  std::map<std::string, int64_t> opset_version{{"aten", 10}};
  std::string torch_version = "1.13.1";
  std::vector<std::string> guards_code;
  std::map<std::string, std::string> metadata;  // GraphModule metadata
  std::map<std::string, std::vector<std::string>> treespec_namedtuple_fields;

  // The dialect name the program is verified in: verifiers[0], or "ATEN" when none.
  std::string dialectName() const;
  void setDialect(IrDialect d);

 private:
  std::unique_ptr<Graph> graph_;
};

std::string_view dialectName(IrDialect d);

}  // namespace epsmith
