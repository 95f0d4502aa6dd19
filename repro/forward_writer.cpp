// forward()'s body: each call as torch.ops.<ns>.<op>.<overload>(...), grad-mode regions as
// `with torch.no_grad():` blocks, subgraphs of wrap_with_set_grad_enabled inlined in theirs
// and of wrap_with_autocast in `with torch.autocast(...)` blocks, cond as torch.cond over
// branch functions defined before it.
#include "repro/forward_writer.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "formats/scalar_format.h"
#include "ir/op_info.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"
#include "ir/target.h"

namespace epsmith::repro_detail {
namespace {

bool isPythonKeyword(std::string_view s) {
  static const std::set<std::string_view> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return kKeywords.count(s) > 0;
}

std::string pyFloat(double v, ScriptNeeds& needs) {
  std::string text = formatFloat(v);
  if (text.find("inf") != std::string::npos || text.find("nan") != std::string::npos) needs.inf_nan = true;
  return text;
}

template <typename T, typename F>
std::string pyList(const std::vector<T>& values, F&& each) {
  std::vector<std::string> parts;
  for (const auto& v : values) parts.push_back(each(v));
  return "[" + joined(parts) + "]";
}

template <typename T, typename F>
std::string pySym(const arg::SymScalar<T>& s, const PythonNames& names, F&& literal) {
  return s.node ? names.of(*s.node) : literal(s.literal);
}

// The `with` blocks open at a point of a graph: the grad mode each one set, innermost last.
class GradRegions {
 public:
  GradRegions(std::vector<std::string>& lines, int indent) : lines_(lines), indent_(indent) {}
  int indent() const { return indent_ + static_cast<int>(open_.size()); }
  void wrote() {
    if (!open_.empty()) open_.back().empty = false;
  }
  // The graph sets grad mode to `enabled`: leave the block that set the other mode when the
  // one around it already had this mode, else open a block.
  void set(bool enabled) {
    if (enabled == current()) return;
    if (!open_.empty() && modeBelowTop() == enabled) return close();
    line(std::string("with torch.") + (enabled ? "enable_grad" : "no_grad") + "():");
    open_.push_back({enabled, true});
  }
  void closeAll() {
    while (!open_.empty()) close();
  }
  bool current() const { return open_.empty() ? true : open_.back().enabled; }

 private:
  struct Block {
    bool enabled;
    bool empty;
  };
  bool modeBelowTop() const { return open_.size() < 2 ? true : open_[open_.size() - 2].enabled; }
  void line(const std::string& text) { lines_.push_back(std::string(4 * indent(), ' ') + text); }
  // A block nothing was written in is dropped: its `with` line is the last one.
  void close() {
    if (open_.back().empty) lines_.pop_back();
    open_.pop_back();
  }
  std::vector<std::string>& lines_;
  int indent_;
  std::vector<Block> open_;
};

class GraphWriter {
 public:
  GraphWriter(PythonNames& names, ScriptNeeds& needs, std::vector<std::string>& lines, ForwardStyle style)
      : names_(names), needs_(needs), lines_(lines), style_(style) {}

  // Writes `graph`'s calls at `indent` (with `only`, those alone); returns what its output
  // node returns.
  std::vector<std::string> write(const Graph& graph, int indent, const std::set<const Node*>* only = nullptr) {
    GradRegions regions(lines_, indent);
    std::vector<std::string> returned;
    bool submodule_called = false;
    for (const Node& n : graph.nodes()) {
      if (only && !only->count(&n)) continue;
      if (n.isOutput()) {
        for (const Argument& a : n.args) returned.push_back(pythonArgument(a, names_, needs_));
      } else if (style_.submodule && style_.submodule->calls.count(&n)) {
        if (!std::exchange(submodule_called, true)) submoduleCall(*style_.submodule, regions);
      } else if (n.op() == OpKind::CallFunction) {
        call(n, regions);
      } else if (n.op() == OpKind::GetAttr) {
        getAttr(graph, n);
      } else if (!n.isPlaceholder()) {
        throw Unwritable("%" + n.name(), "a " + std::string(opKindName(n.op())) + " node has no Python form here");
      }
    }
    regions.closeAll();
    return returned;
  }

