// Symbolic sizes of generated programs; see symbolic_sizes.h.
#include "generators/symbolic_sizes.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "ir/grad_regions.h"
#include "ir/op_info.h"
#include "ir/subgraphs.h"
#include "ops/op_registry.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "oracle/run.h"
#include "oracle/values.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

// Note [Symbolic sizes of generated programs]
// torch.export writes a module exported with `dynamic_shapes={"x": {0: Dim("s")}}` as a
// program whose input dimension is a symbol (`Symbol('s77', positive=True, integer=True)`,
// sympy's repr), every size, stride and offset computed from it an expression in it
// (`Add(Symbol(...), Integer(-1))` for x[1:]), each with its example value as hint, and
// range_constraints bounding the symbol. The generator makes such a program from one it
// made: it runs the program with a user input dimension at other sizes and reads each
// value's geometry there. Where every size, stride and offset is a*s + b (a ≥ 0, the same
// a and b at every size tried) and everything else is the same, the program is the one
// export makes of a module that traces the same at every size; the expressions are
// written as export writes them. The dimension is drawn among the contiguous user inputs'
// dimensions of size 2 or more (export specializes 0 and 1); every other such dimension of
// the same size becomes the same symbol where the program runs so, as export's guards make
// the dimensions a broadcast or a matmul equates one, and the drawn one alone otherwise.
// The sizes tried are the example size k, k + 1 and k + 2 (the fit, and its check), then
// the least size m at which every size that follows the symbol is still 2 or more (export
// specializes sizes of 0 and 1: a Dim whose range lets a derived size reach 1 is a
// constraint violation, as x[2:] of a dimension from 2 is); the range is [m or k,
// unbounded or k + 2] (the upper bound drawn), so every size in it that a check draws was
// run, and a program whose sizes are under 2 at the example stays static. A program that
// reads a size as a value (an int result that changes, a view whose size argument is
// concrete) does not fit and stays static, as a module that specializes does, unless the
// size is read as export writes the read (Note [Sizes read as values]); so does one
// that writes a tensor whose size follows the symbol into other sizes (an out= resize),
// where growing or shrinking in place depends on the size (a guard such as s0*s0 >= 6,
// which no range expresses; a campaign's D1 case met one at a size the example did not
// decide). A grad or autocast region's subgraph runs once on its operands, a map's body
// or a scan's function once per element of its xs, and a cond's branch not taken or a
// loop body that runs no iteration once more for the run's observer
// (Note [Subgraphs observed where they do not run]), so their values are read as the
// graph's are (a map's or a loop's last run's, the same geometry as every other's), their
// placeholders given their operands' values or one element's (a map over no element at
// the example size observes nothing and stays static). What torch.cond and while_loop
// check at the example must then hold at every size: both branches return the same
// values, a loop body or a scan's function returns its carried values again; a program
// where they part stays static, as export refuses the module.

// Note [Sizes read as values]
// A module that passes a size of its input on as a value (`x.view(x.shape[0], -1)`,
// `x.new_zeros(2 * n)`, `x[: n - 1]`) is exported with the size read once by
// `sym_size.int(x, d)` (after the placeholders, where export's runtime-assertion pass puts
// it), arithmetic on it as `operator` calls whose values are SymInt expressions (meta
// `sym_int("Mul(Integer(2), Symbol('s77', ...))", hint=8)`), and those nodes among the
// SymInt arguments of the calls that take them (`sym_ints[%sym_size_int, 3]`). A generated
// program's concrete SymInt argument of 2 or more that is the example size k, 2k, k + 1 or
// k - 1 is what such a module passes: the generator tries the program with every such
// argument read from the size (each expression made once, before its first use, with its
// first user's module stack) and keeps it where every value then follows the symbol, the
// reads included (their values fit a*s + b as sizes do); else it tries the program as it
// was. Only those forms: a size a module computes otherwise (3 * n // 2) is not affine in
// the symbol at every size, which the fit would refuse anyway. Nor an as_strided's sizes or
// strides: a view that grows with the size past a storage that does not is in bounds at
// the sizes run and not above them, where a range may reach.

