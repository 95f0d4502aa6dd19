// Printer of the text form; the grammar is in docs/text-format.md.
#include <unordered_map>

#include "formats/scalar_format.h"
#include "formats/text_format.h"
#include "ops/op_registry.h"

namespace epsmith {
namespace {

bool isPlainName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string refName(const std::string& name) { return isPlainName(name) ? "%" + name : "%" + quote(name); }

std::string ref(const Node* n) { return n ? refName(n->name()) : std::string("None"); }

// Note [Node lines appended in place]
// Printing is a fifth of what a campaign case's D4 round trip costs. A node line was built
// from a string per argument, per size and per part, each concatenated into the next; the
// appenders below write the common pieces (references, integers, tensor types, the usual
// argument kinds) straight onto the line, and leave the rare ones to the formatters.
void appendNode(std::string& out, const Node& n);  // below, beside formatNode

void appendRef(std::string& out, const Node* n) {
  if (!n) {
    out += "None";
  } else if (isPlainName(n->name())) {
    out += '%';
    out += n->name();
  } else {
    out += refName(n->name());
  }
}

template <typename T, typename F>
std::string joined(const T& items, F&& format) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += format(items[i]);
  }
  return out;
}

std::string formatBool(bool b) { return b ? "True" : "False"; }

std::string formatSymExpr(const SymExpr& e) {
  std::string out = quote(e.expr);
  if (e.hint) {
    out += ", hint=";
    std::visit(
        [&](const auto& h) {
          using H = std::decay_t<decltype(h)>;
          if constexpr (std::is_same_v<H, bool>) {
            out += formatBool(h);
          } else if constexpr (std::is_same_v<H, double>) {
            out += formatFloat(h);
          } else {
            out += std::to_string(h);
          }
        },
        *e.hint);
  }
  return out;
}

std::string formatSymIntValue(const SymIntValue& v) {
  if (v.isConcrete()) return std::to_string(v.concrete());
  return "sym(" + formatSymExpr(v.expr()) + ")";
}

template <typename T>
std::string formatSymScalar(const arg::SymScalar<T>& s) {
  if (!s.isLiteral()) return ref(s.node);
  if constexpr (std::is_same_v<T, bool>) {
    return formatBool(s.literal);
  } else if constexpr (std::is_same_v<T, double>) {
    return formatFloat(s.literal);
  } else {
    return std::to_string(s.literal);
  }
}

std::string formatConstant(const ConstantValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>)
          return "None";
        else if constexpr (std::is_same_v<X, int64_t>)
          return std::to_string(x);
        else if constexpr (std::is_same_v<X, double>)
          return formatFloat(x);
        else if constexpr (std::is_same_v<X, bool>)
          return formatBool(x);
        else
          return quote(x);
      },
      v);
}

// The kind an untagged list literal is read as, given its first element's kind.
template <typename A>
bool needsTag(const A& list) {
  using L = std::decay_t<A>;
  if constexpr (std::is_same_v<L, arg::IntList>) {
    return false;  // an empty untagged list is int[]
  } else if constexpr (std::is_same_v<L, arg::SymIntList> || std::is_same_v<L, arg::SymFloatList> ||
                       std::is_same_v<L, arg::SymBoolList> || std::is_same_v<L, arg::OptionalTensorList>) {
    return true;
  } else if constexpr (std::is_same_v<L, arg::TensorList>) {
    return list.nodes.empty();
  } else {
    return list.values.empty();
  }
}

class Printer {
 public:
  std::string program(const ExportedProgram& p);
  void graph(const Graph& g, int indent);
  std::string tensor(const TensorValue& t);

 private:
  std::string storageId(const std::shared_ptr<Storage>& s);
  void collectStorages(const ExportedProgram& p);
  void collectGraphStorages(const Graph& g);
  void line(int indent, const std::string& text) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    out_ += text;
    out_ += '\n';
  }
  std::string attribute(const std::string& name, const Attribute& a, int indent);
  // The sections after the graph, each left out when empty.
  void programHeader(const ExportedProgram& p);
  void signatureSection(const GraphSignature& sig);
  void moduleCallGraphSection(const std::vector<ModuleCallEntry>& entries);
  void rangeConstraintsSection(const ExportedProgram& p);
  void storagesSection();
  void stateSections(const ExportedProgram& p);
  void exampleInputsSection(const std::vector<InputValue>& inputs);
  // "\nNAME {", the body, "}".
  template <typename Body>
  void section(const char* name, Body&& body) {
    out_ += '\n';
    line(0, std::string(name) + " {");
    body();
    line(0, "}");
  }

  std::string out_;
  std::vector<const Storage*> storages_;
  std::unordered_map<const Storage*, size_t> storage_ids_;
};