 private:
  void getAttr(const Graph& graph, const Node& n) {
    const Attribute* a = graph.attribute(n.attr);
    if (a && a->kind == Attribute::Kind::Subgraph) return names_.bind(n, "None");  // read by its call
    throw Unwritable("%" + n.name(), "get_attr of '" + n.attr + "' (not a subgraph) has no Python form here");
  }

  // Note [Preserved submodules in scripts]
  void submoduleCall(const Submodule& s, GradRegions& regions) {
    std::vector<std::string> ins, outs;
    for (const Node* i : s.inputs) ins.push_back(names_.of(*i));
    for (const Node* o : s.outputs) outs.push_back(names_.local(*o));
    emit(regions, joined(outs) + " = self." + s.fqn + "(" + joined(ins) + ")");
  }

  void emit(GradRegions& regions, const std::string& text) {
    lines_.push_back(std::string(4 * regions.indent(), ' ') + text);
    regions.wrote();
  }

  void call(const Node& n, GradRegions& regions) {
    const Target& t = n.target;
    switch (t.kind()) {
      case Target::Kind::Aten: {
        const OpInfo& op = *t.op();
        // Note [Composite writes in functionalize scripts]
        const bool decompose = style_.decompose_composite_writes && op.is_mutable && op.composite_implicit;
        return emit(regions,
                    names_.local(n) + " = " + op.exportName() + (decompose ? ".decompose(" : "(") + atenArgs(n) + ")");
      }
      case Target::Kind::Builtin: return emit(regions, names_.local(n) + " = " + builtin(n));
      case Target::Kind::TorchFunction: return torchFunction(n, regions);
      case Target::Kind::HigherOrder:
        if (t.name() == "wrap_with_set_grad_enabled") return gradSubgraph(n, regions);
        if (t.name() == "wrap_with_autocast") return autocastSubgraph(n, regions);
        if (t.name() == "cond") return condCall(n, regions);
        if (t.name() == "with_effects") return withEffects(n, regions);
        if (t.name() == "while_loop") return whileLoop(n, regions);
        if (t.name() == "map_impl") return mapCall(n, regions);
        if (t.name() == "scan") return scanCall(n, regions);
        break;
      default: break;
    }
    throw Unwritable("%" + n.name(), t.textName() + " has no Python form in a reproducer yet");
  }

  // Positional arguments as written, except that keyword-only parameters become keywords.
  std::string atenArgs(const Node& n) {
    const OpInfo& op = *n.target.op();
    std::vector<std::string> parts;
    for (size_t i = 0; i < n.args.size(); ++i) {
      std::string value = pythonArgument(n.args[i], names_, needs_);
      const bool keyword = i < op.arguments.size() && op.arguments[i].kwarg_only;
      parts.push_back(keyword ? op.arguments[i].name + "=" + value : value);
    }
    for (const auto& [k, v] : n.kwargs) parts.push_back(k + "=" + pythonArgument(v, names_, needs_));
    return joined(parts);
  }

  std::string builtin(const Node& n) {
    std::vector<std::string> parts;
    for (const Argument& a : n.args) parts.push_back(pythonArgument(a, names_, needs_));
    if (n.target.builtinOp() == BuiltinOp::GetItem && parts.size() == 2) return parts[0] + "[" + parts[1] + "]";
    std::string name(builtinTextName(n.target.builtinOp()));
    if (auto dot = name.find('.'); dot != std::string::npos) needs_.imports.insert(name.substr(0, dot));
    return name + "(" + joined(parts) + ")";
  }

