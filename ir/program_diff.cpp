// See program_diff.h.
#include "ir/program_diff.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <type_traits>

namespace epsmith {
namespace {

bool sameFloat(double a, double b) {
  return (a == b && std::signbit(a) == std::signbit(b)) || (std::isnan(a) && std::isnan(b));
}

bool sameNode(const Node* a, const Node* b) { return a == b || (a && b && a->name() == b->name()); }

template <typename T>
bool sameSym(const arg::SymScalar<T>& a, const arg::SymScalar<T>& b) {
  if (a.node || b.node) return sameNode(a.node, b.node);
  if constexpr (std::is_same_v<T, double>) {
    return sameFloat(a.literal, b.literal);
  } else {
    return a.literal == b.literal;
  }
}

template <typename T, typename Same>
bool sameList(const std::vector<T>& a, const std::vector<T>& b, Same same) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same(a[i], b[i])) return false;
  }
  return true;
}

bool sameArgument(const Argument& a, const Argument& b) {
  if (a.kind() != b.kind()) return false;
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        const X& y = *b.get<X>();
        if constexpr (std::is_same_v<X, arg::None>) {
          return true;
        } else if constexpr (std::is_same_v<X, arg::Tensor> || std::is_same_v<X, arg::OptionalTensor> ||
                             std::is_same_v<X, arg::Graph>) {
          return sameNode(x.node, y.node);
        } else if constexpr (std::is_same_v<X, arg::TensorList> || std::is_same_v<X, arg::OptionalTensorList>) {
          return sameList(x.nodes, y.nodes, sameNode);
        } else if constexpr (std::is_same_v<X, arg::Float>) {
          return sameFloat(x.value, y.value);
        } else if constexpr (std::is_same_v<X, arg::FloatList>) {
          return sameList(x.values, y.values, sameFloat);
        } else if constexpr (std::is_same_v<X, arg::SymInt> || std::is_same_v<X, arg::SymFloat> ||
                             std::is_same_v<X, arg::SymBool>) {
          return sameSym(x.value, y.value);
        } else if constexpr (std::is_same_v<X, arg::SymIntList> || std::is_same_v<X, arg::SymFloatList> ||
                             std::is_same_v<X, arg::SymBoolList>) {
          return sameList(x.values, y.values, [](const auto& s, const auto& t) { return sameSym(s, t); });
        } else if constexpr (std::is_same_v<X, arg::CustomObj>) {
          return sameNode(x.node, y.node) && x.class_fqn == y.class_fqn;
        } else if constexpr (std::is_same_v<X, arg::Operator>) {
          return x.name == y.name;
        } else if constexpr (std::is_same_v<X, arg::Complex>) {
          return sameFloat(x.real, y.real) && sameFloat(x.imag, y.imag);
        } else if constexpr (std::is_same_v<X, arg::IntList> || std::is_same_v<X, arg::BoolList> ||
                             std::is_same_v<X, arg::StringList>) {
          return x.values == y.values;
        } else {
          return x.value == y.value;  // int, bool, string, dtype, memory format, layout, device
        }
      },
      a.variant());
}

// Which storage of `b` each storage of `a` stands for, both ways: tensors that share a
// storage in one program must share it in the other.
struct StoragePairs {
  std::map<const Storage*, const Storage*> forward, backward;
};

std::string tensorDiff(const TensorValue& a, const TensorValue& b, const std::string& where, StoragePairs& pairs) {
  if (a.sizes != b.sizes || a.strides != b.strides || a.storage_offset != b.storage_offset ||
      a.requires_grad != b.requires_grad) {
    return where + ": view differs";
  }
  if (!a.storage || !b.storage) return a.storage || b.storage ? where + ": storage presence differs" : "";
  if (a.storage->dtype != b.storage->dtype || a.storage->bytes != b.storage->bytes) {
    return where + ": storage contents differ";
  }
  auto f = pairs.forward.emplace(a.storage.get(), b.storage.get()).first;
  auto r = pairs.backward.emplace(b.storage.get(), a.storage.get()).first;
  if (f->second != b.storage.get() || r->second != a.storage.get()) return where + ": storage sharing differs";
  return "";
}

