// Writes a program as a torch-only Python script: the module class, `make()` with every tensor
// inline, then the check's path and the comparison (repro/script_text.cpp).
#include "repro/python_repro.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "formats/scalar_format.h"
#include "ir/target.h"
#include "ops/op_roles.h"
#include "repro/forward_writer.h"
#include "repro/script_text.h"

namespace epsmith {

using repro_detail::joined;
using repro_detail::PythonNames;
using repro_detail::requireIdentifier;
using repro_detail::ScriptNeeds;
using repro_detail::Unwritable;

namespace {

std::string pyTuple(const std::vector<int64_t>& values) {
  std::vector<std::string> parts;
  for (int64_t v : values) parts.push_back(std::to_string(v));
  return "(" + joined(parts) + (parts.size() == 1 ? ",)" : ")");
}

// Storage elements as Python literals torch.tensor reads back to the same bytes, or nullopt
// where one has none (Note [The fp64 rule in scripts] needs values, so bytes are the
// exception: NaN payloads, bool bytes other than 0 and 1, dtypes Python numbers do not fill).
std::optional<std::vector<std::string>> literalElements(const Storage& s) {
  switch (s.dtype) {
    case ScalarType::Bool:
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::BFloat16:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: break;
    default: return std::nullopt;
  }
  const int64_t size = elementSize(s.dtype);
  std::vector<std::string> out;
  for (int64_t i = 0; i < s.numel(); ++i) {
    const uint8_t* p = s.bytes.data() + i * size;
    if (s.dtype == ScalarType::Bool && *p > 1) return std::nullopt;
    std::string text = formatElement(s.dtype, p);
    if (text.find("nan:") != std::string::npos) return std::nullopt;
    out.push_back(std::move(text));
  }
  return out;
}

// `items` after `open`, wrapped at 100 columns with continuation lines indented by `indent`.
std::string wrapped(const std::string& open, const std::vector<std::string>& items, const std::string& close,
                    const std::string& indent) {
  std::string out = open;
  size_t column = open.size();
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (i > 0 && column + 1 + item.size() > 100) {
      out += "\n" + indent;
      column = indent.size();
    } else if (i > 0) {
      out += " ";
      ++column;
    }
    out += item;
    column += item.size();
  }
  return out + close;
}

// The tensors of `make()`: one storage line per storage several tensors share, one view
// expression per tensor.
class TensorWriter {
 public:
  TensorWriter(bool* uses_inf_nan, std::set<std::string>* taken) : uses_inf_nan_(uses_inf_nan), taken_(taken) {}

  // Counts one more tensor of `v`'s storage, before any expression is asked for.
  void count(const TensorValue& v) {
    if (++users_[v.storage.get()] == 2) any_shared_ = true;
  }

  // Whether any two tensors share a storage: make() then names shared storages and views
  // them, where otherwise each tensor is made from its values in one call.
  bool anyShared() const { return any_shared_; }

  // The expression making `v`; a shared storage's line is added to `lines` on first use.
  std::string tensor(const TensorValue& v, const std::string& where, std::vector<std::string>& lines) {
    if (!v.storage) throw Unwritable(where, "a tensor without a storage");
    if (auto problem = v.checkBounds()) throw Unwritable(where, *problem);
    std::string out;
    if (!anyShared()) {
      out = "tensor(" + storageArguments(*v.storage, where, "            ");
    } else if (users_[v.storage.get()] > 1) {
      auto it = names_.find(v.storage.get());
      if (it == names_.end()) {
        std::string name = "s" + std::to_string(names_.size());
        while (!taken_->insert(name).second) name += "_";
        it = names_.emplace(v.storage.get(), name).first;
        lines.push_back("    " + name + " = storage(" + storageArguments(*v.storage, where, "        ") + ")");
      }
      out = "view(" + it->second;
    } else {
      out = "view(storage(" + storageArguments(*v.storage, where, "            ") + ")";
    }
    out += ", " + pyTuple(v.sizes) + ", " + pyTuple(v.strides);
    if (v.storage_offset != 0 || v.requires_grad) out += ", " + std::to_string(v.storage_offset);
    return out + (v.requires_grad ? ", grad=True)" : ")");
  }