  void torchFunction(const Node& n, GradRegions& regions) {
    const TorchFunction fn = n.target.torchFunctionId();
    if (fn == TorchFunction::SetGradEnabled || fn == TorchFunction::CSetGradEnabled) {
      const auto* enabled = n.args.empty() ? nullptr : n.args[0].get<arg::Bool>();
      if (!enabled) throw Unwritable("%" + n.name(), "a grad-mode switch whose argument is not a literal bool");
      names_.bind(n, "None");
      return regions.set(enabled->value);
    }
    std::vector<std::string> parts;
    for (const Argument& a : n.args) parts.push_back(pythonArgument(a, names_, needs_));
    emit(regions, names_.local(n) + " = " + std::string(torchFunctionName(fn)) + "(" + joined(parts) + ")");
  }

  // wrap_with_set_grad_enabled(enabled, subgraph, *operands): the subgraph's calls inline in
  // a `with` block, its results gathered in a tuple that getitem nodes index.
  void gradSubgraph(const Node& n, GradRegions& regions) {
    const auto* enabled = n.args.size() >= 2 ? n.args[0].get<arg::Bool>() : nullptr;
    const auto* sub = n.args.size() >= 2 ? n.args[1].get<arg::Graph>() : nullptr;
    const Attribute* a = sub && sub->node ? n.owningGraph()->attribute(sub->node->attr) : nullptr;
    if (!enabled || !a || !a->subgraph)
      throw Unwritable("%" + n.name(), "wrap_with_set_grad_enabled without a bool and a subgraph");
    const auto placeholders = a->subgraph->placeholders();
    if (placeholders.size() != n.args.size() - 2) {
      throw Unwritable("%" + n.name(), "wrap_with_set_grad_enabled's subgraph takes " +
                                           std::to_string(placeholders.size()) + " inputs but is given " +
                                           std::to_string(n.args.size() - 2));
    }
    for (size_t i = 0; i < placeholders.size(); ++i)
      names_.bind(*placeholders[i], pythonArgument(n.args[i + 2], names_, needs_));
    const bool before = regions.current();
    regions.set(enabled->value);
    const std::string result = names_.local(n);
    std::vector<std::string> returned = write(*a->subgraph, regions.indent());
    emit(regions, result + " = (" + joined(returned) + (returned.size() == 1 ? ",)" : ")"));
    regions.set(before);
  }

  // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, subgraph, *operands), as
  // a user writes it: the subgraph's calls inline in a `with torch.autocast(...)` block,
  // their results gathered in a tuple that getitem nodes index.
  void autocastSubgraph(const Node& n, GradRegions& regions) {
    if (n.args.size() < 5 || !n.args[0].get<arg::String>() || !n.args[2].get<arg::Bool>())
      throw Unwritable("%" + n.name(), "wrap_with_autocast without a device type, an enabled flag and a subgraph");
    const Graph& g = subgraphOf(n, n.args[4], "its region");
    const auto placeholders = g.placeholders();
    if (placeholders.size() != n.args.size() - 5) {
      throw Unwritable("%" + n.name(), "wrap_with_autocast's subgraph takes " + std::to_string(placeholders.size()) +
                                           " inputs but is given " + std::to_string(n.args.size() - 5));
    }
    for (size_t i = 0; i < placeholders.size(); ++i)
      names_.bind(*placeholders[i], pythonArgument(n.args[i + 5], names_, needs_));
    emit(regions, "with torch.autocast(" + pythonArgument(n.args[0], names_, needs_) +
                      ", dtype=" + pythonArgument(n.args[1], names_, needs_) +
                      ", enabled=" + pythonArgument(n.args[2], names_, needs_) +
                      ", cache_enabled=" + pythonArgument(n.args[3], names_, needs_) + "):");
    const std::vector<std::string> returned = write(g, regions.indent() + 1);
    lines_.push_back(std::string(4 * (regions.indent() + 1), ' ') + names_.local(n) + " = (" + joined(returned) +
                     (returned.size() == 1 ? ",)" : ")"));
  }