// The first difference between two nodes; "" (and nothing built) when they agree.
std::string nodeDiff(const Node& a, const Node& b) {
  if (nodesAgree(a, b)) return "";
  const std::string where = "node " + a.name();
  if (a.name() != b.name()) return where + ": name differs (" + b.name() + ")";
  if (a.op() != b.op()) return where + ": op differs";
  if (a.target != b.target) return where + ": target differs (" + b.target.textName() + ")";
  if (a.attr != b.attr) return where + ": attr differs";
  if (a.args.size() != b.args.size()) return where + ": argument count differs";
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!sameArgument(a.args[i], b.args[i])) return where + ": argument " + std::to_string(i) + " differs";
  }
  if (a.kwargs.size() != b.kwargs.size()) return where + ": keyword argument count differs";
  for (size_t i = 0; i < a.kwargs.size(); ++i) {
    if (a.kwargs[i].first != b.kwargs[i].first || !sameArgument(a.kwargs[i].second, b.kwargs[i].second)) {
      return where + ": keyword argument " + a.kwargs[i].first + " differs";
    }
  }
  return where + ": meta differs";
}

std::string graphDiff(const Graph& a, const Graph& b, const std::string& path, StoragePairs& pairs) {
  const std::string where = "graph '" + path + "'";
  auto ia = a.nodes().begin(), ib = b.nodes().begin();
  for (; ia != a.nodes().end() && ib != b.nodes().end(); ++ia, ++ib) {
    if (auto d = nodeDiff(*ia, *ib); !d.empty()) return where + ": " + d;
  }
  if (ia != a.nodes().end()) return where + ": node " + ia->name() + " missing";
  if (ib != b.nodes().end()) return where + ": node " + ib->name() + " added";
  if (a.returns_one_value != b.returns_one_value) return where + ": one returns its value bare, the other in a tuple";
  if (a.attributes().size() != b.attributes().size()) return where + ": attributes differ";
  for (const auto& [name, x] : a.attributes()) {
    const Attribute* y = b.attribute(name);
    const std::string at = "attribute " + path + "/" + name;
    if (!y) return at + " missing";
    if (x.kind != y->kind || x.text != y->text || x.field_types != y->field_types ||
        x.has_original_module != y->has_original_module || x.tensor.has_value() != y->tensor.has_value() ||
        !x.subgraph != !y->subgraph) {
      return at + " differs";
    }
    if (x.tensor) {
      if (auto d = tensorDiff(*x.tensor, *y->tensor, at, pairs); !d.empty()) return d;
    }
    if (x.subgraph) {
      if (auto d = graphDiff(*x.subgraph, *y->subgraph, path + "/" + name, pairs); !d.empty()) return d;
    }
  }
  return "";
}

std::string inputDiff(const InputValue& x, const InputValue& y, const std::string& where, StoragePairs& pairs) {
  if (x.kind != y.kind) return where + ": kind differs";
  switch (x.kind) {
    case InputValue::Kind::Tensor: return tensorDiff(x.tensor, y.tensor, where, pairs);
    case InputValue::Kind::Int: return x.i == y.i ? "" : where + ": value differs";
    case InputValue::Kind::Float: return sameFloat(x.f, y.f) ? "" : where + ": value differs";
    case InputValue::Kind::Bool: return x.b == y.b ? "" : where + ": value differs";
    case InputValue::Kind::None: return "";
  }
  return "";
}

// A spec's argument; a constant NaN equals itself (the text_parser libFuzzer target found a
// NaN constant among a module call signature's inputs that == called changed).
bool sameSpecArg(const SpecArg& a, const SpecArg& b) {
  if (a.kind != b.kind || a.name != b.name || a.class_fqn != b.class_fqn) return false;
  const double* x = std::get_if<double>(&a.value);
  const double* y = std::get_if<double>(&b.value);
  return x && y ? sameFloat(*x, *y) : a.value == b.value;
}

bool sameSignature(const GraphSignature& a, const GraphSignature& b) {
  return sameList(a.input_specs, b.input_specs,
                  [](const InputSpec& x, const InputSpec& y) {
                    return x.kind == y.kind && sameSpecArg(x.arg, y.arg) && x.target == y.target &&
                           x.persistent == y.persistent;
                  }) &&
         sameList(a.output_specs, b.output_specs, [](const OutputSpec& x, const OutputSpec& y) {
           return x.kind == y.kind && sameSpecArg(x.arg, y.arg) && x.target == y.target;
         });
}

