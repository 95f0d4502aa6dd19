// Verifier._check_graph_module: torch.fx lint, then per-node checks, then the dialect's
// additional check, for the top graph and then every subgraph (pre-order, by name).
//
// Note [Lint beyond torch.fx]: torch.fx's Graph.lint does not count output nodes. epsmith
// also reports `multiple-outputs` (a second output node makes the rest of the graph dead
// code in the generated forward) and, in subgraphs, `output-not-last`. Python accepts such
// graphs, so these come after every diagnostic Python would give (the first diagnostic is
// still Python's error), and they are the only verdicts where epsmith is stricter. In the top
// graph a last node that is not the output is Python's own assertion, reported where Python
// meets it, in the signature check.
#include <algorithm>
#include <unordered_set>

#include "formats/text_format.h"
#include "ops/op_registry.h"
#include "verifier/walk.h"

namespace epsmith::verifier_detail {
namespace {

constexpr const char* kTopLevelGetAttrTypes =
    "(<class 'torch.fx.graph_module.GraphModule'>, <class 'torch.utils._pytree.TreeSpec'>)";
constexpr const char* kSubgraphGetAttrTypes =
    "(<class 'torch.fx.graph_module.GraphModule'>, <class 'torch.nn.parameter.Parameter'>, "
    "<class 'torch.Tensor'>, <class 'torch.utils._pytree.TreeSpec'>)";

std::string pythonClass(const Attribute& a) {
  switch (a.kind) {
    case Attribute::Kind::Subgraph: return "<class 'torch.fx.graph_module.GraphModule'>";
    case Attribute::Kind::Parameter: return "<class 'torch.nn.parameter.Parameter'>";
    case Attribute::Kind::Tensor: return "<class 'torch.Tensor'>";
    case Attribute::Kind::TreeSpec: return "<class 'torch.utils._pytree.TreeSpec'>";
    case Attribute::Kind::Module:
    case Attribute::Kind::Opaque: return "<class '" + a.text + "'>";
  }
  return "<class 'object'>";
}

// str(OpOverload) in Python: "aten.add_.Tensor", "aten.relu.default".
std::string pythonOpName(const OpInfo& op) {
  std::string name = op.qualified_name;
  auto sep = name.find("::");
  if (sep != std::string::npos) name.replace(sep, 2, ".");
  return name + "." + (op.overload.empty() ? "default" : op.overload);
}

bool validVal(const Val& v) {
  if (v.get<Val::Opaque>()) return false;
  if (const auto* list = v.list()) {
    for (const auto& item : *list) {
      if (!validVal(item)) return false;
    }
  }
  return true;
}

// Collects diagnostics of one kind of check so that they can be emitted in Python's order.
struct Buffer {
  std::vector<Violation> items;
  void report(CheckId id, std::string where, std::string message) {
    items.push_back({id, std::move(where), std::move(message)});
  }
};

// Note [One pass per graph]: Python lints a whole graph before it checks any node, so lint
// diagnostics precede node diagnostics. We walk the nodes once, buffering the two kinds
// apart, and emit lint first; only a graph with duplicate names (known in O(1) from the
// Graph) takes a second, exact lint pass, since Python interleaves name and argument errors.
class GraphChecker {
 public:
  GraphChecker(const Dialect& dialect, Sink& sink)
      : dialect_(dialect), allow_mutable_ops_(dialect.name() == "TRAINING"), sink_(sink) {}

  void check(const Graph& g, const std::string& path, bool top_level) {
    Buffer lint, nodes;
    attr_nodes_seen_ = false;
    walk(g, path, top_level, lint, nodes);
    if (g.hasDuplicateNames()) {
      lint.items.clear();
      exactLint(g, path, lint);
    }
    targetLint(g, path, lint);
    if (!top_level && !g.outputNode()) {
      extras_.report(CheckId::OutputNotLast, graphWhere(path), "the last node of a subgraph must be its output node");
    }
    for (auto& d : lint.items) sink_.report(d.check, std::move(d.where), std::move(d.message));
    for (auto& d : nodes.items) sink_.report(d.check, std::move(d.where), std::move(d.message));
    // gm.modules() yields submodules in registration order: the order of their first get_attr.
    for (const std::string& name : subgraphOrder(g)) {
      const Attribute& attr = g.attributes().at(name);
      check(*attr.subgraph, path.empty() ? name : path + "/" + name, /*top_level=*/false);
    }
    if (top_level) {
      std::vector<std::string> problems;
      dialect_.checkAdditional(g, problems);
      for (auto& problem : problems) sink_.report(CheckId::DialectGraph, "graph", std::move(problem));
    }
  }

