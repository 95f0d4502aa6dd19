// Builders, structural diff and the round-trip check for the JSON format tests.
#include "tests/ir/json_test_util.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace epsmith::testing {
namespace {

std::string nodeName(const Node* n) { return n ? "%" + n->name() : "null"; }

std::string floatText(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

template <typename T>
std::string symText(const arg::SymScalar<T>& s) {
  if (s.node) return nodeName(s.node);
  if constexpr (std::is_same_v<T, double>) {
    return floatText(s.literal);
  } else {
    return std::to_string(s.literal);
  }
}

// A canonical spelling of an argument, with node references by name.
std::string argString(const Argument& a) {
  std::ostringstream out;
  out << serializedTag(a.kind()) << ":";
  auto list = [&](const auto& values, auto each) {
    out << "[";
    for (const auto& v : values) out << each(v) << ",";
    out << "]";
  };
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, arg::Tensor> || std::is_same_v<X, arg::OptionalTensor> ||
                      std::is_same_v<X, arg::Graph>) {
          out << nodeName(x.node);
        } else if constexpr (std::is_same_v<X, arg::TensorList> ||
                             std::is_same_v<X, arg::OptionalTensorList>) {
          list(x.nodes, nodeName);
        } else if constexpr (std::is_same_v<X, arg::Int> || std::is_same_v<X, arg::Bool>) {
          out << x.value;
        } else if constexpr (std::is_same_v<X, arg::IntList>) {
          list(x.values, [](int64_t v) { return std::to_string(v); });
        } else if constexpr (std::is_same_v<X, arg::BoolList>) {
          list(x.values, [](bool v) { return std::to_string(v); });
        } else if constexpr (std::is_same_v<X, arg::Float>) {
          out << floatText(x.value);
        } else if constexpr (std::is_same_v<X, arg::FloatList>) {
          list(x.values, floatText);
        } else if constexpr (std::is_same_v<X, arg::String>) {
          out << '"' << x.value << '"';
        } else if constexpr (std::is_same_v<X, arg::StringList>) {
          list(x.values, [](const std::string& v) { return '"' + v + '"'; });
        } else if constexpr (std::is_same_v<X, arg::SymInt> || std::is_same_v<X, arg::SymFloat> ||
                             std::is_same_v<X, arg::SymBool>) {
          out << symText(x.value);
        } else if constexpr (std::is_same_v<X, arg::SymIntList> ||
                             std::is_same_v<X, arg::SymFloatList> ||
                             std::is_same_v<X, arg::SymBoolList>) {
          list(x.values, [](const auto& s) { return symText(s); });
        } else if constexpr (std::is_same_v<X, arg::Dtype> || std::is_same_v<X, arg::MemFormat> ||
                             std::is_same_v<X, arg::TensorLayout>) {
          out << static_cast<int>(x.value);
        } else if constexpr (std::is_same_v<X, arg::DeviceArg>) {
          out << x.value.str();
        } else if constexpr (std::is_same_v<X, arg::CustomObj>) {
          out << nodeName(x.node) << "," << x.class_fqn;
        } else if constexpr (std::is_same_v<X, arg::Operator>) {
          out << x.name;
        } else if constexpr (std::is_same_v<X, arg::Complex>) {
          out << floatText(x.real) << "," << floatText(x.imag);
        }
      },
      a.variant());
  return out.str();
}

struct DiffContext {
  std::map<const Storage*, const Storage*> forward, backward;
};

std::string tensorDiff(const TensorValue& a, const TensorValue& b, const std::string& where,
                       DiffContext& ctx) {
  if (a.sizes != b.sizes || a.strides != b.strides || a.storage_offset != b.storage_offset ||
      a.requires_grad != b.requires_grad) {
    return where + ": view differs";
  }
  if (!a.storage || !b.storage) {
    return a.storage || b.storage ? where + ": storage presence differs" : "";
  }
  if (a.storage->dtype != b.storage->dtype || a.storage->bytes != b.storage->bytes) {
    return where + ": storage contents differ";
  }
  auto f = ctx.forward.emplace(a.storage.get(), b.storage.get()).first;
  auto r = ctx.backward.emplace(b.storage.get(), a.storage.get()).first;
  if (f->second != b.storage.get() || r->second != a.storage.get()) {
    return where + ": storage sharing differs";
  }
  return "";
}