 private:
  // The values and dtype of a storage, as the helpers take them.
  std::string storageArguments(const Storage& s, const std::string& where, const std::string& indent) {
    const std::string dtype(torchName(s.dtype));
    if (dtype.empty() || s.dtype == ScalarType::Unknown)
      throw Unwritable(where, "a storage of a dtype torch has no name for");
    if (auto values = literalElements(s)) {
      for (const auto& v : *values) {
        if (v.find("inf") != std::string::npos || v.find("nan") != std::string::npos) *uses_inf_nan_ = true;
      }
      return wrapped("[", *values, "], " + dtype, indent);
    }
    static const char* kHex = "0123456789abcdef";
    std::string hex;
    for (uint8_t b : s.bytes) hex += std::string{kHex[b >> 4], kHex[b & 15]};
    return "bytes.fromhex(\"" + hex + "\"), " + dtype;
  }

  bool* uses_inf_nan_;
  std::set<std::string>* taken_;  // make()'s local names
  std::unordered_map<const Storage*, int> users_;
  bool any_shared_ = false;
  std::unordered_map<const Storage*, std::string> names_;
};

// Note [Symbolic sizes in scripts]
// A program with symbolic sizes is what torch.export makes of a module exported with
// `Dim`s, so a script's export passes them: one `torch.export.Dim` per symbol of the
// program's range_constraints, named as the symbol and bounded as it is, and
// `dynamic_shapes` as a tuple with one entry per user input, `{dim: symbol}` for each
// dimension that is a symbol alone (a generated program's are) and None for the rest.
// torch.export then traces at the case's sizes with those dimensions symbolic, which is
// where a finding at a size of the range lies.
repro_text::ExportArguments exportArguments(const ExportedProgram& p, const std::string& preserved) {
  repro_text::ExportArguments out{preserved, "", ""};
  std::vector<std::string> entries;
  std::set<std::string> used;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind != InputKind::UserInput) continue;
    const Node* n = p.graph().find(spec.arg.name);
    const TensorMeta* meta = n ? n->meta.val.tensor() : nullptr;
    std::vector<std::string> dims;
    for (size_t d = 0; meta && d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].isConcrete()) continue;
      auto symbol = soleSymbol(meta->sizes[d].expr().expr);
      if (!symbol || !p.range_constraints.count(*symbol)) continue;
      dims.push_back(std::to_string(d) + ": " + *symbol);
      used.insert(*symbol);
    }
    entries.push_back(dims.empty() ? "None" : wrapped("{", dims, "}", ""));
  }
  if (used.empty()) return out;
  for (const std::string& symbol : used) {
    const RangeConstraint& r = p.range_constraints.at(symbol);
    std::string bounds;
    if (r.min_val) bounds += ", min=" + std::to_string(*r.min_val);
    if (r.max_val) bounds += ", max=" + std::to_string(*r.max_val);
    out.dims += "    " + symbol + " = torch.export.Dim(\"" + symbol + "\"" + bounds + ")\n";
  }
  out.dynamic_shapes = "(" + (entries.size() == 1 ? entries[0] + "," : wrapped("", entries, "", "        ")) + ")";
  return out;
}

}  // namespace

