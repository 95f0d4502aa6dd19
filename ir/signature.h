// The graph signature of an exported program (torch/export/graph_signature.py): input and
// output specs in graph order, and the derived views PyTorch computes from them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace epsmith {

enum class InputKind : uint8_t { UserInput, Parameter, Buffer, ConstantTensor, CustomObj, Token };
enum class OutputKind : uint8_t {
  UserOutput,
  LossOutput,
  BufferMutation,
  ParameterMutation,
  GradientToParameter,
  GradientToUserInput,
  UserInputMutation,
  Token,
};
std::string_view inputKindName(InputKind k);    // "parameter" (the serialized union tag)
std::string_view outputKindName(OutputKind k);  // "buffer_mutation"
std::optional<InputKind> inputKindFromName(std::string_view name);
std::optional<OutputKind> outputKindFromName(std::string_view name);

// A constant in a signature (ConstantArgument): None, int, float, str or bool.
using ConstantValue = std::variant<std::monostate, int64_t, double, std::string, bool>;

// What a spec refers to in the graph (graph_signature.py's ArgumentSpec).
struct SpecArg {
  enum class Kind : uint8_t { Tensor, SymInt, SymFloat, SymBool, CustomObj, Token, Constant };
  Kind kind = Kind::Tensor;
  std::string name;       // node name; for Constant, the constant's name (may be empty)
  std::string class_fqn;  // CustomObj
  ConstantValue value;    // Constant

  static SpecArg tensor(std::string name) { return {Kind::Tensor, std::move(name), {}, {}}; }
  bool hasNodeName() const { return kind != Kind::Constant; }
  friend bool operator==(const SpecArg& a, const SpecArg& b) {
    return a.kind == b.kind && a.name == b.name && a.class_fqn == b.class_fqn && a.value == b.value;
  }
};

struct InputSpec {
  InputKind kind = InputKind::UserInput;
  SpecArg arg;
  std::optional<std::string> target;  // FQN of the parameter / buffer / constant / object
  std::optional<bool> persistent;     // BUFFER only
  friend bool operator==(const InputSpec& a, const InputSpec& b) {
    return a.kind == b.kind && a.arg == b.arg && a.target == b.target && a.persistent == b.persistent;
  }
};

struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  SpecArg arg;
  std::optional<std::string> target;
  friend bool operator==(const OutputSpec& a, const OutputSpec& b) {
    return a.kind == b.kind && a.arg == b.arg && a.target == b.target;
  }
};

// An ordered name → name map with Python dict semantics (insertion order; a repeated key
// keeps its first position and its last value), as graph_signature.py builds them.
using OrderedMap = std::vector<std::pair<std::string, std::string>>;
const std::string* lookup(const OrderedMap& m, std::string_view key);

// A user input as graph_signature.py lists it: the placeholder name, or a constant's value.
using UserInputEntry = std::variant<std::string, ConstantValue>;

struct BackwardSignature {
  OrderedMap gradients_to_parameters;
  OrderedMap gradients_to_user_inputs;
  std::string loss_output;
};

struct GraphSignature {
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;

  // Derived views; each filters the specs in order, as graph_signature.py does.
  std::vector<std::string> parameters() const;
  std::vector<std::string> buffers() const;
  std::vector<std::string> nonPersistentBuffers() const;
  std::vector<std::string> liftedTensorConstants() const;
  std::vector<std::string> liftedCustomObjs() const;
  std::vector<UserInputEntry> userInputs() const;
  std::vector<UserInputEntry> userOutputs() const;  // USER_OUTPUT and LOSS_OUTPUT
  OrderedMap inputsToParameters() const;
  OrderedMap inputsToBuffers() const;
  OrderedMap inputsToLiftedTensorConstants() const;
  OrderedMap inputsToLiftedCustomObjs() const;
  OrderedMap buffersToMutate() const;
  OrderedMap parametersToMutate() const;
  OrderedMap userInputsToMutate() const;
  std::vector<std::string> inputTokens() const;
  std::vector<std::string> outputTokens() const;
  // Present only when there is exactly one LOSS_OUTPUT (graph_signature.py raises for
  // several; nothing here needs to tell that from none).
  std::optional<BackwardSignature> backwardSignature() const;
  // Output index i is a mutation iff i < this (graph_signature.py's rule).
  size_t mutationOutputEnd() const;

  friend bool operator==(const GraphSignature& a, const GraphSignature& b) {
    return a.input_specs == b.input_specs && a.output_specs == b.output_specs;
  }
};

}  // namespace epsmith