std::string nodeDiff(const Node& a, const Node& b) {
  const std::string where = "node " + a.name();
  if (a.name() != b.name()) return where + ": name differs (" + b.name() + ")";
  if (a.op() != b.op()) return where + ": op differs";
  if (a.target != b.target) return where + ": target differs (" + b.target.textName() + ")";
  if (a.attr != b.attr) return where + ": attr differs";
  if (a.args.size() != b.args.size()) return where + ": argument count differs";
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (argString(a.args[i]) != argString(b.args[i])) {
      return where + ": arg " + std::to_string(i) + " " + argString(a.args[i]) + " vs " +
             argString(b.args[i]);
    }
  }
  if (a.kwargs.size() != b.kwargs.size()) return where + ": kwarg count differs";
  for (size_t i = 0; i < a.kwargs.size(); ++i) {
    if (a.kwargs[i].first != b.kwargs[i].first ||
        argString(a.kwargs[i].second) != argString(b.kwargs[i].second)) {
      return where + ": kwarg " + a.kwargs[i].first + " differs";
    }
  }
  if (!(a.meta == b.meta)) return where + ": meta differs";
  return "";
}

std::string graphDiff(const Graph& a, const Graph& b, const std::string& path, DiffContext& ctx) {
  auto names = [](const Graph& g) {
    std::string s;
    for (const auto& n : g.nodes()) s += n.name() + " ";
    return s;
  };
  if (a.size() != b.size()) {
    return "graph '" + path + "': nodes [" + names(a) + "] vs [" + names(b) + "]";
  }
  for (auto ia = a.nodes().begin(), ib = b.nodes().begin(); ia != a.nodes().end(); ++ia, ++ib) {
    if (auto d = nodeDiff(*ia, *ib); !d.empty()) return "graph '" + path + "': " + d;
  }
  if (a.attributes().size() != b.attributes().size()) return "graph '" + path + "': attributes differ";
  for (const auto& [name, x] : a.attributes()) {
    const Attribute* y = b.attribute(name);
    const std::string where = "attribute " + path + "/" + name;
    if (!y) return where + " missing";
    if (x.kind != y->kind || x.text != y->text || x.field_types != y->field_types ||
        x.has_original_module != y->has_original_module ||
        x.tensor.has_value() != y->tensor.has_value() || !x.subgraph != !y->subgraph) {
      return where + " differs";
    }
    if (x.tensor) {
      if (auto d = tensorDiff(*x.tensor, *y->tensor, where, ctx); !d.empty()) return d;
    }
    if (x.subgraph) {
      if (auto d = graphDiff(*x.subgraph, *y->subgraph, path + "/" + name, ctx); !d.empty()) return d;
    }
  }
  return "";
}