std::string Printer::storageId(const std::shared_ptr<Storage>& s) {
  auto it = storage_ids_.find(s.get());
  return "$" + std::to_string(it == storage_ids_.end() ? 0 : it->second);
}

void Printer::collectGraphStorages(const Graph& g) {
  for (const auto& [name, a] : g.attributes()) {
    if (a.tensor && a.tensor->storage && !storage_ids_.count(a.tensor->storage.get())) {
      storage_ids_[a.tensor->storage.get()] = storages_.size();
      storages_.push_back(a.tensor->storage.get());
    }
    if (a.subgraph) collectGraphStorages(*a.subgraph);
  }
}

void Printer::collectStorages(const ExportedProgram& p) {
  auto add = [&](const TensorValue& t) {
    if (t.storage && !storage_ids_.count(t.storage.get())) {
      storage_ids_[t.storage.get()] = storages_.size();
      storages_.push_back(t.storage.get());
    }
  };
  for (const auto& [name, e] : p.state_dict) add(e.tensor);
  for (const auto& [name, c] : p.constants) {
    if (c.tensor) add(*c.tensor);
  }
  for (const auto& in : p.example_inputs) {
    if (in.kind == InputValue::Kind::Tensor) add(in.tensor);
  }
  collectGraphStorages(p.graph());
}

std::string Printer::tensor(const TensorValue& t) {
  TensorMeta m;
  m.dtype = t.dtype();
  m.sizes.assign(t.sizes.begin(), t.sizes.end());
  m.strides.assign(t.strides.begin(), t.strides.end());
  m.storage_offset = t.storage_offset;
  m.requires_grad = t.requires_grad;
  return (t.storage ? storageId(t.storage) + " " : std::string()) + formatTensorMeta(m);
}

std::string Printer::attribute(const std::string& name, const Attribute& a, int indent) {
  std::string head = "attr " + quote(name) + " = ";
  switch (a.kind) {
    case Attribute::Kind::Subgraph:
      line(indent, head + "graph {");
      graph(*a.subgraph, indent + 1);
      line(indent, "}");
      return {};
    case Attribute::Kind::Parameter:
    case Attribute::Kind::Tensor: {
      std::string kw(attributeKindName(a.kind));
      return head + kw + (a.tensor ? " " + tensor(*a.tensor) : std::string());
    }
    case Attribute::Kind::TreeSpec: return head + "treespec(" + quote(a.text) + ")";
    case Attribute::Kind::Module: {
      std::string s = head + "module(" + quote(a.text);
      for (const auto& [field, type] : a.field_types) s += ", " + field + "=" + quote(type);
      if (a.has_original_module) s += ", original_module=True";
      return s + ")";
    }
    case Attribute::Kind::Opaque: return head + "opaque(" + quote(a.text) + ")";
  }
  return head;
}

void Printer::graph(const Graph& g, int indent) {
  for (const auto& n : g.nodes()) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    appendNode(out_, n);
    out_ += '\n';
  }
  for (const auto& [name, a] : g.attributes()) {
    std::string text = attribute(name, a, indent);
    if (!text.empty()) line(indent, text);
  }
}

std::string formatSpecArg(const SpecArg& a) {
  switch (a.kind) {
    case SpecArg::Kind::Tensor: return refName(a.name);
    case SpecArg::Kind::SymInt: return "sym_int(" + refName(a.name) + ")";
    case SpecArg::Kind::SymFloat: return "sym_float(" + refName(a.name) + ")";
    case SpecArg::Kind::SymBool: return "sym_bool(" + refName(a.name) + ")";
    case SpecArg::Kind::CustomObj: return "custom_obj(" + refName(a.name) + ", " + quote(a.class_fqn) + ")";
    case SpecArg::Kind::Token: return "token(" + refName(a.name) + ")";
    case SpecArg::Kind::Constant: return formatConstant(a.value);
  }
  return "?";
}