namespace {

// A parameter, buffer or constant of the module, as the input spec that lifts it says.
struct StateTensor {
  InputKind kind;
  std::string fqn;        // "layer.weight"
  std::string init_name;  // __init__'s parameter: "layer_weight"
  std::optional<bool> persistent;
  TensorValue value;
};

const TensorValue& liftedValue(const ExportedProgram& p, const InputSpec& spec) {
  const std::string where = "input spec %" + spec.arg.name;
  if (!spec.target) throw Unwritable(where, "a lifted input without a target");
  const std::string& fqn = *spec.target;
  if (spec.kind != InputKind::Parameter) {
    auto c = p.constants.find(fqn);
    if (c != p.constants.end() && c->second.tensor) return *c->second.tensor;
  }
  auto s = p.state_dict.find(fqn);
  if (s == p.state_dict.end()) throw Unwritable(where, "no tensor for '" + fqn + "' in the state or constants");
  return s->second.tensor;
}

// The input specs, in order: state tensors, and the user inputs with their values.
class Inputs {
 public:
  Inputs(const ExportedProgram& p, PythonNames& names) {
    std::set<std::string> init_names;
    size_t user = 0;
    for (const InputSpec& spec : p.signature.input_specs) {
      const Node* node = p.graph().find(spec.arg.name);
      if (!node) throw Unwritable("input spec %" + spec.arg.name, "names no placeholder");
      if (spec.kind == InputKind::Token) {  // threaded through, never read: a module has none
        names.bind(*node, "None");
        continue;
      }
      if (spec.kind == InputKind::UserInput) {
        if (user >= p.example_inputs.size())
          throw Unwritable("%" + spec.arg.name, "a user input without an example value");
        users.push_back({names.local(*node), p.example_inputs[user++]});
        continue;
      }
      if (spec.kind != InputKind::Parameter && spec.kind != InputKind::Buffer &&
          spec.kind != InputKind::ConstantTensor) {
        throw Unwritable("%" + spec.arg.name,
                         std::string(inputKindName(spec.kind)) + " inputs have no Python form in a reproducer yet");
      }
      StateTensor s{spec.kind, spec.target.value_or(""), "", spec.persistent, liftedValue(p, spec)};
      for (size_t start = 0, dot = 0; dot != std::string::npos; start = dot + 1) {
        dot = s.fqn.find('.', start);
        requireIdentifier("%" + spec.arg.name, s.fqn.substr(start, dot - start), "the state name's part");
      }
      s.init_name = s.fqn;
      std::replace(s.init_name.begin(), s.init_name.end(), '.', '_');
      while (!init_names.insert(s.init_name).second || s.init_name == "self") s.init_name += "_";
      names.bind(*node, "self." + s.fqn);
      state.push_back(std::move(s));
    }
  }
  std::vector<StateTensor> state;
  std::vector<std::pair<std::string, InputValue>> users;  // forward's parameter, value
};

// The lines of __init__ registering one state tensor, its submodules made first.
void registerState(const StateTensor& s, std::set<std::string>& modules, std::vector<std::string>& lines) {
  const size_t last_dot = s.fqn.rfind('.');
  const std::string owner = last_dot == std::string::npos ? "self" : "self." + s.fqn.substr(0, last_dot);
  const std::string leaf = last_dot == std::string::npos ? s.fqn : s.fqn.substr(last_dot + 1);
  for (size_t dot = s.fqn.find('.'); dot != std::string::npos; dot = s.fqn.find('.', dot + 1)) {
    const std::string prefix = s.fqn.substr(0, dot);
    if (modules.insert(prefix).second) lines.push_back("        self." + prefix + " = torch.nn.Module()");
  }
  const std::string& t = s.init_name;
  if (s.kind == InputKind::Parameter) {
    lines.push_back("        " + owner + "." + leaf + " = torch.nn.Parameter(" + t +
                    (s.value.requires_grad ? ")" : ", requires_grad=False)"));
  } else if (s.kind == InputKind::Buffer) {
    lines.push_back("        " + owner + ".register_buffer(\"" + leaf + "\", " + t +
                    (s.persistent.value_or(true) ? ")" : ", persistent=False)"));
  } else {
    lines.push_back("        " + owner + "." + leaf + " = " + t);
  }
}

// The argument of `call` that schema index `i` names, positional or keyword.
const Argument* argumentAt(const Node& call, const OpInfo& op, int i) {
  if (i < static_cast<int>(call.args.size())) return &call.args[i];
  for (const auto& [k, v] : call.kwargs) {
    if (i < static_cast<int>(op.arguments.size()) && k == op.arguments[i].name) return &v;
  }
  return nullptr;
}

// The tensor a value is, seen through in-place and out= calls (which return what they
// wrote) and getitem of their results: a mutation output that is its own target needs no
// copy back.
const Node* writtenTensor(const Node* n) {
  int result = 0;
  while (n && n->op() == OpKind::CallFunction) {
    if (n->target.kind() == Target::Kind::Builtin && n->target.builtinOp() == BuiltinOp::GetItem &&
        n->args.size() == 2) {
      const auto* of = n->args[0].get<arg::Tensor>();
      const auto* index = n->args[1].get<arg::Int>();
      if (!of || !index) return n;
      n = of->node, result = static_cast<int>(index->value);
      continue;
    }
    const OpInfo* op = n->atenOp();
    if (!op) return n;
    const OpRoleInfo& role = opRole(*op);
    if ((role.role != OpRole::InPlace && role.role != OpRole::Out) ||
        result >= static_cast<int>(role.return_alias.size()))
      return n;
    const int i = role.return_alias[result];
    const Argument* a = i < 0 ? nullptr : argumentAt(*n, *op, i);
    const auto* t = a ? a->get<arg::Tensor>() : nullptr;
    if (!t) return n;
    n = t->node, result = 0;
  }
  return n;
}

class ScriptWriter {
 public:
  ScriptWriter(const ExportedProgram& p, const ReproRequest& r)
      : p_(p), request_(r), inputs_(p, names_), tensors_(&needs_.inf_nan, &make_locals_) {}

