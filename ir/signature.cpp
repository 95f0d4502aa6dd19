// Derived views of the graph signature, each computed the way graph_signature.py does.
#include "ir/signature.h"

#include <array>

namespace epsmith {
namespace {

constexpr std::array<std::string_view, 6> kInputKinds{"user_input",      "parameter",  "buffer",
                                                      "tensor_constant", "custom_obj", "token"};
constexpr std::array<std::string_view, 8> kOutputKinds{"user_output",           "loss_output",
                                                       "buffer_mutation",       "parameter_mutation",
                                                       "gradient_to_parameter", "gradient_to_user_input",
                                                       "user_input_mutation",   "token"};

template <typename Pred>
std::vector<std::string> inputTargets(const GraphSignature& s, Pred pred) {
  std::vector<std::string> out;
  for (const auto& spec : s.input_specs) {
    if (pred(spec) && spec.target) out.push_back(*spec.target);
  }
  return out;
}

// Inserts like a Python dict: a repeated key keeps its first position and takes the new value.
void dictSet(OrderedMap& m, const std::string& key, const std::string& value) {
  for (auto& [k, v] : m) {
    if (k == key) {
      v = value;
      return;
    }
  }
  m.emplace_back(key, value);
}

OrderedMap inputsTo(const GraphSignature& s, InputKind kind) {
  OrderedMap out;
  for (const auto& spec : s.input_specs) {
    if (spec.kind == kind && spec.arg.hasNodeName() && spec.target) {
      dictSet(out, spec.arg.name, *spec.target);
    }
  }
  return out;
}

OrderedMap outputsTo(const GraphSignature& s, OutputKind kind) {
  OrderedMap out;
  for (const auto& spec : s.output_specs) {
    if (spec.kind == kind && spec.target) dictSet(out, spec.arg.name, *spec.target);
  }
  return out;
}

UserInputEntry entryOf(const SpecArg& arg) {
  if (arg.kind == SpecArg::Kind::Constant) return arg.value;
  return arg.name;
}

}  // namespace

// A kind out of range is a corrupted program's (D6's unknown-input-kind), still written.
std::string_view inputKindName(InputKind k) {
  const auto i = static_cast<size_t>(k);
  return i < kInputKinds.size() ? kInputKinds[i] : "unknown";
}
std::string_view outputKindName(OutputKind k) {
  const auto i = static_cast<size_t>(k);
  return i < kOutputKinds.size() ? kOutputKinds[i] : "unknown";
}

std::optional<InputKind> inputKindFromName(std::string_view name) {
  for (size_t i = 0; i < kInputKinds.size(); ++i) {
    if (kInputKinds[i] == name) return static_cast<InputKind>(i);
  }
  return std::nullopt;
}

std::optional<OutputKind> outputKindFromName(std::string_view name) {
  for (size_t i = 0; i < kOutputKinds.size(); ++i) {
    if (kOutputKinds[i] == name) return static_cast<OutputKind>(i);
  }
  return std::nullopt;
}

const std::string* lookup(const OrderedMap& m, std::string_view key) {
  for (const auto& [k, v] : m) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::vector<std::string> GraphSignature::parameters() const {
  return inputTargets(*this, [](const InputSpec& s) { return s.kind == InputKind::Parameter; });
}

std::vector<std::string> GraphSignature::buffers() const {
  return inputTargets(*this, [](const InputSpec& s) { return s.kind == InputKind::Buffer; });
}

std::vector<std::string> GraphSignature::nonPersistentBuffers() const {
  return inputTargets(*this, [](const InputSpec& s) { return s.kind == InputKind::Buffer && s.persistent == false; });
}

std::vector<std::string> GraphSignature::liftedTensorConstants() const {
  return inputTargets(*this, [](const InputSpec& s) { return s.kind == InputKind::ConstantTensor; });
}

std::vector<std::string> GraphSignature::liftedCustomObjs() const {
  return inputTargets(*this, [](const InputSpec& s) { return s.kind == InputKind::CustomObj; });
}

std::vector<UserInputEntry> GraphSignature::userInputs() const {
  std::vector<UserInputEntry> out;
  for (const auto& spec : input_specs) {
    if (spec.kind == InputKind::UserInput) out.push_back(entryOf(spec.arg));
  }
  return out;
}

std::vector<UserInputEntry> GraphSignature::userOutputs() const {
  std::vector<UserInputEntry> out;
  for (const auto& spec : output_specs) {
    if (spec.kind == OutputKind::UserOutput || spec.kind == OutputKind::LossOutput) {
      out.push_back(entryOf(spec.arg));
    }
  }
  return out;
}

OrderedMap GraphSignature::inputsToParameters() const { return inputsTo(*this, InputKind::Parameter); }
OrderedMap GraphSignature::inputsToBuffers() const { return inputsTo(*this, InputKind::Buffer); }
OrderedMap GraphSignature::inputsToLiftedTensorConstants() const { return inputsTo(*this, InputKind::ConstantTensor); }
OrderedMap GraphSignature::inputsToLiftedCustomObjs() const { return inputsTo(*this, InputKind::CustomObj); }
OrderedMap GraphSignature::buffersToMutate() const { return outputsTo(*this, OutputKind::BufferMutation); }
OrderedMap GraphSignature::parametersToMutate() const { return outputsTo(*this, OutputKind::ParameterMutation); }
OrderedMap GraphSignature::userInputsToMutate() const { return outputsTo(*this, OutputKind::UserInputMutation); }

std::vector<std::string> GraphSignature::inputTokens() const {
  std::vector<std::string> out;
  for (const auto& spec : input_specs) {
    if (spec.kind == InputKind::Token) out.push_back(spec.arg.name);
  }
  return out;
}

std::vector<std::string> GraphSignature::outputTokens() const {
  std::vector<std::string> out;
  for (const auto& spec : output_specs) {
    if (spec.kind == OutputKind::Token) out.push_back(spec.arg.name);
  }
  return out;
}

std::optional<BackwardSignature> GraphSignature::backwardSignature() const {
  BackwardSignature b;
  int losses = 0;
  for (const auto& spec : output_specs) {
    if (spec.kind == OutputKind::LossOutput) {
      ++losses;
      b.loss_output = spec.arg.name;
    }
  }
  if (losses != 1) return std::nullopt;
  b.gradients_to_parameters = outputsTo(*this, OutputKind::GradientToParameter);
  b.gradients_to_user_inputs = outputsTo(*this, OutputKind::GradientToUserInput);
  return b;
}

size_t GraphSignature::mutationOutputEnd() const {
  return buffersToMutate().size() + parametersToMutate().size() + userInputsToMutate().size() + outputTokens().size();
}

}  // namespace epsmith