std::string targetSuffix(const std::optional<std::string>& target) {
  return target ? " -> " + quote(*target) : std::string();
}

void Printer::programHeader(const ExportedProgram& p) {
  const auto quoted = [](const std::string& s) { return quote(s); };
  line(0, "program {");
  line(1, "verifiers [" + joined(p.verifiers, quoted) + "]");
  line(1, "schema_version " + std::to_string(p.schema_version.major) + "." + std::to_string(p.schema_version.minor));
  line(1, "torch_version " + quote(p.torch_version));
  std::string opset;
  for (const auto& [ns, v] : p.opset_version)
    opset += (opset.empty() ? "" : ", ") + quote(ns) + ": " + std::to_string(v);
  line(1, "opset {" + opset + "}");
  if (!p.metadata.empty()) {
    std::string m;
    for (const auto& [k, v] : p.metadata) m += (m.empty() ? "" : ", ") + quote(k) + ": " + quote(v);
    line(1, "metadata {" + m + "}");
  }
  if (!p.guards_code.empty()) line(1, "guards_code [" + joined(p.guards_code, quoted) + "]");
  if (!p.treespec_namedtuple_fields.empty()) {
    std::string m;
    for (const auto& [k, fields] : p.treespec_namedtuple_fields) {
      m += (m.empty() ? "" : ", ") + quote(k) + ": [" + joined(fields, quoted) + "]";
    }
    line(1, "namedtuple_fields {" + m + "}");
  }
  line(0, "}");
}

void Printer::signatureSection(const GraphSignature& sig) {
  if (sig.input_specs.empty() && sig.output_specs.empty()) return;
  section("signature", [&] {
    for (const auto& s : sig.input_specs) {
      if (s.kind == InputKind::UserInput && s.arg.kind == SpecArg::Kind::Constant && !s.arg.name.empty()) {
        line(1, "input constant_input " + quote(s.arg.name) + " = " + formatConstant(s.arg.value));
        continue;
      }
      std::string text =
          "input " + std::string(inputKindName(s.kind)) + " " + formatSpecArg(s.arg) + targetSuffix(s.target);
      if (s.persistent) text += " persistent=" + formatBool(*s.persistent);
      line(1, text);
    }
    for (const auto& s : sig.output_specs) {
      line(1, "output " + std::string(outputKindName(s.kind)) + " " + formatSpecArg(s.arg) + targetSuffix(s.target));
    }
  });
}

void Printer::moduleCallGraphSection(const std::vector<ModuleCallEntry>& entries) {
  if (entries.empty()) return;
  section("module_call_graph", [&] {
    for (const auto& e : entries) {
      std::string text = "entry " + quote(e.fqn);
      if (e.signature) {
        const auto& s = *e.signature;
        text += " inputs=[" + joined(s.inputs, formatSpecArg) + "]";
        text += " outputs=[" + joined(s.outputs, formatSpecArg) + "]";
        text += " in_spec=" + quote(s.in_spec) + " out_spec=" + quote(s.out_spec);
        if (s.forward_arg_names) {
          text += " forward_arg_names=[" + joined(*s.forward_arg_names, [](const std::string& n) { return quote(n); }) +
                  "]";
        }
      }
      line(1, text);
    }
  });
}

void Printer::rangeConstraintsSection(const ExportedProgram& p) {
  if (p.range_constraints.empty()) return;
  section("range_constraints", [&] {
    auto bound = [](const std::optional<int64_t>& b) { return b ? std::to_string(*b) : std::string("null"); };
    for (const auto& [sym, r] : p.range_constraints) {
      line(1, quote(sym) + " = [" + bound(r.min_val) + ", " + bound(r.max_val) + "]");
    }
  });
}

void Printer::storagesSection() {
  if (storages_.empty()) return;
  section("storages", [&] {
    for (size_t i = 0; i < storages_.size(); ++i) {
      const Storage& s = *storages_[i];
      out_ += "  $" + std::to_string(i) + ": " + std::string(shortName(s.dtype)) + "[" + std::to_string(s.numel()) +
              "] = [";
      const auto size = static_cast<size_t>(elementSize(s.dtype));
      for (size_t off = 0; size && off + size <= s.bytes.size(); off += size) {
        if (off) out_ += ", ";
        appendElement(out_, s.dtype, s.bytes.data() + off);
      }
      out_ += "]\n";
    }
  });
}