std::string symbolRepr(const std::string& symbol) { return "Symbol('" + symbol + "', positive=True, integer=True)"; }

// a*s + b in sympy's repr, as torch.export serializes a size.
std::string affineRepr(int64_t a, int64_t b, const std::string& symbol) {
  std::string e = symbolRepr(symbol);
  if (a != 1) e = "Mul(Integer(" + std::to_string(a) + "), " + e + ")";
  if (b != 0) e = "Add(" + e + ", Integer(" + std::to_string(b) + "))";
  return e;
}

// (size, value) pairs; the first at the example size.
using Samples = std::vector<std::pair<int64_t, int64_t>>;

// What a fit found besides the values: the least size of the symbol at which every size
// that follows it is 2 or more.
struct Fit {
  std::string symbol;
  int64_t least = 2;
};

// The value as a*s + b with a hint, an int where a is 0; nullopt where no such line fits.
// A size (`is_size`) that follows the symbol raises `fit->least` to where it is 2: export
// specializes a size of 0 or 1, so a range must not reach it (torch.export raises a
// constraint violation for a Dim whose range does).
std::optional<SymIntValue> fitInt(const Samples& at, bool is_size, Fit* fit) {
  const auto [s0, v0] = at[0];
  const auto [s1, v1] = at[1];
  const int64_t a = (v1 - v0) / (s1 - s0);
  if (a < 0 || a * (s1 - s0) != v1 - v0) return std::nullopt;
  const int64_t b = v0 - a * s0;
  for (const auto& [s, v] : at) {
    if (a * s + b != v) return std::nullopt;
  }
  if (a == 0) return SymIntValue(v0);
  if (is_size) fit->least = std::max(fit->least, (2 - b + a - 1) / a);
  return SymIntValue(SymExpr{affineRepr(a, b, fit->symbol), v0});
}

using ValSamples = std::vector<std::pair<int64_t, const Val*>>;

std::optional<Val> fitVal(const ValSamples& at, Fit* fit);

std::optional<Val> fitTensor(const TensorMeta& t0, const ValSamples& at, Fit* fit) {
  for (const auto& [s, v] : at) {
    const TensorMeta* t = v->tensor();
    if (!t || t->dtype != t0.dtype || t->device != t0.device || t->layout != t0.layout ||
        t->requires_grad != t0.requires_grad || t->sizes.size() != t0.sizes.size())
      return std::nullopt;
  }
  auto fitted = [&](bool is_size, auto field) -> std::optional<SymIntValue> {
    Samples samples;
    for (const auto& [s, v] : at) {
      const SymIntValue& x = field(*v->tensor());
      if (!x.isConcrete()) return std::nullopt;
      samples.emplace_back(s, x.concrete());
    }
    return fitInt(samples, is_size, fit);
  };
  TensorMeta out = t0;
  for (size_t d = 0; d < t0.sizes.size(); ++d) {
    auto size = fitted(true, [d](const TensorMeta& t) -> const SymIntValue& { return t.sizes[d]; });
    auto stride = fitted(false, [d](const TensorMeta& t) -> const SymIntValue& { return t.strides[d]; });
    if (!size || !stride) return std::nullopt;
    out.sizes[d] = *size;
    out.strides[d] = *stride;
  }
  auto offset = fitted(false, [](const TensorMeta& t) -> const SymIntValue& { return t.storage_offset; });
  if (!offset) return std::nullopt;
  out.storage_offset = *offset;
  return Val(std::move(out));
}

// The value at the example size (at[0]) with what follows the size made symbolic.
std::optional<Val> fitVal(const ValSamples& at, Fit* fit) {
  const Val& v0 = *at[0].second;
  if (const TensorMeta* t0 = v0.tensor()) return fitTensor(*t0, at, fit);
  if (const Val::List* l0 = v0.list()) {
    Val::List out;
    for (size_t i = 0; i < l0->size(); ++i) {
      ValSamples items;
      for (const auto& [s, v] : at) {
        if (!v->list() || v->list()->size() != l0->size()) return std::nullopt;
        items.emplace_back(s, &(*v->list())[i]);
      }
      auto item = fitVal(items, fit);
      if (!item) return std::nullopt;
      out.push_back(std::move(*item));
    }
    return Val(std::move(out));
  }
  for (const auto& [s, v] : at) {
    if (*v != v0) return std::nullopt;
  }
  return v0;
}

