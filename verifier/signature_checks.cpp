// _verify_exported_program_module_call_graph and _verify_exported_program_signature.
#include <algorithm>
#include <cmath>
#include <set>

#include "formats/scalar_format.h"
#include "verifier/walk.h"

namespace epsmith::verifier_detail {
namespace {

std::string inputWhere(size_t i) { return "input_specs[" + std::to_string(i) + "]"; }

bool isNamedArg(const SpecArg& a) {
  return a.kind == SpecArg::Kind::Tensor || a.kind == SpecArg::Kind::SymInt || a.kind == SpecArg::Kind::SymFloat ||
         a.kind == SpecArg::Kind::SymBool;
}

// One element of the output node's tuple as verifier.py sees it: a node's name, a Python
// constant, or some other value (a list) that equals nothing in the signature.
struct OutputEntry {
  enum class Kind { Name, Constant, Other } kind = Kind::Other;
  std::string name;
  ConstantValue constant;
  std::string text;  // for messages
};

// verifier.py's message for an output tuple whose length is not the signature's (torch
// 2.13): the two sets differ by name, printed as Python prints a set (sorted here, where
// Python's order follows its string hashes).
std::string outputCountMessage(const std::vector<OutputEntry>& outputs, const GraphSignature& gs) {
  std::set<std::string> nodes, specs;
  for (const auto& e : outputs) nodes.insert(e.kind == OutputEntry::Kind::Name ? "'" + e.name + "'" : e.text);
  for (const auto& spec : gs.output_specs) specs.insert("'" + spec.arg.name + "'");
  auto pySet = [](const std::set<std::string>& a, const std::set<std::string>& b) {
    std::string out;
    for (const auto& x : a) {
      if (!b.count(x)) out += (out.empty() ? "" : ", ") + x;
    }
    return out.empty() ? std::string("set()") : "{" + out + "}";
  };
  return "Number of output nodes " + std::to_string(outputs.size()) +
         " is different Than the number of outputs specified by the graph signature: " +
         std::to_string(gs.output_specs.size()) + "\nNodes missing output_specs: " + pySet(nodes, specs) +
         "\nOutput_specs missing nodes: " + pySet(specs, nodes);
}

OutputEntry entryOf(const Argument& a) {
  OutputEntry e;
  const Node* node = nullptr;
  a.forEachNode([&](const Node* n) { node = node ? node : n; });
  bool single_ref = a.kind() == ArgKind::Tensor || a.kind() == ArgKind::OptionalTensor || a.kind() == ArgKind::SymInt ||
                    a.kind() == ArgKind::SymFloat || a.kind() == ArgKind::SymBool || a.kind() == ArgKind::CustomObj ||
                    a.kind() == ArgKind::Graph;
  if (single_ref && node) {
    e.kind = OutputEntry::Kind::Name;
    e.name = node->name();
    e.text = e.name;
    return e;
  }
  e.kind = OutputEntry::Kind::Constant;
  if (a.kind() == ArgKind::None || a.kind() == ArgKind::OptionalTensor)
    e.constant = std::monostate{};
  else if (const auto* i = a.get<arg::Int>())
    e.constant = i->value;
  else if (const auto* f = a.get<arg::Float>())
    e.constant = f->value;
  else if (const auto* b = a.get<arg::Bool>())
    e.constant = b->value;
  else if (const auto* s = a.get<arg::String>())
    e.constant = s->value;
  else if (const auto* si = a.get<arg::SymInt>())
    e.constant = si->value.literal;
  else if (const auto* sf = a.get<arg::SymFloat>())
    e.constant = sf->value.literal;
  else if (const auto* sb = a.get<arg::SymBool>())
    e.constant = sb->value.literal;
  else
    e.kind = OutputEntry::Kind::Other;
  e.text = e.kind == OutputEntry::Kind::Constant ? pyRepr(e.constant) : std::string(serializedTag(a.kind()));
  return e;
}

// Python's == between two constants (1 == 1.0 == True; NaN != NaN).
bool pyEquals(const ConstantValue& a, const ConstantValue& b) {
  auto number = [](const ConstantValue& v, double* out) {
    if (auto* i = std::get_if<int64_t>(&v)) return *out = static_cast<double>(*i), true;
    if (auto* f = std::get_if<double>(&v)) return *out = *f, true;
    if (auto* b = std::get_if<bool>(&v)) return *out = *b ? 1.0 : 0.0, true;
    return false;
  };
  auto integer = [](const ConstantValue& v, int64_t* out) {
    if (auto* i = std::get_if<int64_t>(&v)) return *out = *i, true;
    if (auto* b = std::get_if<bool>(&v)) return *out = *b ? 1 : 0, true;
    return false;
  };
  int64_t i = 0, j = 0;
  if (integer(a, &i) && integer(b, &j)) return i == j;  // exact beyond 2^53
  double x = 0, y = 0;
  if (number(a, &x) && number(b, &y)) return x == y;
  return a == b;
}

bool pyEquals(const OutputEntry& out, const UserInputEntry& expected) {
  const std::string* expected_str = std::get_if<std::string>(&expected);
  const ConstantValue* expected_const = std::get_if<ConstantValue>(&expected);
  if (expected_const) {
    if (const auto* s = std::get_if<std::string>(expected_const)) expected_str = s;
  }
  switch (out.kind) {
    case OutputEntry::Kind::Name: return expected_str && *expected_str == out.name;
    case OutputEntry::Kind::Constant:
      if (const auto* s = std::get_if<std::string>(&out.constant)) return expected_str && *expected_str == *s;
      return expected_const && pyEquals(out.constant, *expected_const);
    case OutputEntry::Kind::Other: return false;
  }
  return false;
}

bool containsTarget(const std::vector<std::string>& names, const std::string& target) {
  return std::find(names.begin(), names.end(), target) != names.end();
}

bool containsTarget(const std::vector<UserInputEntry>& entries, const std::string& target) {
  for (const auto& e : entries) {
    if (const auto* s = std::get_if<std::string>(&e); s && *s == target) return true;
    if (const auto* c = std::get_if<ConstantValue>(&e)) {
      if (const auto* s = std::get_if<std::string>(c); s && *s == target) return true;
    }
  }
  return false;
}

// Whether the spec names its target; reported when it does not.
bool hasTarget(const InputSpec& spec, const std::string& where, Sink& sink) {
  if (spec.target) return true;
  sink.report(CheckId::SpecMissingTarget, where, "InputSpec for " + spec.arg.name + " has no target.");
  return false;
}

// Whether the spec's argument is of `kind`; reported, in Python's words, when not.
bool argumentIs(const InputSpec& spec, SpecArg::Kind kind, CheckId id, const char* what, const char* noun,
                const std::string& where, Sink& sink) {
  if (spec.arg.kind == kind) return true;
  sink.report(id, where,
              std::string(what) + " " + spec.arg.name + " is not a " + noun + " argument. Found " + pyRepr(spec.arg) +
                  " instead.");
  return false;
}

void checkParameterSpec(const ExportedProgram& p, const InputSpec& spec, const std::string& where, Sink& sink) {
  if (!argumentIs(spec, SpecArg::Kind::Tensor, CheckId::ParameterNotTensor, "Parameter", "tensor", where, sink) ||
      !hasTarget(spec, where, sink)) {
    return;
  }
  auto it = p.state_dict.find(*spec.target);
  if (it == p.state_dict.end()) {
    sink.report(CheckId::ParameterNotInStateDict, where, "Parameter " + *spec.target + " is not in the state dict.");
  } else if (!it->second.is_parameter) {
    sink.report(CheckId::ParameterNotParameter, where,
                "State dict entry for parameter " + *spec.target + " is not an instance of torch.nn.Parameter.");
  }
}

void checkBufferSpec(const ExportedProgram& p, const InputSpec& spec, const std::string& where, Sink& sink) {
  if (!argumentIs(spec, SpecArg::Kind::Tensor, CheckId::BufferNotTensor, "Buffer", "tensor", where, sink) ||
      !hasTarget(spec, where, sink)) {
    return;
  }
  const std::string& buffer = *spec.target;
  if (!spec.persistent) {
    sink.report(CheckId::BufferMissingPersistence, where, "Buffer " + buffer + " is missing a persistence flag");
    return;
  }
  const bool in_state = p.state_dict.count(buffer) > 0;
  if (*spec.persistent && !in_state) {
    sink.report(CheckId::BufferNotInStateDict, where, "Buffer " + buffer + " is not in the state dict.");
  } else if (!*spec.persistent && in_state) {
    sink.report(CheckId::NonPersistentBufferInStateDict, where,
                "Non-persistent buffer " + buffer + " is in the state dict, it should not be.");
  }
}

// A constant tensor or custom object: its target must be in the constants table.
void checkConstantSpec(const ExportedProgram& p, const InputSpec& spec, const std::string& where, Sink& sink) {
  const bool tensor = spec.kind == InputKind::ConstantTensor;
  const char* what = tensor ? "Constant tensor" : "Custom object";
  const bool is_kind =
      tensor ? argumentIs(spec, SpecArg::Kind::Tensor, CheckId::ConstantNotTensor, what, "tensor", where, sink)
             : argumentIs(spec, SpecArg::Kind::CustomObj, CheckId::CustomObjNotCustomObj, what, "custom object", where,
                          sink);
  if (!is_kind || !hasTarget(spec, where, sink) || p.constants.count(*spec.target)) return;
  sink.report(tensor ? CheckId::ConstantNotInConstants : CheckId::CustomObjNotInConstants, where,
              std::string(what) + " " + *spec.target + " is not in the constants dictionary.");
}

void checkInputSpec(const ExportedProgram& p, const InputSpec& spec, size_t i, Sink& sink) {
  const std::string where = inputWhere(i);
  switch (spec.kind) {
    case InputKind::UserInput: return;
    case InputKind::Parameter: return checkParameterSpec(p, spec, where, sink);
    case InputKind::Buffer: return checkBufferSpec(p, spec, where, sink);
    case InputKind::ConstantTensor:
    case InputKind::CustomObj: return checkConstantSpec(p, spec, where, sink);
    case InputKind::Token:
      argumentIs(spec, SpecArg::Kind::Token, CheckId::TokenNotToken, "Token", "token", where, sink);
      return;
  }
  sink.report(CheckId::UnknownInputKind, where,
              "Unknown InputKind " + std::to_string(static_cast<int>(spec.kind)) + ".");
}

void checkOutputs(const ExportedProgram& p, Sink& sink) {
  const GraphSignature& gs = p.signature;
  const Node* output = p.graph().outputNode();
  if (!output) {
    const Node* last = p.graph().empty() ? nullptr : &p.graph().nodes().back();
    sink.report(CheckId::OutputNotLast, "graph",
                last ? "the last node of the graph must be its output node; found " +
                           std::string(opKindName(last->op())) + " %" + last->name()
                     : std::string("the graph is empty: it has no output node"));
    return;
  }
  std::vector<OutputEntry> outputs;
  outputs.reserve(output->args.size());
  for (const auto& a : output->args) outputs.push_back(entryOf(a));

  const OrderedMap buffers_to_mutate = gs.buffersToMutate();
  const OrderedMap parameters_to_mutate = gs.parametersToMutate();
  const OrderedMap user_inputs_to_mutate = gs.userInputsToMutate();
  const auto user_outputs = gs.userOutputs();
  if (outputs.size() != gs.output_specs.size()) {
    sink.report(CheckId::OutputCount, "%" + output->name(), outputCountMessage(outputs, gs));
  }
  const size_t num_tokens = gs.outputTokens().size();
  const size_t end = buffers_to_mutate.size() + parameters_to_mutate.size() + user_inputs_to_mutate.size() + num_tokens;
  const std::vector<std::string> buffers = gs.buffers();
  const std::vector<std::string> parameters = gs.parameters();
  const auto user_inputs = gs.userInputs();
  for (size_t i = num_tokens; i < std::min(end, outputs.size()); ++i) {
    const OutputEntry& e = outputs[i];
    const std::string where = "output[" + std::to_string(i) + "]";
    const std::string* target = nullptr;
    if (e.kind == OutputEntry::Kind::Name && (target = lookup(buffers_to_mutate, e.name))) {
      if (!containsTarget(buffers, *target)) {
        sink.report(CheckId::BufferMutationTarget, where,
                    "Buffer output " + e.name +
                        " does not point to a buffer that exists. \n"
                        "Dict of buffers that are mutated, in order: " +
                        pyRepr(buffers_to_mutate) + " \nBuffer nodes available: " + pyRepr(buffers) + " \n");
      }
    } else if (e.kind == OutputEntry::Kind::Name && (target = lookup(parameters_to_mutate, e.name))) {
      if (!containsTarget(parameters, *target)) {
        sink.report(CheckId::ParameterMutationTarget, where,
                    "Parameter output " + e.name +
                        " does not point to a parameter that exists. \n"
                        "Dict of parameters that are mutated, in order: " +
                        pyRepr(parameters_to_mutate) + " \nParameter nodes available: " + pyRepr(parameters) + " \n");
      }
    } else if (e.kind == OutputEntry::Kind::Name && (target = lookup(user_inputs_to_mutate, e.name))) {
      if (!containsTarget(user_inputs, *target)) {
        sink.report(CheckId::UserInputMutationTarget, where,
                    "User input output " + e.name +
                        " does not point to a user input that exists. \n"
                        "Dict of user inputs that are mutated, in order: " +
                        pyRepr(user_inputs_to_mutate) + " \nUser input nodes available: " + pyRepr(user_inputs) +
                        " \n");
      }
    } else {
      sink.report(CheckId::MutationOutputKind, where,
                  "Mutation node " + e.text + " is neither a buffer nor a user input. Buffers to mutate: " +
                      pyRepr(buffers_to_mutate) + ", User inputs to mutate: " + pyRepr(user_inputs_to_mutate));
    }
  }
  for (size_t k = 0; k < user_outputs.size() && end + k < outputs.size(); ++k) {
    if (!pyEquals(outputs[end + k], user_outputs[k])) {
      sink.report(CheckId::UserOutputOrder, "output[" + std::to_string(end + k) + "]",
                  "User output " + outputs[end + k].text +
                      " is not in the correct order or is not found in the exported program's "
                      "user_output list: " +
                      pyRepr(user_outputs) + ". ");
    }
  }
}

}  // namespace

void checkModuleCallGraph(const ExportedProgram& p, Sink& sink) {
  bool any_names = false;
  for (const auto& entry : p.module_call_graph) {
    if (!entry.signature) continue;
    for (const auto& a : entry.signature->inputs) any_names = any_names || !a.name.empty();
    for (const auto& a : entry.signature->outputs) any_names = any_names || !a.name.empty();
  }
  if (!any_names) return;
  const Graph& g = p.graph();  // its name table knows every node's name
  for (size_t i = 0; i < p.module_call_graph.size(); ++i) {
    const auto& entry = p.module_call_graph[i];
    if (!entry.signature) continue;
    auto where = [i] { return "module_call_graph[" + std::to_string(i) + "]"; };
    for (const auto& a : entry.signature->inputs) {
      if (!a.name.empty() && !g.hasName(a.name)) {
        sink.report(CheckId::CallGraphInputMissing, where(), "Input " + a.name + " does not exist in the graph.");
      }
    }
    for (const auto& a : entry.signature->outputs) {
      if (!a.name.empty() && !g.hasName(a.name)) {
        sink.report(CheckId::CallGraphOutputMissing, where(), "Output " + a.name + " does not exist in the graph.");
      }
    }
  }
}

void checkSignature(const ExportedProgram& p, const std::vector<const Node*>& placeholders, Sink& sink) {
  const GraphSignature& gs = p.signature;
  if (placeholders.size() != gs.input_specs.size()) {
    sink.report(CheckId::InputCount, "input_specs",
                "Number of graph inputs (" + std::to_string(placeholders.size()) +
                    ") does not match number of inputs in the graph signature (" +
                    std::to_string(gs.input_specs.size()) + ")");
  }
  for (size_t i = 0; i < std::min(placeholders.size(), gs.input_specs.size()); ++i) {
    const InputSpec& spec = gs.input_specs[i];
    if (isNamedArg(spec.arg) && spec.arg.name != placeholders[i]->name()) {
      sink.report(CheckId::InputName, inputWhere(i),
                  "Input spec name " + spec.arg.name + " does not match node name " + placeholders[i]->name());
    }
    checkInputSpec(p, spec, i, sink);
  }
  checkOutputs(p, sink);
}

}  // namespace epsmith::verifier_detail