// The state dict, then the constants.
void Printer::stateSections(const ExportedProgram& p) {
  if (!p.state_dict.empty()) {
    section("state", [&] {
      for (const auto& [name, e] : p.state_dict) {
        line(1, std::string(e.is_parameter ? "parameter " : "buffer ") + quote(name) + " = " + tensor(e.tensor));
      }
    });
  }
  if (!p.constants.empty()) {
    section("constants", [&] {
      for (const auto& [name, c] : p.constants) {
        line(1, quote(name) + " = " + (c.tensor ? tensor(*c.tensor) : "custom_obj(" + quote(c.class_fqn) + ")"));
      }
    });
  }
}

void Printer::exampleInputsSection(const std::vector<InputValue>& inputs) {
  if (inputs.empty()) return;
  section("example_inputs", [&] {
    for (const auto& in : inputs) {
      switch (in.kind) {
        case InputValue::Kind::Tensor: line(1, tensor(in.tensor)); break;
        case InputValue::Kind::Int: line(1, std::to_string(in.i)); break;
        case InputValue::Kind::Float: line(1, formatFloat(in.f)); break;
        case InputValue::Kind::Bool: line(1, formatBool(in.b)); break;
        case InputValue::Kind::None: line(1, "None"); break;
      }
    }
  });
}

std::string Printer::program(const ExportedProgram& p) {
  collectStorages(p);
  programHeader(p);
  section("graph", [&] { graph(p.graph(), 1); });
  signatureSection(p.signature);
  moduleCallGraphSection(p.module_call_graph);
  rangeConstraintsSection(p);
  storagesSection();
  stateSections(p);
  exampleInputsSection(p.example_inputs);
  return std::move(out_);
}

}  // namespace

namespace {

void appendTensorMeta(std::string& out, const TensorMeta& m) {
  out += shortName(m.dtype);
  out += '[';
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    if (i) out += ", ";
    if (m.sizes[i].isConcrete())
      appendInt(out, m.sizes[i].concrete());
    else
      out += formatSymIntValue(m.sizes[i]);
  }
  out += ']';
  const bool strided = !m.hasContiguousStrides(), offset = !(m.storage_offset == SymIntValue(0));
  if (!strided && !offset && m.device == Device{} && !m.requires_grad && m.layout == Layout::Strided) return;
  std::vector<std::string> attrs;
  if (strided) attrs.push_back("stride=[" + joined(m.strides, formatSymIntValue) + "]");
  if (offset) attrs.push_back("offset=" + formatSymIntValue(m.storage_offset));
  if (m.device != Device{}) attrs.push_back("device=" + quote(m.device.str()));
  if (m.requires_grad) attrs.push_back("requires_grad=True");
  if (m.layout != Layout::Strided) attrs.push_back("layout=" + std::string(torchName(m.layout)));
  out += "<" + joined(attrs, [](const std::string& s) { return s; }) + ">";
}

}  // namespace

std::string formatTensorMeta(const TensorMeta& m) {
  std::string out;
  appendTensorMeta(out, m);
  return out;
}