// A user input dimension: its index among the example inputs and the dimension.
struct InputDim {
  size_t input;
  size_t dim;
};

// The user inputs' placeholders, in example-input order.
std::vector<Node*> userPlaceholders(ExportedProgram& p) {
  std::vector<Node*> out;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind == InputKind::UserInput) out.push_back(p.graph().find(spec.arg.name));
  }
  return out;
}

// Whether the tiling can remake example input `i`: a contiguous tensor that is all of a
// storage no other input shares.
bool remakeable(const ExportedProgram& p, size_t i) {
  const InputValue& in = p.example_inputs[i];
  if (in.kind != InputValue::Kind::Tensor || !in.tensor.storage) return false;
  const TensorValue& t = in.tensor;
  const TensorMeta shape = TensorMeta::contiguous(t.dtype(), t.sizes);
  std::vector<int64_t> strides;
  for (const auto& s : shape.strides) strides.push_back(s.concrete());
  if (t.storage_offset != 0 || t.strides != strides || t.storage->numel() != t.numel()) return false;
  for (size_t j = 0; j < p.example_inputs.size(); ++j) {
    if (j != i && p.example_inputs[j].tensor.storage == t.storage) return false;
  }
  return true;
}

// Input `v` with each of `dims` `size` long, its elements repeated along them.
TensorValue tiled(const TensorValue& v, const std::vector<size_t>& dims, int64_t size) {
  at::NoGradGuard no_grad;
  TensorMaterializer m;
  at::Tensor t = m.materialize(v).detach();
  for (size_t d : dims) {
    const auto dim = static_cast<int64_t>(d);
    std::vector<int64_t> reps(static_cast<size_t>(t.dim()), 1);
    reps[d] = (size + t.size(dim) - 1) / t.size(dim);
    t = t.repeat(reps).narrow(dim, 0, size);
  }
  TensorValue out = toTensorValue(t.contiguous().clone());
  out.requires_grad = v.requires_grad;
  return out;
}

std::vector<InputValue> resized(const ExportedProgram& p, const std::vector<InputDim>& dims, int64_t size) {
  std::vector<InputValue> inputs = p.example_inputs;
  std::map<size_t, std::vector<size_t>> by_input;
  for (const InputDim& d : dims) by_input[d.input].push_back(d.dim);
  for (const auto& [i, ds] : by_input) inputs[i].tensor = tiled(p.example_inputs[i].tensor, ds, size);
  return inputs;
}

using NodeVals = std::map<const Node*, Val>;

// Each value a run of `p` on `inputs` makes: the resized inputs' placeholders and every
// call's result; nullopt when the run fails or makes a value meta.val cannot hold.
std::optional<NodeVals> valsAt(ExportedProgram& p, const std::vector<InputValue>& inputs,
                               const std::vector<InputDim>& dims) {
  NodeVals vals;
  bool holdable = true;
  RunOptions options(RunMode::Eager);
  options.observe_untaken = true;  // Note [Subgraphs observed where they do not run]
  options.observe = [&](const Node& n, const c10::IValue& v) {
    Val val;
    if (v.isNone()) return;
    if (valOf(v, &val))
      vals[&n] = std::move(val);
    else
      holdable = false;
  };
  if (!runProgram(p, inputs, options).ok() || !holdable) return std::nullopt;
  const std::vector<Node*> placeholders = userPlaceholders(p);
  for (const InputDim& d : dims) {
    const TensorMeta* meta = placeholders[d.input]->meta.val.tensor();
    TensorMeta now = *meta;
    now.sizes.clear();
    for (int64_t s : inputs[d.input].tensor.sizes) now.sizes.push_back(s);
    now.strides = TensorMeta::contiguousStrides(now.sizes);
    vals[placeholders[d.input]] = std::move(now);
  }
  return vals;
}