  std::string script() {
    for (const auto& s : inputs_.state) tensors_.count(s.value);
    for (const auto& [name, v] : inputs_.users) {
      if (v.kind == InputValue::Kind::Tensor) tensors_.count(v.tensor);
    }
    repro_detail::ForwardStyle style;
    style.decompose_composite_writes = request_.path == ReproPath::Functionalize;
    // The functional form's script exports nothing, so preserves nothing.
    if (request_.path != ReproPath::FunctionalForm)
      submodule_ = repro_detail::preservedSubmodule(p_, &submodule_not_kept_);
    style.submodule = submodule_ ? &*submodule_ : nullptr;
    repro_detail::ForwardBody body = repro_detail::writeForwardBody(p_.graph(), names_, needs_, style);
    std::vector<std::string> forward = body.lines;
    std::vector<std::string> returned = epilogue(p_, names_, body.returned, forward);
    const std::string functional_class = functionalFormClass();
    std::string make = makeFunction();
    const std::string_view compare = anException() ? repro_text::kRunForAnException : repro_text::kCompare;
    const std::string submodule_class = submodule_ ? submoduleClass(*submodule_, style) + "\n\n" : "";
    return head() + submodule_class + moduleClass(forward, returned) + "\n\n" + functional_class + make + "\n\n" +
           std::string(compare) +
           repro_text::pathFunction(request_.path, anException(),
                                    exportArguments(p_, submodule_ ? submodule_->fqn : "")) +
           "\n\n" + mainFunction();
  }

 private:
  // Note [Scripts that look for an exception]
  bool anException() const { return request_.looks_for == ReproLooksFor::AnException; }

  // Note [Preserved submodules in scripts]: what an export path does not preserve, and why.
  std::string notKeptLine() const {
    if (submodule_not_kept_.empty() || !repro_text::pathHasSteps(request_.path)) return "";
    return "The program preserves a submodule's call signature, which this script does not: " + submodule_not_kept_ +
           ".\n";
  }