  // while_loop(cond_graph, body_graph, carried, additional), as a user writes it:
  // torch._higher_order_ops.while_loop(cond_fn, body_fn, (carried,)), each function defined
  // just before the call over the carried values, reading the additional ones as closures
  // (how export came to lift them); its result getitem nodes index.
  void whileLoop(const Node& n, GradRegions& regions) {
    const auto* carried = n.args.size() == 4 ? n.args[2].get<arg::TensorList>() : nullptr;
    const auto* additional = n.args.size() == 4 ? n.args[3].get<arg::TensorList>() : nullptr;
    if (!carried || !additional)
      throw Unwritable("%" + n.name(), "while_loop without two subgraphs, carried values and additional ones");
    std::vector<std::string> carried_names;
    for (const Node* c : carried->nodes) carried_names.push_back(names_.of(*c));
    std::string fns[2];
    for (int f = 0; f < 2; ++f) {
      const Graph& g = subgraphOf(n, n.args[f], f ? "its body" : "its condition");
      const auto placeholders = g.placeholders();
      if (placeholders.size() != carried->nodes.size() + additional->nodes.size()) {
        throw Unwritable("%" + n.name(), "a subgraph of while_loop takes " + std::to_string(placeholders.size()) +
                                             " inputs but is given " +
                                             std::to_string(carried->nodes.size() + additional->nodes.size()));
      }
      std::vector<std::string> params;
      for (size_t k = 0; k < placeholders.size(); ++k) {
        if (k < carried->nodes.size()) {
          params.push_back(names_.local(*placeholders[k]));
        } else {
          names_.bind(*placeholders[k], names_.of(*additional->nodes[k - carried->nodes.size()]));
        }
      }
      fns[f] = names_.local(*n.args[f].get<arg::Graph>()->node);
      emit(regions, "def " + fns[f] + "(" + joined(params) + "):");
      const std::vector<std::string> returned = write(g, regions.indent() + 1);
      const std::string value = g.returns_one_value && returned.size() == 1
                                    ? returned[0]
                                    : "(" + joined(returned) + (returned.size() == 1 ? ",)" : ")");
      lines_.push_back(std::string(4 * (regions.indent() + 1), ' ') + "return " + value);
    }
    emit(regions, names_.local(n) + " = torch._higher_order_ops.while_loop(" + fns[0] + ", " + fns[1] + ", (" +
                      joined(carried_names) + (carried_names.size() == 1 ? ",))" : "))"));
  }

  // The function `def NAME(params):` over subgraph `g` of `n`, its placeholders past
  // `params_from` bound to `closures` (read from the enclosing scope, as export came to
  // lift them); what it returns: `returned` of the subgraph's values, laid out by `form`.
  std::string function(const Node& n, const Argument& graph, size_t params_from, const std::vector<Node*>& closures,
                       GradRegions& regions, const std::function<std::string(std::vector<std::string>)>& form) {
    const Graph& g = subgraphOf(n, graph, "its function");
    const auto placeholders = g.placeholders();
    if (placeholders.size() != params_from + closures.size()) {
      throw Unwritable("%" + n.name(), "the subgraph of " + n.target.name() + " takes " +
                                           std::to_string(placeholders.size()) + " inputs but is given " +
                                           std::to_string(params_from + closures.size()));
    }
    std::vector<std::string> params;
    for (size_t k = 0; k < placeholders.size(); ++k) {
      if (k < params_from) {
        params.push_back(names_.local(*placeholders[k]));
      } else {
        names_.bind(*placeholders[k], names_.of(*closures[k - params_from]));
      }
    }
    const std::string fn = names_.local(*graph.get<arg::Graph>()->node);
    emit(regions, "def " + fn + "(" + joined(params) + "):");
    const std::vector<std::string> returned = write(g, regions.indent() + 1);
    lines_.push_back(std::string(4 * (regions.indent() + 1), ' ') + "return " + form(returned));
    return fn;
  }

  // The one tensor of a list argument of `n`; throws where the list holds another count.
  const Node* single(const Node& n, const Argument& a, const std::string& what) {
    const auto* list = a.get<arg::TensorList>();
    if (!list || list->nodes.size() != 1)
      throw Unwritable("%" + n.name(), n.target.name() + " over other than one " + what + " has no Python form yet");
    return list->nodes[0];
  }