// Whether `n` is a size read or arithmetic on one (Note [Sizes read as values]).
bool isSizeRead(const Node& n) {
  if (n.target.kind() == Target::Kind::Builtin) {
    const BuiltinOp op = n.target.builtinOp();
    return op == BuiltinOp::Mul || op == BuiltinOp::Add || op == BuiltinOp::Sub;
  }
  const OpInfo* op = n.atenOp();
  return op && op->qualified_name == "aten::sym_size" && op->overload == "int";
}

// A size read's ints made a SymInt where they follow the symbol.
std::optional<Val> fitSizeRead(const ValSamples& at, Fit* fit) {
  Samples samples;
  for (const auto& [s, v] : at) {
    const int64_t* i = v->get<int64_t>();
    if (!i) return std::nullopt;
    samples.emplace_back(s, *i);
  }
  auto fitted = fitInt(samples, false, fit);
  if (!fitted) return std::nullopt;
  if (fitted->isConcrete()) return Val(fitted->concrete());
  return Val(Val::SymInt{fitted->expr()});
}

// Every value of the runs (the first at the example size) made symbolic, and in `*least`
// the least size that keeps every size 2 or more; nullopt where a value does not follow
// the size as Note [Symbolic sizes of generated programs] asks.
std::optional<NodeVals> fitAll(const std::vector<std::pair<int64_t, NodeVals>>& runs, int64_t* least) {
  NodeVals out;
  Fit fit{kGeneratedSymbol};
  for (const auto& [node, v0] : runs[0].second) {
    ValSamples at;
    for (const auto& [size, vals] : runs) {
      auto it = vals.find(node);
      if (it == vals.end()) return std::nullopt;
      at.emplace_back(size, &it->second);
    }
    auto fitted = isSizeRead(*node) ? fitSizeRead(at, &fit) : fitVal(at, &fit);
    if (!fitted) return std::nullopt;
    if (*fitted != v0) out[node] = std::move(*fitted);
  }
  *least = fit.least;
  return out;
}

bool hasSymbolicSize(const Val& v) {
  const TensorMeta* t = v.tensor();
  return t && std::any_of(t->sizes.begin(), t->sizes.end(), [](const SymIntValue& s) { return !s.isConcrete(); });
}

// Whether `a` and `b` have the same sizes but 1s, in some order: what a metadata mutation
// (transpose_, unsqueeze_) keeps and a resize changes.
bool sameSizesButOnes(const TensorMeta& a, const TensorMeta& b) {
  std::vector<SymIntValue> left;
  for (const auto& s : b.sizes) {
    if (s != SymIntValue(1)) left.push_back(s);
  }
  for (const auto& s : a.sizes) {
    if (s == SymIntValue(1)) continue;
    auto it = std::find(left.begin(), left.end(), s);
    if (it == left.end()) return false;
    left.erase(it);
  }
  return left.empty();
}

// Whether a call of `g` resizes a symbolic tensor, `val` giving each node's value.
template <typename ValOf>
bool resizesIn(const Graph& g, const ValOf& val) {
  for (const Node& n : g.nodes()) {
    const OpInfo* op = n.target.kind() == Target::Kind::Aten ? n.target.op() : nullptr;
    if (!op) continue;
    bool resizes = false;
    auto check = [&](const std::string& name, const Argument& a) {
      const int i = op->argumentIndex(name);
      if (i < 0 || !op->arguments[static_cast<size_t>(i)].is_write) return;
      a.forEachNode([&](const Node* w) {
        const TensorMeta* after = val(&n).tensor();
        resizes = resizes || (hasSymbolicSize(val(w)) && (!after || !sameSizesButOnes(*after, *val(w).tensor())));
      });
    };
    for (size_t i = 0; i < n.args.size() && i < op->arguments.size(); ++i) check(op->arguments[i].name, n.args[i]);
    for (const auto& [name, a] : n.kwargs) check(name, a);
    if (resizes) return true;
  }
  return false;
}