  std::string head() {
    std::string out = "\"\"\"" + request_.finding + ", found by a fuzzer (epsmith).\n\n" +
                      std::string(reproPathDescription(request_.path)) + ", against eager" +
                      (anException() ? ": an exception in one run alone.\n" : "; numbers by PyTorch's fp64 rule.\n") +
                      notKeptLine() +
                      "Exits 1 when the bug shows, 0 when it does not, 2 when it cannot run here.\"\"\"\n";
    std::set<std::string> imports = needs_.imports;
    imports.insert("sys");
    if (request_.path == ReproPath::SaveLoad) imports.insert("io");
    if (anException() && repro_text::pathHasSteps(request_.path))
      imports.insert("traceback");  // Note [Scripts name the step that raised]
    for (const auto& i : imports) out += "import " + i + "\n";
    out += "\nimport torch\n\n";
    if (needs_.inf_nan) out += "inf, nan = float(\"inf\"), float(\"nan\")\n\n";
    return out + "\n";
  }

  // Note [The functional form in scripts]
  // A D1 finding is a difference between a program and its functional form, as epsmith's
  // functionalizer writes it; where a person has judged it LibTorch's (an op that computes
  // other values, or raises, in its functional form or in another layout), its script holds
  // both: `class F(M)`, whose forward() is the functional form's, and the path
  // `F.forward(m, *args)`, which runs it on the same module and inputs; what the functional
  // form returns for the inputs and state M writes is copied back into them last. Both runs
  // are eager: whether the bug is torch's rests on F being M's functional form, which the
  // script's reader checks (a minimized case's two forward()s differ in a call or two).
  std::string functionalFormClass() {
    if (request_.path != ReproPath::FunctionalForm) return "";
    const ExportedProgram* f = request_.functional_form;
    if (!f) throw Unwritable("program", "a D1 script needs the program's functional form");
    PythonNames names;
    const Inputs inputs(*f, names);
    if (inputs.users.size() != inputs_.users.size() || inputs.state.size() != inputs_.state.size())
      throw Unwritable("functional form", "its inputs are not the program's");
    repro_detail::ForwardBody body = repro_detail::writeForwardBody(f->graph(), names, needs_);
    std::vector<std::string> forward = body.lines;
    std::vector<std::string> user = epilogue(*f, names, body.returned, forward);
    std::vector<std::string> params{"self"};
    for (const auto& u : inputs.users) params.push_back(u.first);
    std::string out =
        "class F(M):\n    \"\"\"M's functional form: no call writes into a tensor it reads or into an out= tensor; "
        "what M\n    writes into its inputs and state is computed anew and copied back last.\"\"\"\n\n    def "
        "forward(" +
        joined(params) + "):\n";
    for (const auto& line : forward) out += line + "\n";
    return out + "        return (" + joined(user) + (user.size() == 1 ? ",)" : ")") + "\n\n\n";
  }

  // Copies of `p`'s mutation outputs into their targets (those not already written in
  // place), appended to `forward`; returns the user outputs.
  std::vector<std::string> epilogue(const ExportedProgram& p, const PythonNames& names,
                                    const std::vector<std::string>& returned, std::vector<std::string>& forward) {
    const auto& specs = p.signature.output_specs;
    const Node* output = p.graph().outputNode();
    if (!output || returned.size() != specs.size()) {
      throw Unwritable("output", "the graph returns " + std::to_string(returned.size()) +
                                     " values but the signature has " + std::to_string(specs.size()) + " outputs");
    }
    std::vector<std::string> user;
    for (size_t i = 0; i < specs.size(); ++i) {
      const OutputSpec& spec = specs[i];
      if (spec.kind == OutputKind::UserOutput || spec.kind == OutputKind::LossOutput) {
        user.push_back(returned[i]);
        continue;
      }
      std::string target = mutationTarget(p, names, spec);
      if (target.empty()) continue;
      const auto* value = output->args[i].get<arg::Tensor>();
      const Node* written = value ? writtenTensor(value->node) : nullptr;
      if (written && names.of(*written) == target) continue;
      if (spec.kind == OutputKind::ParameterMutation) {
        forward.push_back("        with torch.no_grad():");
        forward.push_back("            " + target + ".copy_(" + returned[i] + ")");
      } else {
        forward.push_back("        " + target + ".copy_(" + returned[i] + ")");
      }
    }
    return user;
  }