namespace {

// Values and arguments are appended in place (Note [Node lines appended in place]).
void appendVal(std::string& out, const Val& v) {
  std::visit(
      [&out](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Val::Missing>)
          out += "<missing>";
        else if constexpr (std::is_same_v<X, Val::None>)
          out += "None";
        else if constexpr (std::is_same_v<X, TensorMeta>)
          appendTensorMeta(out, x);
        else if constexpr (std::is_same_v<X, Val::List>) {
          out += '(';
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) out += ", ";
            appendVal(out, x[i]);
          }
          out += x.size() == 1 ? ",)" : ")";
        } else if constexpr (std::is_same_v<X, int64_t>)
          appendInt(out, x);
        else if constexpr (std::is_same_v<X, double>)
          out += formatFloat(x);
        else if constexpr (std::is_same_v<X, bool>)
          out += formatBool(x);
        else if constexpr (std::is_same_v<X, std::string>)
          out += quote(x);
        else if constexpr (std::is_same_v<X, ScalarType>)
          out += torchName(x);
        else if constexpr (std::is_same_v<X, Device>)
          out += "device(" + quote(x.str()) + ")";
        else if constexpr (std::is_same_v<X, Layout>)
          out += torchName(x);
        else if constexpr (std::is_same_v<X, MemoryFormat>)
          out += torchName(x);
        else if constexpr (std::is_same_v<X, Val::SymInt>)
          out += "sym_int(" + formatSymExpr(x.expr) + ")";
        else if constexpr (std::is_same_v<X, Val::SymFloat>)
          out += "sym_float(" + formatSymExpr(x.expr) + ")";
        else if constexpr (std::is_same_v<X, Val::SymBool>)
          out += "sym_bool(" + formatSymExpr(x.expr) + ")";
        else if constexpr (std::is_same_v<X, Val::CustomObj>)
          out += "custom_obj(" + quote(x.class_fqn) + ")";
        else
          out += "opaque(" + quote(x.type_name) + ")";
      },
      v.variant());
}

void appendArgument(std::string& out, const Argument& a) {
  std::visit(
      [&out](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        auto tagged = [](bool need_tag, const char* tag, const std::string& body) {
          return (need_tag ? std::string(tag) : std::string()) + "[" + body + "]";
        };
        if constexpr (std::is_same_v<X, arg::None>)
          out += "None";
        else if constexpr (std::is_same_v<X, arg::Tensor>)
          appendRef(out, x.node);
        else if constexpr (std::is_same_v<X, arg::TensorList>)
          out += tagged(needsTag(x), "tensors", joined(x.nodes, ref));
        else if constexpr (std::is_same_v<X, arg::OptionalTensor>)
          out += "optional(" + ref(x.node) + ")";
        else if constexpr (std::is_same_v<X, arg::OptionalTensorList>)
          out += tagged(needsTag(x), "optional", joined(x.nodes, ref));
        else if constexpr (std::is_same_v<X, arg::Int>)
          appendInt(out, x.value);
        else if constexpr (std::is_same_v<X, arg::IntList>) {
          out += '[';  // an untagged list is read as ints: never tagged (needsTag)
          for (size_t i = 0; i < x.values.size(); ++i) {
            if (i) out += ", ";
            appendInt(out, x.values[i]);
          }
          out += ']';
        } else if constexpr (std::is_same_v<X, arg::Float>)
          out += formatFloat(x.value);
        else if constexpr (std::is_same_v<X, arg::FloatList>)
          out += tagged(needsTag(x), "floats", joined(x.values, formatFloat));
        else if constexpr (std::is_same_v<X, arg::Bool>)
          out += formatBool(x.value);
        else if constexpr (std::is_same_v<X, arg::BoolList>) {
          std::vector<bool> values = x.values;
          std::string body;
          for (size_t i = 0; i < values.size(); ++i) body += (i ? ", " : "") + formatBool(values[i]);
          out += tagged(needsTag(x), "bools", body);
        } else if constexpr (std::is_same_v<X, arg::String>)
          out += quote(x.value);
        else if constexpr (std::is_same_v<X, arg::StringList>) {
          out += tagged(needsTag(x), "strings", joined(x.values, [](const std::string& s) { return quote(s); }));
        } else if constexpr (std::is_same_v<X, arg::SymInt>)
          out += "sym_int(" + formatSymScalar(x.value) + ")";
        else if constexpr (std::is_same_v<X, arg::SymIntList>)
          out += tagged(needsTag(x), "sym_ints", joined(x.values, formatSymScalar<int64_t>));
        else if constexpr (std::is_same_v<X, arg::SymFloat>)
          out += "sym_float(" + formatSymScalar(x.value) + ")";
        else if constexpr (std::is_same_v<X, arg::SymFloatList>)
          out += tagged(needsTag(x), "sym_floats", joined(x.values, formatSymScalar<double>));
        else if constexpr (std::is_same_v<X, arg::SymBool>)
          out += "sym_bool(" + formatSymScalar(x.value) + ")";
        else if constexpr (std::is_same_v<X, arg::SymBoolList>)
          out += tagged(needsTag(x), "sym_bools", joined(x.values, formatSymScalar<bool>));
        else if constexpr (std::is_same_v<X, arg::Dtype>)
          out += torchName(x.value);
        else if constexpr (std::is_same_v<X, arg::MemFormat>)
          out += torchName(x.value);
        else if constexpr (std::is_same_v<X, arg::TensorLayout>)
          out += torchName(x.value);
        else if constexpr (std::is_same_v<X, arg::DeviceArg>)
          out += "device(" + quote(x.value.str()) + ")";
        else if constexpr (std::is_same_v<X, arg::Graph>)
          out += "graph(" + ref(x.node) + ")";
        else if constexpr (std::is_same_v<X, arg::CustomObj>)
          out += "custom_obj(" + ref(x.node) + ", " + quote(x.class_fqn) + ")";
        else if constexpr (std::is_same_v<X, arg::Operator>)
          out += "operator(" + quote(x.name) + ")";
        else
          out += "complex(" + formatFloat(x.real) + ", " + formatFloat(x.imag) + ")";
      },
      a.variant());
}

}  // namespace