bool sameCallSignature(const ModuleCallSignature& x, const ModuleCallSignature& y) {
  return sameList(x.inputs, y.inputs, sameSpecArg) && sameList(x.outputs, y.outputs, sameSpecArg) &&
         x.in_spec == y.in_spec && x.out_spec == y.out_spec && x.forward_arg_names == y.forward_arg_names;
}

}  // namespace

bool nodesAgree(const Node& a, const Node& b) {
  if (a.name() != b.name() || a.op() != b.op() || a.target != b.target || a.attr != b.attr ||
      a.args.size() != b.args.size() || a.kwargs.size() != b.kwargs.size()) {
    return false;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!sameArgument(a.args[i], b.args[i])) return false;
  }
  for (size_t i = 0; i < a.kwargs.size(); ++i) {
    if (a.kwargs[i].first != b.kwargs[i].first || !sameArgument(a.kwargs[i].second, b.kwargs[i].second)) return false;
  }
  return a.meta == b.meta;
}

std::string programDiff(const ExportedProgram& a, const ExportedProgram& b) {
  StoragePairs pairs;
  if (auto d = graphDiff(a.graph(), b.graph(), "", pairs); !d.empty()) return d;
  if (!sameSignature(a.signature, b.signature)) return "graph signature differs";
  if (a.state_dict.size() != b.state_dict.size()) return "state dict sizes differ";
  for (const auto& [fqn, e] : a.state_dict) {
    auto it = b.state_dict.find(fqn);
    if (it == b.state_dict.end()) return "state " + fqn + " missing";
    if (it->second.is_parameter != e.is_parameter) return "state " + fqn + ": parameter or buffer differs";
    if (auto d = tensorDiff(e.tensor, it->second.tensor, "state " + fqn, pairs); !d.empty()) return d;
  }
  if (a.constants.size() != b.constants.size()) return "constant counts differ";
  for (const auto& [name, c] : a.constants) {
    auto it = b.constants.find(name);
    if (it == b.constants.end()) return "constant " + name + " missing";
    if (it->second.class_fqn != c.class_fqn || it->second.tensor.has_value() != c.tensor.has_value()) {
      return "constant " + name + " differs";
    }
    if (c.tensor) {
      if (auto d = tensorDiff(*c.tensor, *it->second.tensor, "constant " + name, pairs); !d.empty()) return d;
    }
  }
  if (a.example_inputs.size() != b.example_inputs.size()) return "example input counts differ";
  for (size_t i = 0; i < a.example_inputs.size(); ++i) {
    const std::string where = "example input " + std::to_string(i);
    if (auto d = inputDiff(a.example_inputs[i], b.example_inputs[i], where, pairs); !d.empty()) return d;
  }
  if (a.module_call_graph.size() != b.module_call_graph.size()) return "module call graph sizes differ";
  for (size_t i = 0; i < a.module_call_graph.size(); ++i) {
    const auto &x = a.module_call_graph[i], &y = b.module_call_graph[i];
    if (x.fqn != y.fqn || x.signature.has_value() != y.signature.has_value() ||
        (x.signature && !sameCallSignature(*x.signature, *y.signature))) {
      return "module call graph entry '" + x.fqn + "' differs";
    }
  }
  if (a.range_constraints.size() != b.range_constraints.size()) return "range constraint counts differ";
  for (const auto& [symbol, r] : a.range_constraints) {
    auto it = b.range_constraints.find(symbol);
    if (it == b.range_constraints.end() || it->second.min_val != r.min_val || it->second.max_val != r.max_val) {
      return "range constraint " + symbol + " differs";
    }
  }
  if (a.verifiers != b.verifiers) return "verifiers differ";
  if (a.schema_version.major != b.schema_version.major || a.schema_version.minor != b.schema_version.minor) {
    return "schema versions differ";
  }
  if (a.opset_version != b.opset_version) return "opset versions differ";
  if (a.torch_version != b.torch_version) return "torch versions differ";
  if (a.guards_code != b.guards_code) return "guards differ";
  if (a.metadata != b.metadata) return "graph module metadata differs";
  if (a.treespec_namedtuple_fields != b.treespec_namedtuple_fields) return "namedtuple fields differ";
  return "";
}

}  // namespace epsmith