  // map_impl(body_graph, [xs], pos_args), as a user writes it:
  // torch._higher_order_ops.map(fn, xs, *pos_args), fn defined just before the call over an
  // element of xs and the pos_args, returning a tuple, so the call's result is the tuple of
  // the stacked outputs that getitem nodes index.
  void mapCall(const Node& n, GradRegions& regions) {
    const auto* pos = n.args.size() == 3 ? n.args[2].get<arg::TensorList>() : nullptr;
    if (!pos) throw Unwritable("%" + n.name(), "map_impl without a body, xs and pos_args");
    const Node* xs = single(n, n.args[1], "xs");
    const std::string fn = function(n, n.args[0], 1 + pos->nodes.size(), {}, regions, [](std::vector<std::string> r) {
      return "(" + joined(r) + (r.size() == 1 ? ",)" : ")");
    });
    std::vector<std::string> args{fn, names_.of(*xs)};
    for (const Node* p : pos->nodes) args.push_back(names_.of(*p));
    emit(regions, names_.local(n) + " = torch._higher_order_ops.map(" + joined(args) + ")");
  }

  // scan(combine_graph, [init], [xs], additional_inputs), as a user writes it:
  // torch._higher_order_ops.scan(fn, init, xs), fn defined just before the call over the
  // carry and an element of xs, reading the additional inputs as closures and returning
  // (next carry, (outputs,)); the call's (carry, (stacked outputs,)) flattened is the
  // tuple getitem nodes index.
  void scanCall(const Node& n, GradRegions& regions) {
    const auto* additional = n.args.size() == 4 ? n.args[3].get<arg::TensorList>() : nullptr;
    if (!additional)
      throw Unwritable("%" + n.name(), "scan without a combine function, init, xs and additional inputs");
    const Node* init = single(n, n.args[1], "init");
    const Node* xs = single(n, n.args[2], "xs");
    const std::string fn = function(n, n.args[0], 2, additional->nodes, regions, [&](std::vector<std::string> r) {
      if (r.empty()) throw Unwritable("%" + n.name(), "scan's combine function returns no carry");
      const std::vector<std::string> ys(r.begin() + 1, r.end());
      return "(" + r[0] + ", (" + joined(ys) + (ys.size() == 1 ? ",))" : "))");
    });
    emit(regions, names_.local(n) + " = tuple(torch.utils._pytree.tree_leaves(torch._higher_order_ops.scan(" + fn +
                      ", " + names_.of(*init) + ", " + names_.of(*xs) + ")))");
  }

  // with_effects(token, op, *args), which run_decompositions makes of a module's call of an
  // op with effects: the call as the module makes it, its result after the token's place
  // (a module has no token: Note [Ops with effects]).
  void withEffects(const Node& n, GradRegions& regions) {
    const auto* name = n.args.size() >= 2 ? n.args[1].get<arg::Operator>() : nullptr;
    const OpInfo* op = name ? findOpByName(name->name) : nullptr;
    if (!op) throw Unwritable("%" + n.name(), "with_effects without an op this LibTorch defines");
    std::vector<std::string> parts;
    for (size_t i = 2; i < n.args.size(); ++i) parts.push_back(pythonArgument(n.args[i], names_, needs_));
    emit(regions, names_.local(n) + " = (None, " + op->exportName() + "(" + joined(parts) + "))");
  }

  // The subgraph an argument of `n` names; throws, naming `what`, where it names none.
  const Graph& subgraphOf(const Node& n, const Argument& a, const std::string& what) {
    const auto* sub = a.get<arg::Graph>();
    const Attribute* attr = sub && sub->node ? n.owningGraph()->attribute(sub->node->attr) : nullptr;
    if (!attr || !attr->subgraph) throw Unwritable("%" + n.name(), what + " is not a subgraph");
    return *attr->subgraph;
  }