// Whether a call writes a tensor whose size follows the symbol into a result of other
// sizes (an out= that resizes it, resize_): whether that grows its storage or shrinks it in
// place depends on the size, a guard no range expresses (export's would be s0*s0 >= 6).
bool resizesASymbolicTensor(const ExportedProgram& p, const NodeVals& fitted) {
  auto val = [&](const Node* n) -> const Val& {
    auto it = fitted.find(n);
    return it != fitted.end() ? it->second : n->meta.val;
  };
  bool resizes = false;
  forEachGraph(p.graph(), [&](const Graph& g) { resizes = resizes || resizesIn(g, val); });
  return resizes;
}

// The nodes of a program's size reads, made as arguments ask for them
// (Note [Sizes read as values]).
class SizeReads {
 public:
  SizeReads(Graph& g, Node* input, size_t dim, int64_t k) : g_(g), input_(input), dim_(dim), k_(k) {}

  // The node whose value is `v` read from the size, made before `user` where it is not
  // made yet; nullptr where `v` is none of the forms read.
  Node* read(int64_t v, Node* user) {
    if (v < 2) return nullptr;
    for (const auto& [a, b] : {std::pair<int64_t, int64_t>{1, 0}, {2, 0}, {1, 1}, {1, -1}}) {
      if (a * k_ + b == v) return made(a, b, user);
    }
    return nullptr;
  }
  bool any() const { return !made_.empty(); }

 private:
  Node* made(int64_t a, int64_t b, Node* user) {
    const auto key = std::make_pair(a, b);
    if (auto it = made_.find(key); it != made_.end()) return it->second;
    Node* n = nullptr;
    if (a == 1 && b == 0) {
      n = g_.insertAfter(g_.placeholders().back(), OpKind::CallFunction, "sym_size_int");
      n->target = Target::aten(findOp("aten::sym_size", "int"));
      n->args = {arg::Tensor{input_}, arg::Int{static_cast<int64_t>(dim_)}};
    } else {
      Node* size = made(1, 0, user);
      const BuiltinOp op = a != 1 ? BuiltinOp::Mul : b > 0 ? BuiltinOp::Add : BuiltinOp::Sub;
      n = g_.insertBefore(user, OpKind::CallFunction, a != 1 ? "mul" : b > 0 ? "add" : "sub");
      n->target = Target::builtin(op);
      n->args = {arg::SymInt{{size}}, arg::Int{a != 1 ? a : std::abs(b)}};
    }
    n->meta.val = a * k_ + b;
    n->meta.nn_module_stack = user->meta.nn_module_stack;
    return made_[key] = n;
  }

  Graph& g_;
  Node* input_;
  size_t dim_;
  int64_t k_;
  std::map<std::pair<int64_t, int64_t>, Node*> made_;
};

// `a`, an argument its schema types SymInt or SymInt[], with each concrete entry that
// `reads` reads made a read of the size.
void readSizesIn(Argument& a, SizeReads& reads, Node* user) {
  using Entry = arg::SymScalar<int64_t>;
  auto entry = [&](int64_t v) {
    Node* r = reads.read(v, user);
    return r ? Entry{r, 0} : Entry{nullptr, v};
  };
  auto entries = [&](const auto& values) {
    arg::SymIntList out;
    for (const auto& v : values) out.values.push_back(v);
    return out;
  };
  if (const auto* i = a.get<arg::Int>()) {
    if (Node* r = reads.read(i->value, user)) a = arg::SymInt{{r, 0}};
  } else if (auto* s = a.get<arg::SymInt>()) {
    if (s->value.isLiteral()) s->value = entry(s->value.literal);
  } else if (const auto* l = a.get<arg::IntList>()) {
    std::vector<Entry> values;
    for (int64_t v : l->values) values.push_back(entry(v));
    if (std::any_of(values.begin(), values.end(), [](const Entry& e) { return !e.isLiteral(); })) a = entries(values);
  } else if (auto* sl = a.get<arg::SymIntList>()) {
    for (Entry& e : sl->values) {
      if (e.isLiteral()) e = entry(e.literal);
    }
  }
}