  static std::vector<std::string> subgraphOrder(const Graph& g) {
    std::vector<std::string> order;
    auto add = [&](const std::string& name) {
      const Attribute* a = g.attribute(name);
      if (a && a->kind == Attribute::Kind::Subgraph && a->subgraph &&
          std::find(order.begin(), order.end(), name) == order.end()) {
        order.push_back(name);
      }
    };
    for (const auto& n : g.nodes()) {
      if (n.op() == OpKind::GetAttr || n.op() == OpKind::CallModule) add(n.attr);
    }
    for (const auto& [name, attr] : g.attributes()) add(name);
    return order;
  }

 public:
  Buffer extras_;  // epsmith-only checks, reported after all of Python's

 private:
 private:
  static std::string where(const std::string& path, const Node& n) {
    return path.empty() ? "%" + n.name() : path + "/%" + n.name();
  }
  static std::string graphWhere(const std::string& path) { return path.empty() ? "graph" : path; }

  void checkArgs(const Graph& g, const Node& n, uint64_t stamp, const std::string& path, Buffer& out) {
    n.forEachInput([&](const Node* arg) {
      if (arg->owningGraph() != &g) {
        out.report(CheckId::ArgNotInGraph, where(path, n),
                   "Argument '" + arg->name() + "' of Node '" + n.name() +
                       "' does not belong to this Graph, but was used as an argument!");
      } else if (arg->visit_stamp != stamp) {
        out.report(CheckId::UseBeforeDef, where(path, n),
                   "Argument '" + arg->name() + "' of Node '" + n.name() +
                       "' was used before it has been defined! Please check that Nodes in "
                       "the graph are topologically ordered");
      }
    });
    n.visit_stamp = stamp;
  }

  void walk(const Graph& g, const std::string& path, bool top_level, Buffer& lint, Buffer& nodes) {
    const uint64_t stamp = nextVisitStamp();
    size_t outputs = 0;
    for (const auto& n : g.nodes()) {
      checkArgs(g, n, stamp, path, lint);
      if (n.isOutput() && ++outputs == 2) {
        extras_.report(CheckId::MultipleOutputs, where(path, n),
                       "graph has more than one output node (a second one is %" + n.name() + ")");
      }
      checkNode(g, n, path, top_level, nodes);
      if (top_level && n.isPlaceholder()) placeholders_.push_back(&n);
    }
  }

 public:
  std::vector<const Node*> placeholders_;  // of the top graph, in order

 private:
  // torch.fx's loop exactly: per node, its arguments, then its name.
  void exactLint(const Graph& g, const std::string& path, Buffer& lint) {
    const uint64_t stamp = nextVisitStamp();
    std::unordered_set<std::string_view> names;
    for (const auto& n : g.nodes()) {
      checkArgs(g, n, stamp, path, lint);
      if (!names.insert(n.name()).second) {
        lint.report(CheckId::DuplicateNodeName, where(path, n), "Node redefined name " + n.name() + "!");
      }
    }
  }

  // torch.fx's second loop: get_attr and call_module targets must exist.
  void targetLint(const Graph& g, const std::string& path, Buffer& lint) {
    if (!attr_nodes_seen_) return;
    for (const auto& n : g.nodes()) {
      if (n.op() != OpKind::GetAttr && n.op() != OpKind::CallModule) continue;
      const Attribute* attr = g.attribute(n.attr);
      if (!attr) {
        // torch.fx walks the path atom by atom: name the first atom whose prefix is missing.
        std::string qualname, atom = n.attr;
        for (size_t dot = n.attr.find('.'); dot != std::string::npos; dot = n.attr.find('.', dot + 1)) {
          if (!g.attribute(n.attr.substr(0, dot))) break;
          qualname = n.attr.substr(0, dot);
        }
        atom = n.attr.substr(qualname.empty() ? 0 : qualname.size() + 1);
        atom = atom.substr(0, atom.find('.'));
        lint.report(
            CheckId::NonexistentAttribute, where(path, n),
            "Node " + n.name() + " target " + n.attr + " references nonexistent attribute " + atom + " of " + qualname);
      } else if (n.op() == OpKind::CallModule && attr->kind != Attribute::Kind::Subgraph &&
                 attr->kind != Attribute::Kind::Module) {
        lint.report(CheckId::CallModuleTargetNotModule, where(path, n),
                    "Node " + n.name() + " target " + n.attr + " does not reference an nn.Module");
      }
    }
  }

  void checkVal(const Node& n, const std::string& path, Buffer& out) {
    const Val& v = n.meta.val;
    if (v.isMissing()) {
      bool no_returns = n.atenOp() && n.atenOp()->returns.empty();
      if (!no_returns)
        out.report(CheckId::MissingVal, where(path, n), "Node.meta " + n.name() + " is missing val field.");
      return;
    }
    if (!validVal(v)) {
      out.report(CheckId::InvalidVal, where(path, n),
                 "Node.meta " + n.name() + " has invalid val field " + formatVal(v));
    }
  }