bool sameFloat(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

Target target(const std::string& name) {
  std::string error;
  auto t = Target::parse(name, &error);
  EXPECT_TRUE(t) << name << ": " << error;
  return t ? *t : Target();
}

Node* placeholder(Graph& g, const std::string& name, Val val) {
  Node* n = g.append(OpKind::Placeholder, name);
  n->meta.val = std::move(val);
  return n;
}

Node* call(Graph& g, const std::string& name, const std::string& target_name,
           std::vector<Argument> args, Val val,
           std::vector<std::pair<std::string, Argument>> kwargs) {
  Node* n = g.append(OpKind::CallFunction, name);
  n->target = target(target_name);
  n->args = std::move(args);
  n->kwargs = std::move(kwargs);
  n->meta.val = std::move(val);
  return n;
}

Node* output(Graph& g, std::vector<Argument> args) {
  Node* n = g.append(OpKind::Output, "output");
  n->args = std::move(args);
  return n;
}

TensorMeta f32(std::vector<int64_t> sizes) {
  return TensorMeta::contiguous(ScalarType::Float, std::move(sizes));
}

TensorValue tensorOf(ScalarType dtype, std::vector<int64_t> sizes, std::vector<uint8_t> bytes) {
  TensorValue t = TensorValue::zeros(dtype, std::move(sizes));
  t.storage->bytes = std::move(bytes);
  return t;
}

std::string programDiff(const ExportedProgram& a, const ExportedProgram& b) {
  DiffContext ctx;
  if (auto d = graphDiff(a.graph(), b.graph(), "", ctx); !d.empty()) return d;
  if (!(a.signature == b.signature)) return "signature differs";
  if (a.state_dict.size() != b.state_dict.size()) return "state_dict size differs";
  for (const auto& [fqn, e] : a.state_dict) {
    auto it = b.state_dict.find(fqn);
    if (it == b.state_dict.end() || it->second.is_parameter != e.is_parameter) {
      return "state_dict entry " + fqn + " differs";
    }
    if (auto d = tensorDiff(e.tensor, it->second.tensor, "state " + fqn, ctx); !d.empty()) return d;
  }
  if (a.constants.size() != b.constants.size()) return "constants size differs";
  for (const auto& [name, c] : a.constants) {
    auto it = b.constants.find(name);
    if (it == b.constants.end() || it->second.class_fqn != c.class_fqn ||
        it->second.tensor.has_value() != c.tensor.has_value()) {
      return "constant " + name + " differs";
    }
    if (c.tensor) {
      if (auto d = tensorDiff(*c.tensor, *it->second.tensor, "constant " + name, ctx); !d.empty()) {
        return d;
      }
    }
  }
  if (a.example_inputs.size() != b.example_inputs.size()) return "example_inputs size differs";
  for (size_t i = 0; i < a.example_inputs.size(); ++i) {
    const auto &x = a.example_inputs[i], &y = b.example_inputs[i];
    const std::string where = "example input " + std::to_string(i);
    if (x.kind != y.kind) return where + ": kind differs";
    if ((x.kind == InputValue::Kind::Int && x.i != y.i) ||
        (x.kind == InputValue::Kind::Float && !sameFloat(x.f, y.f)) ||
        (x.kind == InputValue::Kind::Bool && x.b != y.b)) {
      return where + ": value differs";
    }
    if (x.kind == InputValue::Kind::Tensor) {
      if (auto d = tensorDiff(x.tensor, y.tensor, where, ctx); !d.empty()) return d;
    }
  }
  if (a.module_call_graph.size() != b.module_call_graph.size()) return "module_call_graph differs";
  for (size_t i = 0; i < a.module_call_graph.size(); ++i) {
    const auto &x = a.module_call_graph[i], &y = b.module_call_graph[i];
    if (x.fqn != y.fqn || x.signature.has_value() != y.signature.has_value()) {
      return "module_call_graph entry " + x.fqn + " differs";
    }
    if (x.signature &&
        (x.signature->inputs != y.signature->inputs || x.signature->outputs != y.signature->outputs ||
         x.signature->in_spec != y.signature->in_spec ||
         x.signature->out_spec != y.signature->out_spec ||
         x.signature->forward_arg_names != y.signature->forward_arg_names)) {
      return "module_call_graph signature of " + x.fqn + " differs";
    }
  }
  if (a.range_constraints.size() != b.range_constraints.size()) return "range_constraints differ";
  for (const auto& [symbol, r] : a.range_constraints) {
    auto it = b.range_constraints.find(symbol);
    if (it == b.range_constraints.end() || it->second.min_val != r.min_val ||
        it->second.max_val != r.max_val) {
      return "range constraint " + symbol + " differs";
    }
  }
  if (a.verifiers != b.verifiers || a.schema_version.major != b.schema_version.major ||
      a.schema_version.minor != b.schema_version.minor || a.opset_version != b.opset_version ||
      a.torch_version != b.torch_version || a.guards_code != b.guards_code ||
      a.metadata != b.metadata || a.treespec_namedtuple_fields != b.treespec_namedtuple_fields) {
    return "program fields differ";
  }
  return "";
}

::testing::AssertionResult roundTrips(const ExportedProgram& p, std::string* text) {
  auto first = writeProgramJson(p);
  if (!first) return ::testing::AssertionFailure() << "write failed: " << first.error().str();
  auto back = readProgramJson(*first);
  if (!back) {
    return ::testing::AssertionFailure() << "read failed: " << back.error().str() << "\n" << *first;
  }
  if (auto d = programDiff(p, *back); !d.empty()) {
    return ::testing::AssertionFailure() << "read(write(p)) differs from p: " << d;
  }
  auto second = writeProgramJson(*back);
  if (!second) return ::testing::AssertionFailure() << "second write failed: " << second.error().str();
  if (*first != *second) {
    std::istringstream a(*first), b(*second);
    std::string la, lb;
    for (int line = 1; std::getline(a, la); ++line) {
      if (!std::getline(b, lb) || la != lb) {
        return ::testing::AssertionFailure() << "rewrite differs at line " << line << ":\n  " << la
                                             << "\n  " << lb;
      }
    }
    return ::testing::AssertionFailure() << "rewrite is longer";
  }
  if (text) *text = *first;
  return ::testing::AssertionSuccess();
}

ExportedProgram addProgram() {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({2, 3}));
  Node* y = placeholder(g, "y", f32({2, 3}));
  Node* add = call(g, "add", "aten::add.Tensor", {arg::Tensor{x}, arg::Tensor{y}}, f32({2, 3}));
  output(g, {arg::Tensor{add}});
  p.signature.input_specs = {{InputKind::UserInput, SpecArg::tensor("x"), {}, {}},
                             {InputKind::UserInput, SpecArg::tensor("y"), {}, {}}};
  p.signature.output_specs = {{OutputKind::UserOutput, SpecArg::tensor("add"), {}}};
  for (int i = 0; i < 2; ++i) {
    InputValue in;
    in.kind = InputValue::Kind::Tensor;
    in.tensor = TensorValue::zeros(ScalarType::Float, {2, 3});
    p.example_inputs.push_back(in);
  }
  return p;
}

}  // namespace epsmith::testing