std::string formatVal(const Val& v) {
  std::string out;
  appendVal(out, v);
  return out;
}

std::string formatArgument(const Argument& a) {
  std::string out;
  appendArgument(out, a);
  return out;
}

namespace {

void appendNode(std::string& out, const Node& n) {
  auto args = [&] {
    out += '(';
    bool first = true;
    for (const auto& a : n.args) {
      if (!first) out += ", ";
      first = false;
      appendArgument(out, a);
    }
    for (const auto& [k, v] : n.kwargs) {
      if (!first) out += ", ";
      first = false;
      out += k;
      out += '=';
      appendArgument(out, v);
    }
    out += ')';
  };
  auto head = [&] {  // %name: val
    appendRef(out, &n);
    if (!n.meta.val.isMissing()) {
      out += ": ";
      appendVal(out, n.meta.val);
    }
  };
  switch (n.op()) {
    case OpKind::Output:
      out += "return";
      if (n.name() != "output" || !n.meta.val.isMissing()) {
        out += '[';
        head();
        out += ']';
      }
      out += ' ';
      if (n.owningGraph()->returns_one_value && n.args.size() == 1 && n.kwargs.empty()) {
        appendArgument(out, n.args[0]);
      } else {
        args();
      }
      break;
    case OpKind::Placeholder:
      head();
      out += " = placeholder";
      break;
    case OpKind::GetAttr:
      head();
      out += " = get_attr(" + quote(n.attr) + ")";
      break;
    case OpKind::CallModule:
      head();
      out += " = call_module(" + quote(n.attr) + ")";
      args();
      break;
    case OpKind::CallMethod:
      head();
      out += " = call_method(" + quote(n.attr) + ")";
      args();
      break;
    case OpKind::CallFunction:
      head();
      out += " = ";
      out += n.target.kind() == Target::Kind::Aten ? n.target.op()->name() : n.target.textName();
      args();
      break;
  }
  std::vector<std::string> meta;
  if (n.meta.stack_trace) meta.push_back("stack_trace=" + quote(*n.meta.stack_trace));
  if (n.meta.nn_module_stack) {
    meta.push_back("nn_module_stack=[" +
                   joined(*n.meta.nn_module_stack,
                          [](const ModuleStackEntry& e) {
                            return "(" + quote(e.key) + ", " + quote(e.path) + ", " + quote(e.type) + ")";
                          }) +
                   "]");
  }
  if (n.meta.torch_fn) {
    meta.push_back("torch_fn=(" + quote(n.meta.torch_fn->first) + ", " + quote(n.meta.torch_fn->second) + ")");
  }
  if (!n.meta.custom.empty()) {
    std::string m;
    for (const auto& [k, v] : n.meta.custom) m += (m.empty() ? "" : ", ") + quote(k) + ": " + quote(v);
    meta.push_back("custom={" + m + "}");
  }
  if (!meta.empty()) out += " {" + joined(meta, [](const std::string& s) { return s; }) + "}";
}

}  // namespace

std::string formatNode(const Node& n) {
  std::string out;
  appendNode(out, n);
  return out;
}

std::string printProgramText(const ExportedProgram& p) { return Printer().program(p); }

}  // namespace epsmith