  // cond(pred, true_graph, false_graph, operands), as a user writes it: each branch a
  // function defined just before the call, its calls written as forward()'s are, then
  // torch.cond(pred, true_fn, false_fn, (operands,)), whose result getitem nodes index.
  void condCall(const Node& n, GradRegions& regions) {
    const auto* operands = n.args.size() == 4 ? n.args[3].get<arg::TensorList>() : nullptr;
    if (!operands || !n.args[0].get<arg::Tensor>())
      throw Unwritable("%" + n.name(), "cond without a predicate tensor, two subgraphs and a list of operands");
    std::vector<std::string> operand_names;
    for (const Node* o : operands->nodes) operand_names.push_back(names_.of(*o));
    std::string branches[2];
    for (int b = 0; b < 2; ++b) {
      const Graph& g = subgraphOf(n, n.args[1 + b], b ? "its false branch" : "its true branch");
      const auto placeholders = g.placeholders();
      if (placeholders.size() != operand_names.size()) {
        throw Unwritable("%" + n.name(), "a branch of cond takes " + std::to_string(placeholders.size()) +
                                             " inputs but is given " + std::to_string(operand_names.size()));
      }
      std::vector<std::string> params;
      for (const Node* ph : placeholders) params.push_back(names_.local(*ph));
      branches[b] = names_.local(*n.args[1 + b].get<arg::Graph>()->node);
      emit(regions, "def " + branches[b] + "(" + joined(params) + "):");
      const std::vector<std::string> returned = write(g, regions.indent() + 1);
      lines_.push_back(std::string(4 * (regions.indent() + 1), ' ') + "return (" + joined(returned) +
                       (returned.size() == 1 ? ",)" : ")"));
    }
    emit(regions, names_.local(n) + " = torch.cond(" + pythonArgument(n.args[0], names_, needs_) + ", " + branches[0] +
                      ", " + branches[1] + ", (" + joined(operand_names) + (operand_names.size() == 1 ? ",))" : "))"));
  }