// `p` with its calls' SymInt arguments that are read from the size of `dims[0]` so read
// (Note [Sizes read as values]); nullopt where no argument is.
std::optional<ExportedProgram> withSizesRead(const ExportedProgram& p, const std::vector<InputDim>& dims) {
  ExportedProgram q = p.clone();
  const InputDim d = dims[0];
  SizeReads reads(q.graph(), userPlaceholders(q)[d.input], d.dim, q.example_inputs[d.input].tensor.sizes[d.dim]);
  std::vector<Node*> calls;
  for (Node& n : q.graph().nodes()) {
    if (n.target.kind() == Target::Kind::Aten) calls.push_back(&n);
  }
  for (Node* n : calls) {
    const OpInfo* op = n->target.op();
    if (op->qualified_name.rfind("aten::as_strided", 0) == 0) continue;
    auto read = [&](const ParamInfo& param, Argument& a) {
      if (param.type == ParamType::SymInt || param.type == ParamType::SymIntList) readSizesIn(a, reads, n);
    };
    for (size_t i = 0; i < n->args.size() && i < op->arguments.size(); ++i) read(op->arguments[i], n->args[i]);
    for (auto& [name, a] : n->kwargs) {
      const int i = op->argumentIndex(name);
      if (i >= 0) read(op->arguments[static_cast<size_t>(i)], a);
    }
  }
  if (!reads.any()) return std::nullopt;
  return q;
}

// The subgraphs higher-order call `n` runs on its operands, each of which a run observes
// (Note [Subgraphs observed where they do not run]): a grad or autocast region's, a cond's
// two branches, a while loop's condition and body, a map's body or a scan's function;
// empty for any other node (with_effects, a higher-order op no generator makes).
std::vector<Graph*> observedSubgraphs(const Graph& g, const Node& n) {
  if (Graph* body = gradRegionBody(g, n)) return {body};
  if (Graph* body = autocastRegionBody(g, n)) return {body};
  if (Graph* fn = mappedFunction(g, n)) return {fn};
  if (Graph* on_true = condBranch(g, n, true); on_true && condBranch(g, n, false))
    return {on_true, condBranch(g, n, false)};
  if (Graph* body = loopBody(g, n); body && loopCondition(g, n)) return {loopCondition(g, n), body};
  return {};
}

// Whether every higher-order call of `p` runs subgraphs a run observes.
bool onlyObservedSubgraphs(const ExportedProgram& p) {
  bool only = true;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) {
      only = only && (n.target.kind() != Target::Kind::HigherOrder || !observedSubgraphs(g, n).empty());
    }
  });
  return only;
}

// One element of `v` along dimension 0, as a map's body or a scan's function is given it
// (select(xs, 0, 0)).
Val elementOf(const Val& v) {
  const TensorMeta* t = v.tensor();
  if (!t || t->sizes.empty()) return Val();
  TensorMeta e = *t;
  e.sizes.erase(e.sizes.begin());
  e.strides.erase(e.strides.begin());
  return e;
}

// The values `g` returns, as fitted (or as they were, where they do not follow the symbol).
std::vector<Val> returnedVals(Graph& g, const NodeVals& fitted) {
  std::vector<Val> out;
  const Node* output = g.outputNode();
  for (const Argument& a : output ? output->args : std::vector<Argument>{}) {
    const auto* t = a.get<arg::Tensor>();
    const auto it = t ? fitted.find(t->node) : fitted.end();
    out.push_back(it != fitted.end() ? it->second : t ? t->node->meta.val : Val());
  }
  return out;
}

// Whether what `n`'s subgraphs return agrees as torch.cond and while_loop (and scan, for
// its carries) ask at every size, not only at the example: both branches the same values,
// a loop body (or a scan's function) its carried values again. At a size where they
// would not, export refuses the module, so the program stays static.
bool subgraphsAgree(const Graph& g, const Node& n, const NodeVals& fitted) {
  const std::vector<Graph*> subs = observedSubgraphs(g, n);
  if (condBranch(g, n, true)) return returnedVals(*subs[0], fitted) == returnedVals(*subs[1], fitted);
  Graph* carrier = loopBody(g, n) ? subs[1] : n.target.name() == "scan" ? subs[0] : nullptr;
  if (!carrier) return true;
  const auto* loop_carried = loopBody(g, n) ? n.args[2].get<arg::TensorList>() : nullptr;
  if (loopBody(g, n) && !loop_carried) return false;
  const size_t carried = loop_carried ? loop_carried->nodes.size() : elementOperands(n).first;
  const std::vector<Val> next = returnedVals(*carrier, fitted);
  const std::vector<const Node*> placeholders = static_cast<const Graph&>(*carrier).placeholders();
  for (size_t i = 0; i < carried && i < next.size() && i < placeholders.size(); ++i) {
    const auto it = fitted.find(placeholders[i]);
    if (next[i] != (it != fitted.end() ? it->second : placeholders[i]->meta.val)) return false;
  }
  return true;
}