  // What a mutation output writes, as forward() reads it; "" for outputs that write nothing
  // a module holds (gradients, tokens).
  static std::string mutationTarget(const ExportedProgram& p, const PythonNames& names, const OutputSpec& spec) {
    if (!spec.target) return "";
    if (spec.kind == OutputKind::BufferMutation || spec.kind == OutputKind::ParameterMutation)
      return "self." + *spec.target;
    if (spec.kind != OutputKind::UserInputMutation) return "";
    const Node* input = p.graph().find(*spec.target);
    if (!input || !input->isPlaceholder())
      throw Unwritable("output %" + spec.arg.name, "mutates no user input '" + *spec.target + "'");
    return names.of(*input);
  }

  // Note [Preserved submodules in scripts]
  std::string submoduleClass(const repro_detail::Submodule& s, repro_detail::ForwardStyle style) {
    repro_detail::PythonNames names;
    std::vector<std::string> params{"self"};
    for (const Node* i : s.inputs) params.push_back(names.local(*i));
    repro_detail::ForwardBody body = repro_detail::writeSubmoduleBody(p_.graph(), s, names, needs_, style);
    std::string out = "class Block(torch.nn.Module):\n    def forward(" + joined(params) + "):\n";
    for (const auto& line : body.lines) out += line + "\n";
    return out + "        return " + joined(body.returned) + "\n";
  }

  std::string moduleClass(const std::vector<std::string>& forward, const std::vector<std::string>& user) {
    std::string out = "class M(torch.nn.Module):\n";
    if (!inputs_.state.empty() || submodule_) {
      std::vector<std::string> params{"self"}, lines;
      std::set<std::string> modules;
      for (const auto& s : inputs_.state) {
        params.push_back(s.init_name);
        registerState(s, modules, lines);
      }
      if (submodule_) lines.push_back("        self." + submodule_->fqn + " = Block()");
      out += "    def __init__(" + joined(params) + "):\n        super().__init__()\n" + joined(lines, "\n") + "\n\n";
    }
    std::vector<std::string> params{"self"};
    for (const auto& u : inputs_.users) params.push_back(u.first);
    out += "    def forward(" + joined(params) + "):\n";
    for (const auto& line : forward) out += line + "\n";
    return out + "        return (" + joined(user) + (user.size() == 1 ? ",)" : ")") + "\n";
  }

  // make(): a line per tensor, named as __init__'s parameter or forward's, storages that
  // several share first.
  std::string makeFunction() {
    std::vector<std::string> lines, state, users;
    auto name = [&](std::string wanted) {
      while (!make_locals_.insert(wanted).second) wanted += "_";
      return wanted;
    };
    std::vector<std::string> state_names, user_names;
    for (const auto& s : inputs_.state) state_names.push_back(name(s.init_name));
    for (const auto& u : inputs_.users) user_names.push_back(name(u.first));
    for (size_t i = 0; i < inputs_.state.size(); ++i) {
      const StateTensor& s = inputs_.state[i];
      TensorValue v = s.value;
      if (s.kind == InputKind::Parameter) v.requires_grad = false;  // nn.Parameter's own flag says it
      std::string expr = tensors_.tensor(v, "state '" + s.fqn + "'", lines);
      lines.push_back("    " + state_names[i] + " = " + expr);
    }
    for (size_t i = 0; i < inputs_.users.size(); ++i) {
      std::string expr = userInput(inputs_.users[i].first, inputs_.users[i].second, lines);
      lines.push_back("    " + user_names[i] + " = " + expr);
    }
    std::string out = anException() ? "def make(device=\"cpu\"):\n"
                                    : "def make(ref=False, device=\"cpu\"):\n"
                                      "    \"\"\"A fresh module and its inputs; ref=True widens floating tensors to "
                                      "float64.\"\"\"\n";
    out += repro_text::tensorHelpers(!anException(), tensors_.anyShared());
    for (const auto& line : lines) out += line + "\n";
    return out + "    return M(" + joined(state_names) + "), (" + joined(user_names) +
           (user_names.size() == 1 ? ",)" : ")") + "\n";
  }