  PythonNames& names_;
  ScriptNeeds& needs_;
  std::vector<std::string>& lines_;
  ForwardStyle style_;
};

}  // namespace

void requireIdentifier(const std::string& where, std::string_view name, std::string_view what) {
  if (!isIdentifier(name) || isPythonKeyword(name)) {
    throw Unwritable(where, std::string(what) + " '" + std::string(name) + "' is not a Python identifier");
  }
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// Names the script itself defines or imports: a node of that name gets a suffix.
PythonNames::PythonNames()
    : taken_{"torch", "self", "sys",     "io",     "math",    "operator", "inf",   "nan",
             "M",     "make", "storage", "view",   "state",   "eager",    "path",  "run",
             "same",  "main", "ref",     "device", "complex", "round",    "float", "Block"} {}

std::string PythonNames::local(const Node& node) {
  requireIdentifier("%" + node.name(), node.name(), "the node name");
  std::string name = node.name();
  for (int i = 1; taken_.count(name); ++i) name = node.name() + "_" + std::to_string(i);
  taken_.insert(name);
  exprs_[&node] = name;
  return name;
}

const std::string& PythonNames::of(const Node& node) const {
  auto it = exprs_.find(&node);
  if (it == exprs_.end()) throw Unwritable("%" + node.name(), "used before it is defined");
  return it->second;
}

ForwardBody writeForwardBody(const Graph& graph, PythonNames& names, ScriptNeeds& needs, ForwardStyle style) {
  ForwardBody body;
  body.returned = GraphWriter(names, needs, body.lines, style).write(graph, /*indent=*/2);
  return body;
}

namespace {

bool among(const std::vector<const Node*>& nodes, const Node* n) {
  return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
}

// The calls the entry's outputs need, back to its inputs, in `s.calls`; why not, where one
// reads another value.
std::string collectCalls(const Graph& g, Submodule& s) {
  std::vector<const Node*> todo(s.outputs.begin(), s.outputs.end());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (among(s.inputs, n) || s.calls.count(n)) continue;
    if (n->op() != OpKind::CallFunction) return "%" + n->name() + " is read inside it but not passed to it";
    s.calls.insert(n);
    n->forEachInput([&](const Node* m) { todo.push_back(m); });
  }
  for (const Node* n : std::vector<const Node*>(s.calls.begin(), s.calls.end())) {
    for (const Node* u : g.users(n)) {  // the unused pieces of a call's results go with it
      const bool piece = u->target.kind() == Target::Kind::Builtin && u->target.builtinOp() == BuiltinOp::GetItem;
      if (piece && g.users(u).empty()) s.calls.insert(u);
    }
  }
  for (const Node* n : s.calls) {
    for (const Node* u : g.users(n)) {
      if (!s.calls.count(u) && !among(s.outputs, n)) return "%" + n->name() + " is made inside it and read outside it";
    }
  }
  return "";
}

bool writes(const Node& n) {
  const OpInfo* op = n.atenOp();
  const OpRole role = op ? opRole(*op).role : OpRole::Functional;
  return role == OpRole::InPlace || role == OpRole::Out || role == OpRole::MetadataMutation ||
         role == OpRole::Unsupported;
}

// Its calls run together where the first was: why that changes what they compute, where an
// outside call between them switches grad mode or writes what a later one of them reads
// (an input, or a view or in-place result made of one).
std::string moveRefused(const Graph& g, const Submodule& s) {
  std::vector<const Node*> aliases(s.inputs.begin(), s.inputs.end());
  bool started = false;
  size_t left = s.calls.size();
  std::vector<const Node*> written;  // by outside calls since the first of its calls
  for (const Node& n : g.nodes()) {
    if (left == 0) break;
    if (!s.calls.count(&n)) {
      if (!started || n.op() != OpKind::CallFunction) continue;
      const Target::Kind k = n.target.kind();
      if (k == Target::Kind::TorchFunction || k == Target::Kind::HigherOrder)
        return "%" + n.name() + " between its calls switches grad mode or calls a subgraph";
      if (writes(n)) n.forEachInput([&](const Node* m) { written.push_back(m); });
      continue;
    }
    started = true;
    --left;
    bool reads_an_alias = false, reads_written = false;
    n.forEachInput([&](const Node* m) {
      reads_an_alias = reads_an_alias || among(aliases, m);
      reads_written = reads_written || among(written, m);
    });
    if ((reads_an_alias && !written.empty()) || reads_written)
      return "%" + n.name() + " reads what a call between its calls writes";
    const OpInfo* op = n.atenOp();
    const bool aliasing = op ? opRole(*op).role != OpRole::Functional : n.target.kind() == Target::Kind::Builtin;
    if (reads_an_alias && aliasing) aliases.push_back(&n);
  }
  return "";
}

}  // namespace

std::optional<Submodule> preservedSubmodule(const ExportedProgram& p, std::string* not_kept) {
  not_kept->clear();
  const ModuleCallEntry* entry = nullptr;
  for (const ModuleCallEntry& e : p.module_call_graph) {
    if (e.fqn.empty()) continue;
    if (entry) return *not_kept = "a second preserved submodule, '" + e.fqn + "'", std::nullopt;
    entry = &e;
  }
  if (!entry) return std::nullopt;
  const std::string name = "'" + entry->fqn + "'";
  if (!isIdentifier(entry->fqn) || isPythonKeyword(entry->fqn))
    return *not_kept = name + " is not a Python identifier", std::nullopt;
  if (!entry->signature) return *not_kept = name + " has no call signature", std::nullopt;
  const Graph& g = p.graph();
  Submodule s{entry->fqn, {}, {}, {}};
  for (const auto* args : {&entry->signature->inputs, &entry->signature->outputs}) {
    for (const SpecArg& a : *args) {
      const Node* n = g.find(a.name);
      if (!n) return *not_kept = name + " names no node '" + a.name + "'", std::nullopt;
      (args == &entry->signature->inputs ? s.inputs : s.outputs).push_back(n);
    }
  }
  if (s.outputs.empty()) return *not_kept = name + " returns nothing", std::nullopt;
  std::string why = collectCalls(g, s);
  if (why.empty()) why = moveRefused(g, s);
  if (!why.empty()) return *not_kept = name + ": " + why, std::nullopt;
  return s;
}

ForwardBody writeSubmoduleBody(const Graph& graph, const Submodule& s, PythonNames& names, ScriptNeeds& needs,
                               ForwardStyle style) {
  style.submodule = nullptr;
  ForwardBody body;
  GraphWriter(names, needs, body.lines, style).write(graph, /*indent=*/2, &s.calls);
  body.returned.clear();
  for (const Node* o : s.outputs) body.returned.push_back(names.of(*o));
  return body;
}

std::string pythonArgument(const Argument& a, const PythonNames& names, ScriptNeeds& needs) {
  auto node = [&](const Node* n) { return n ? names.of(*n) : std::string("None"); };
  auto integer = [](int64_t v) { return std::to_string(v); };
  auto real = [&](double v) { return pyFloat(v, needs); };
  auto boolean = [](bool v) { return std::string(v ? "True" : "False"); };
  return std::visit(
      [&](const auto& v) -> std::string {
        using A = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<A, arg::None>)
          return "None";
        else if constexpr (std::is_same_v<A, arg::Tensor> || std::is_same_v<A, arg::OptionalTensor>)
          return node(v.node);
        else if constexpr (std::is_same_v<A, arg::TensorList> || std::is_same_v<A, arg::OptionalTensorList>)
          return pyList(v.nodes, node);
        else if constexpr (std::is_same_v<A, arg::Int>)
          return integer(v.value);
        else if constexpr (std::is_same_v<A, arg::IntList>)
          return pyList(v.values, integer);
        else if constexpr (std::is_same_v<A, arg::Float>)
          return real(v.value);
        else if constexpr (std::is_same_v<A, arg::FloatList>)
          return pyList(v.values, real);
        else if constexpr (std::is_same_v<A, arg::Bool>)
          return boolean(v.value);
        else if constexpr (std::is_same_v<A, arg::BoolList>)
          return pyList(std::vector<bool>(v.values), boolean);
        else if constexpr (std::is_same_v<A, arg::String>)
          return quote(v.value);
        else if constexpr (std::is_same_v<A, arg::StringList>)
          return pyList(v.values, [](const std::string& s) { return quote(s); });
        else if constexpr (std::is_same_v<A, arg::SymInt>)
          return pySym(v.value, names, integer);
        else if constexpr (std::is_same_v<A, arg::SymIntList>)
          return pyList(v.values, [&](const auto& s) { return pySym(s, names, integer); });
        else if constexpr (std::is_same_v<A, arg::SymFloat>)
          return pySym(v.value, names, real);
        else if constexpr (std::is_same_v<A, arg::SymFloatList>)
          return pyList(v.values, [&](const auto& s) { return pySym(s, names, real); });
        else if constexpr (std::is_same_v<A, arg::SymBool>)
          return pySym(v.value, names, boolean);
        else if constexpr (std::is_same_v<A, arg::SymBoolList>)
          return pyList(v.values, [&](const auto& s) { return pySym(s, names, boolean); });
        else if constexpr (std::is_same_v<A, arg::Dtype>)
          return std::string(torchName(v.value));
        else if constexpr (std::is_same_v<A, arg::MemFormat>)
          return std::string(torchName(v.value));
        else if constexpr (std::is_same_v<A, arg::TensorLayout>)
          return std::string(torchName(v.value));
        else if constexpr (std::is_same_v<A, arg::DeviceArg>)
          return "torch.device(" + quote(v.value.str()) + ")";
        else if constexpr (std::is_same_v<A, arg::Complex>)
          return "complex(" + real(v.real) + ", " + real(v.imag) + ")";
        else if constexpr (std::is_same_v<A, arg::Graph>)
          return node(v.node);
        else
          throw Unwritable("",
                           "an argument of kind " + std::string(serializedTag(a.kind())) + " has no Python form here");
      },
      a.variant());
}

}  // namespace epsmith::repro_detail