  void checkValidOp(const Node& n, const std::string& path, Buffer& out) {
    switch (n.target.kind()) {
      case Target::Kind::Aten: {
        const OpInfo& op = *n.target.op();
        if (!allow_mutable_ops_ && op.is_mutable) {
          out.report(CheckId::NonFunctionalOp, where(path, n), "operator '" + pythonOpName(op) + "' is not functional");
        }
        break;
      }
      case Target::Kind::Builtin:
      case Target::Kind::TorchFunction:
      case Target::Kind::HigherOrder: break;
      case Target::Kind::Other:
      case Target::Kind::None:
        out.report(CheckId::DisallowedOp, where(path, n),
                   "Operator '" + n.target.textName() +
                       "' is not an allowed operator type: (<class 'torch._ops.OpOverload'>, "
                       "<class 'torch._ops.HigherOrderOperator'>); allowed besides: the builtins "
                       "operator.getitem, add, mul, ... math.ceil, floor, trunc, round and the "
                       "torch.sym_* / grad-mode / autocast functions");
        return;
    }
    if (auto problem = dialect_.checkValidOp(n.target)) out.report(CheckId::DialectOp, where(path, n), *problem);
  }

  void checkGetAttr(const Graph& g, const Node& n, const std::string& path, bool top_level, Buffer& out) {
    const Attribute* attr = g.attribute(n.attr);
    if (!attr) return;  // lint reported it
    if (attr->kind == Attribute::Kind::Module) {
      if (attr->text == "LoweredBackendModule") {
        auto type_of = [&](const char* field) {
          auto it = attr->field_types.find(field);
          return it == attr->field_types.end() ? std::string("NoneType") : it->second;
        };
        if (type_of("backend_id") == "str" && type_of("processed_bytes") == "bytes" &&
            type_of("compile_specs") == "list" && attr->has_original_module) {
          return;
        }
        out.report(CheckId::InvalidLoweredModule, where(path, n),
                   "Invalid get_attr type " + pythonClass(*attr) +
                       ". \nLoweredBackendModule fields: backend_id(str) : <class '" + type_of("backend_id") +
                       "'>, processed_bytes(bytes) : <class '" + type_of("processed_bytes") +
                       "'>, compile_specs(list) : <class '" + type_of("compile_specs") + "'>" +
                       (attr->has_original_module ? "" : ", and no original_module"));
        return;
      }
      if (attr->text == "AOTInductorEPModule" || attr->text == "AOTInductorRunnerWrapper") return;
    }
    bool allowed = attr->kind == Attribute::Kind::Subgraph || attr->kind == Attribute::Kind::TreeSpec ||
                   (!top_level && (attr->kind == Attribute::Kind::Parameter || attr->kind == Attribute::Kind::Tensor));
    if (!allowed) {
      out.report(CheckId::InvalidGetAttrType, where(path, n),
                 "Invalid get_attr type " + pythonClass(*attr) + " on target " + n.attr +
                     ". \nValid get_attr types: " + (top_level ? kTopLevelGetAttrTypes : kSubgraphGetAttrTypes));
    }
  }

  void checkNode(const Graph& g, const Node& n, const std::string& path, bool top_level, Buffer& out) {
    switch (n.op()) {
      case OpKind::CallModule:
        attr_nodes_seen_ = true;
        out.report(CheckId::CallModule, where(path, n), "call_module is not valid: got a class '" + n.attr + "' ");
        return;
      case OpKind::CallMethod:
        out.report(CheckId::CallMethod, where(path, n), "call_method is not valid: got a method '" + n.attr + "' ");
        return;
      case OpKind::CallFunction:
        checkVal(n, path, out);
        checkValidOp(n, path, out);
        return;
      case OpKind::GetAttr:
        attr_nodes_seen_ = true;
        checkGetAttr(g, n, path, top_level, out);
        return;
      case OpKind::Placeholder: checkVal(n, path, out); return;
      case OpKind::Output: return;
    }
  }

  const Dialect& dialect_;
  const bool allow_mutable_ops_;  // verifier.py: only TRAINING may hold mutable ops
  Sink& sink_;
  bool attr_nodes_seen_ = false;  // any get_attr / call_module met in the current walk
};

}  // namespace

GraphFacts checkGraphs(const ExportedProgram& p, const Dialect& dialect, Sink& sink) {
  GraphChecker checker(dialect, sink);
  checker.check(p.graph(), "", /*top_level=*/true);
  return {std::move(checker.placeholders_), std::move(checker.extras_.items)};
}

}  // namespace epsmith::verifier_detail