  std::string userInput(const std::string& name, const InputValue& v, std::vector<std::string>& lines) {
    switch (v.kind) {
      case InputValue::Kind::Tensor: return tensors_.tensor(v.tensor, "input '" + name + "'", lines);
      case InputValue::Kind::Int: return std::to_string(v.i);
      case InputValue::Kind::Bool: return v.b ? "True" : "False";
      case InputValue::Kind::None: return "None";
      case InputValue::Kind::Float: {
        std::string text = formatFloat(v.f);
        if (text.find("inf") != std::string::npos || text.find("nan") != std::string::npos) needs_.inf_nan = true;
        return text;
      }
    }
    return "None";
  }

  std::string mainFunction() {
    const bool cuda = request_.path == ReproPath::Cuda;
    const std::string actual = std::string("    actual = run(path") + (cuda ? ", device=\"cuda\")\n" : ")\n");
    const std::string start = "def main():\n    print(\"torch\", torch.__version__, flush=True)\n" +
                              std::string(repro_text::pathGuard(request_.path));
    if (anException())
      return start + "    expected = run(lambda m, args: m(*args))\n" + std::string(repro_text::kOpGuard) + actual +
             repro_text::mainForAnException(repro_text::pathHasSteps(request_.path));
    return start + "    expected, reference = run(eager), run(eager, ref=True)\n" + std::string(repro_text::kOpGuard) +
           actual + std::string(repro_text::kMain);
  }

  const ExportedProgram& p_;
  const ReproRequest& request_;
  std::optional<repro_detail::Submodule> submodule_;
  std::string submodule_not_kept_;  // why the program's preserved submodule is not
  PythonNames names_;
  ScriptNeeds needs_;
  Inputs inputs_;
  std::set<std::string> make_locals_{"storage", "view", "tensor", "ref", "device", "M", "F", "torch"};
  TensorWriter tensors_;
};

}  // namespace

Expected<ReproPath> reproPathOf(std::string_view check) {
  static const std::map<std::string_view, ReproPath> kPaths = {
      {"D1", ReproPath::FunctionalForm}, {"D2", ReproPath::Functionalize}, {"D3", ReproPath::Cuda},
      {"D5", ReproPath::Export},         {"D7", ReproPath::SaveLoad},      {"D8", ReproPath::Decompose}};
  if (auto it = kPaths.find(check); it != kPaths.end()) return it->second;
  const std::string c(check);
  if (c == "D4" || c == "D6") {
    return Diagnostic{"", c + " tests epsmith's own code (its file forms or verifier): "
                              "its findings are epsmith's bugs, with no upstream script"};
  }
  if (c == "D9") {
    return Diagnostic{"",
                      "D9 tests NativeRT's C++ runtime, which this torch has no Python path to; "
                      "its findings keep their C++ reproducer (docs/fuzzing.md, \"D9\")"};
  }
  return Diagnostic{"", "'" + c + "' is not a check that asks PyTorch (D1, D2, D3, D5, D7, D8)"};
}

std::string_view reproPathDescription(ReproPath path) {
  switch (path) {
    case ReproPath::Functionalize: return "torch.func.functionalize (the C++ functionalization kernels)";
    case ReproPath::Cuda: return "the module on CUDA";
    case ReproPath::Export: return "torch.export.export -> .module()";
    case ReproPath::SaveLoad: return "torch.export.export -> save -> load -> .module()";
    case ReproPath::Decompose: return "torch.export.export -> run_decompositions({}) -> .module()";
    case ReproPath::FunctionalForm: return "M's functional form (class F) in eager";
    case ReproPath::NativeRT: return "NativeRT";
  }
  return "";
}

Expected<std::string> writeReproScript(const ExportedProgram& p, const ReproRequest& request) {
  try {
    return ScriptWriter(p, request).script();
  } catch (const Unwritable& e) {
    return Diagnostic{e.where, e.what()};
  }
}

}  // namespace epsmith