// Gives the placeholders of each observed subgraph its operands' fitted values, those of a
// map's body or a scan's function one element's where it takes one; false where a
// placeholder does not hold what its operand's node made (a metadata mutation between the
// two), whose value at other sizes no run observed, where a call of such a subgraph made
// no value at the example size (a map over no element), so no run observed it, or where
// the subgraphs stop agreeing at other sizes (subgraphsAgree).
bool fitSubgraphs(const ExportedProgram& p, const NodeVals& example, NodeVals& fitted) {
  bool held = true;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) {
      const auto [first_element, past_elements] = elementOperands(n);
      const std::vector<const Node*> operands = subgraphOperands(n);
      for (Graph* sub : observedSubgraphs(g, n)) {
        for (const Node& call : sub->nodes())
          held = held && (call.op() != OpKind::CallFunction || example.count(&call));
        const std::vector<const Node*> placeholders = static_cast<const Graph&>(*sub).placeholders();
        for (size_t i = 0; i < placeholders.size(); ++i) {
          const bool element = i >= first_element && i < past_elements;
          const Node* operand = i < operands.size() ? operands[i] : nullptr;
          const auto given = [&](const Val& v) { return element ? elementOf(v) : v; };
          if (!operand || placeholders[i]->meta.val != given(operand->meta.val)) {
            held = false;
            continue;
          }
          if (auto it = fitted.find(operand); it != fitted.end()) fitted[placeholders[i]] = given(it->second);
        }
      }
    }
  });
  if (!held) return false;
  bool agree = true;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) agree = agree && subgraphsAgree(g, n, fitted);
  });
  return agree;
}

// Makes `dims` (all of one size) the symbol where the program follows it; false, and `p`
// as it was, where it does not.
bool fitSymbolic(ExportedProgram& p, const std::vector<InputDim>& dims, bool bounded) {
  const int64_t k = p.example_inputs[dims[0].input].tensor.sizes[dims[0].dim];
  std::vector<std::pair<int64_t, NodeVals>> runs;
  for (int64_t s : {k, k + 1, k + 2}) {
    auto vals = valsAt(p, resized(p, dims, s), dims);
    if (!vals) return false;
    runs.emplace_back(s, std::move(*vals));
  }
  int64_t least = 2;
  auto fitted = fitAll(runs, &least);
  if (!fitted || least > k) return false;  // export specializes a size of 1 at the example
  int64_t lo = k;
  if (least < k) {
    if (auto vals = valsAt(p, resized(p, dims, least), dims)) {
      runs.emplace_back(least, std::move(*vals));
      int64_t least_there = 2;
      if (auto wider = fitAll(runs, &least_there)) {
        fitted = std::move(wider);
        lo = least;
      }
    }
  }
  if (!fitSubgraphs(p, runs[0].second, *fitted) || resizesASymbolicTensor(p, *fitted)) return false;
  ExportedProgram before = p.clone();
  for (auto& [node, val] : *fitted) const_cast<Node*>(node)->meta.val = std::move(val);
  p.range_constraints[kGeneratedSymbol] = RangeConstraint{lo, bounded ? std::optional<int64_t>(k + 2) : std::nullopt};
  if (verify(p, *findDialect("TRAINING")).empty()) return true;
  p = std::move(before);
  return false;
}

// Makes `dims` the symbol, with its SymInt arguments read from the size where the program
// then follows it (Note [Sizes read as values]), else as they are, where it follows it so.
bool makeSymbolic(ExportedProgram& p, const std::vector<InputDim>& dims, bool bounded) {
  if (auto reading = withSizesRead(p, dims); reading && fitSymbolic(*reading, dims, bounded)) {
    p = std::move(*reading);
    return true;
  }
  return fitSymbolic(p, dims, bounded);
}

// The dimensions the symbol may be: those of contiguous user inputs of size 2 or more
// whose meta is concrete.
std::vector<InputDim> candidates(ExportedProgram& p) {
  std::vector<InputDim> out;
  const std::vector<Node*> placeholders = userPlaceholders(p);
  for (size_t i = 0; i < p.example_inputs.size() && i < placeholders.size(); ++i) {
    const TensorMeta* meta = placeholders[i] ? placeholders[i]->meta.val.tensor() : nullptr;
    if (!meta || !remakeable(p, i)) continue;
    for (size_t d = 0; d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].isConcrete() && meta->sizes[d].concrete() >= 2) out.push_back({i, d});
    }
  }
  return out;
}

int64_t sizeOf(const ExportedProgram& p, const InputDim& d) { return p.example_inputs[d.input].tensor.sizes[d.dim]; }

// The example size of `symbol`: the hint of an input dimension that is the symbol alone.
std::optional<int64_t> exampleSize(ExportedProgram& p, const std::string& symbol) {
  for (Node* ph : userPlaceholders(p)) {
    const TensorMeta* meta = ph ? ph->meta.val.tensor() : nullptr;
    for (size_t d = 0; meta && d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].isConcrete() || soleSymbol(meta->sizes[d].expr().expr) != symbol) continue;
      const auto& hint = meta->sizes[d].expr().hint;
      if (hint && std::holds_alternative<int64_t>(*hint)) return std::get<int64_t>(*hint);
    }
  }
  return std::nullopt;
}

}  // namespace

void addSymbolicSize(ExportedProgram& p, uint32_t percent, RandomSource& random) {
  if (!random.chance(percent)) return;
  const std::vector<InputDim> all = candidates(p);
  if (all.empty()) return;
  const InputDim drawn = all[random.below(all.size())];
  const bool bounded = random.chance(50);
  if (!onlyObservedSubgraphs(p)) return;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  std::vector<InputDim> same;
  std::copy_if(all.begin(), all.end(), std::back_inserter(same),
               [&](const InputDim& d) { return sizeOf(p, d) == sizeOf(p, drawn); });
  if (same.size() > 1 && makeSymbolic(p, same, bounded)) return;
  makeSymbolic(p, {drawn}, bounded);
}

std::optional<std::string> resizeInputs(ExportedProgram& p, const std::string& symbol, int64_t size) {
  const std::vector<Node*> placeholders = userPlaceholders(p);
  std::vector<InputDim> dims;
  for (size_t i = 0; i < p.example_inputs.size() && i < placeholders.size(); ++i) {
    const TensorMeta* meta = placeholders[i] ? placeholders[i]->meta.val.tensor() : nullptr;
    for (size_t d = 0; meta && d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].isConcrete() || soleSymbol(meta->sizes[d].expr().expr) != symbol) continue;
      if (!remakeable(p, i) || p.example_inputs[i].tensor.sizes.size() != meta->sizes.size() ||
          p.example_inputs[i].tensor.sizes[d] == 0)
        return "input " + placeholders[i]->name() + " is not a contiguous tensor of its own storage to resize";
      dims.push_back({i, d});
    }
  }
  p.example_inputs = resized(p, dims, size);
  return std::nullopt;
}

void drawCaseSizes(ExportedProgram& p, RandomSource& random) {
  for (const auto& [symbol, range] : p.range_constraints) {
    const auto example = exampleSize(p, symbol);
    if (!example) continue;
    const int64_t lo = std::max<int64_t>(range.min_val.value_or(2), 0);
    const int64_t top = std::min(range.max_val.value_or(*example + 2), *example + 2);
    if (top < lo) continue;
    const int64_t inside = random.range(lo, top);
    const int64_t choices[] = {*example, lo, top, inside};
    const int64_t size = choices[random.below(std::size(choices))];
    // Inputs the tiling cannot remake (a file's) keep their example size.
    if (size != *example) (void)resizeInputs(p, symbol, size);
  }
}

}  // namespace epsmith
