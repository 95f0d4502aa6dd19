// The value passes and meta.val rebuilding; see passes.h.
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <map>

#include "ir/grad_regions.h"
#include "minimizer/passes.h"
#include "ops/call_args.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "oracle/run.h"
#include "oracle/values.h"

namespace epsmith {
namespace {

// The placeholder name of each user input, in example-input order.
std::vector<std::string> userInputNames(const ExportedProgram& p) {
  std::vector<std::string> names;
  for (const auto& s : p.signature.input_specs) {
    if (s.kind == InputKind::UserInput) names.push_back(s.arg.name);
  }
  return names;
}

// Replaces user input `i` by `make(old)`, fixes its placeholder's meta.val and rebuilds the
// rest; false when it does not apply or the program stops running.
bool replaceUserInput(ExportedProgram& q, size_t i, const std::function<at::Tensor(const at::Tensor&)>& make) {
  const auto names = userInputNames(q);
  if (i >= q.example_inputs.size() || i >= names.size()) return false;
  InputValue& in = q.example_inputs[i];
  if (in.kind != InputValue::Kind::Tensor) return false;
  Node* ph = q.graph().find(names[i]);
  if (!ph) return false;
  TensorMaterializer m;
  at::Tensor old = m.materialize(in.tensor);
  at::Tensor fresh;
  {
    at::NoGradGuard no_grad;
    fresh = make(old.detach());
  }
  if (!fresh.defined()) return false;
  fresh.requires_grad_(old.requires_grad());
  ExportedProgram saved = q.clone();
  in.tensor = toTensorValue(fresh);
  ph->meta.val = tensorMetaOf(fresh);
  if (!refreshVals(q)) {
    q = std::move(saved);
    return false;
  }
  return true;
}

// The value eager computes for `name` when it runs (a dense copy), or an undefined tensor
// when the run never gets there.
at::Tensor valueOf(const ExportedProgram& p, const std::string& name) {
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  at::Tensor value;
  RunOptions options(RunMode::Eager);
  options.observe = [&](const Node& n, const c10::IValue& v) {
    if (!value.defined() && v.isTensor() && n.name() == name) {
      at::NoGradGuard no_grad;
      value = v.toTensor().detach().clone(at::MemoryFormat::Contiguous);
    }
  };
  runProgram(p, options);
  return value;
}

// A new user input holding `value`, after the last placeholder.
Node* addUserInput(ExportedProgram& q, const std::string& name, const at::Tensor& value) {
  Graph& g = q.graph();
  Node* last = nullptr;
  for (Node* ph : g.placeholders()) last = ph;
  Node* fresh = last ? g.insertAfter(last, OpKind::Placeholder, name)
                     : g.insertBefore(&*g.nodes().begin(), OpKind::Placeholder, name);
  fresh->meta.val = tensorMetaOf(value);
  q.signature.input_specs.push_back(
      InputSpec{InputKind::UserInput, SpecArg::tensor(fresh->name()), std::nullopt, std::nullopt});
  InputValue in;
  in.kind = InputValue::Kind::Tensor;
  in.tensor = toTensorValue(value);
  q.example_inputs.push_back(std::move(in));
  return fresh;
}

// Whether a mutation output of a TRAINING program names `n`, a write of its target (add_
// of a buffer, or a piece of an out= call's results): the output then says that the write
// reached its target in the graph. An input in its place would ask for a write-back of a
// value the graph never wrote, a program torch.export does not make, on which eager,
// ep.module() and run_decompositions disagree: the minimizer must not walk into it
// (Note [A mutation output names a write]).
bool mutationOutputNamesAWrite(const ExportedProgram& q, const Node& n) {
  if (!isTraining(q)) return false;
  const auto& specs = q.signature.output_specs;
  return std::any_of(specs.begin(), specs.end(),
                     [&](const OutputSpec& s) { return isMutation(s) && s.arg.name == n.name(); });
}

// Replaces the call `name` by a new user input holding its eager value.
bool cutToInput(ExportedProgram& q, const std::string& name) {
  Graph& g = q.graph();
  Node* n = g.find(name);
  if (!n || n->op() != OpKind::CallFunction || !n->meta.val.tensor() || g.users(n).empty()) return false;
  if (mutationOutputNamesAWrite(q, *n)) return false;
  at::Tensor value = valueOf(q, name);
  if (!value.defined()) return false;
  Node* fresh = addUserInput(q, name + "_cut", value);
  g.replaceAllUsesWith(n, fresh);
  renameReferences(q, name, fresh->name());
  g.erase(n);
  return refreshVals(q);
}

// The index among the user inputs of the one tensor call `n` writes (in place or as its
// out), where that is a user input `n` is the first to read; -1 otherwise.
int foldableInput(const ExportedProgram& p, const Node& n) {
  const OpInfo* op = n.atenOp();
  if (!op) return -1;
  const OpRoleInfo& role = opRole(*op);
  if ((role.role != OpRole::InPlace && role.role != OpRole::Out) || role.written.size() != 1) return -1;
  const Argument* a = schemaArgument(n, *op, static_cast<size_t>(role.written[0]));
  const auto* t = a ? a->get<arg::Tensor>() : nullptr;
  if (!t || !t->node || t->node->op() != OpKind::Placeholder) return -1;
  const auto names = userInputNames(p);
  const auto at = std::find(names.begin(), names.end(), t->node->name());
  if (at == names.end()) return -1;
  const auto users = p.graph().users(t->node);
  for (const Node& m : p.graph().nodes()) {
    if (std::find(users.begin(), users.end(), &m) != users.end()) {
      return &m == &n ? static_cast<int>(at - names.begin()) : -1;
    }
  }
  return -1;
}

// Note [Folding a write into its input]
// A call that writes a user input before anything else reads it (x.frac_(), or
// frac.out(y, out=x)) decides only what every later op sees in x. remove-nodes changes
// that value, and cut-to-input takes calls whose result is read, so a failure that needs
// x's value but not the write kept the call, and its op went into the root cause: a
// binary_cross_entropy.out of a 0-dim input that frac_ had put in [0, 1] was filed apart
// from the same bug met without frac_. fold-into-input drops such a call and gives x the
// value eager left in it.
bool foldIntoInput(ExportedProgram& q, const std::string& name) {
  Graph& g = q.graph();
  Node* n = g.find(name);
  const int i = n ? foldableInput(q, *n) : -1;
  if (i < 0 || static_cast<size_t>(i) >= q.example_inputs.size()) return false;
  InputValue& in = q.example_inputs[static_cast<size_t>(i)];
  at::Tensor value = valueOf(q, name);  // the call hands back what it wrote
  if (in.kind != InputValue::Kind::Tensor || !value.defined()) return false;
  Node* ph = g.find(userInputNames(q)[static_cast<size_t>(i)]);
  value.requires_grad_(in.tensor.requires_grad && value.is_floating_point());
  in.tensor = toTensorValue(value);
  ph->meta.val = tensorMetaOf(value);
  auto& specs = q.signature.output_specs;  // the input is no longer written
  Node* o = g.outputNode();
  for (size_t k = specs.size(); k-- > 0;) {
    if (specs[k].kind != OutputKind::UserInputMutation || specs[k].arg.name != name) continue;
    if (!o || k >= o->args.size()) return false;
    specs.erase(specs.begin() + static_cast<long>(k));
    o->args.erase(o->args.begin() + static_cast<long>(k));
  }
  g.replaceAllUsesWith(n, ph);
  renameReferences(q, name, ph->name());
  g.erase(n);
  return refreshVals(q);
}

}  // namespace

bool standInByClone(ExportedProgram& q, const std::string& name) {
  Graph& g = q.graph();
  Node* n = g.find(name);
  if (!n || n->op() != OpKind::CallFunction || !n->meta.val.tensor()) return false;
  at::Tensor value = valueOf(q, name);
  const OpInfo* clone = findOpByName("aten::clone");
  if (!value.defined() || !clone) return false;
  Node* fresh = addUserInput(q, name + "_value", value);
  Node* copy = g.insertBefore(n, OpKind::CallFunction, name + "_clone");
  copy->target = Target::aten(clone);
  copy->args = {arg::Tensor{fresh}};
  copy->meta.val = fresh->meta.val;
  g.replaceAllUsesWith(n, copy);
  renameReferences(q, name, copy->name());
  g.erase(n);
  return refreshVals(q);
}

// Note [Cutting a call to an input]
// remove-nodes reconnects a removed call's uses to one of its own operands, which changes
// the shape or the values the next op sees; a bug that needs a particular operand (a view
// with an offset, a tensor of some size) then keeps every op that made it, and the minimized
// program carries incidental ops — into its bucket's op set, so one bug would fill several
// buckets. cut-to-input instead replaces a call by a new user input holding exactly the
// value eager computed for it; the ops that only fed it become dead and go in later rounds.
// Latest calls are tried first: the cut closest to the failing op removes the most.
std::vector<Variant> cutToInputs(const ExportedProgram& p) {
  std::vector<Variant> out;
  std::vector<std::string> names;
  for (const auto& n : p.graph().nodes()) {
    if (n.op() == OpKind::CallFunction && n.meta.val.tensor() && !p.graph().users(&n).empty())
      names.push_back(n.name());
  }
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    const std::string name = *it;
    out.push_back({"cut-to-input: %" + name, [name](ExportedProgram& q) { return cutToInput(q, name); }});
  }
  return out;
}

namespace {

// What a placeholder for one element of `v` holds: its sizes less the leading one, laid out
// contiguous, as export lays out the xs elements of a map's or a scan's function.
Val elementVal(const Val& v) {
  const TensorMeta* t = v.tensor();
  if (!t || t->sizes.empty()) return v;
  TensorMeta e = *t;
  e.sizes = SymIntList(t->sizes.begin() + 1, t->sizes.end());
  e.strides = TensorMeta::contiguousStrides(e.sizes);
  e.storage_offset = 0;
  return e;
}

// A subgraph's placeholders stand for the operands its call passes, those after its last
// graph argument (wrap_with_set_grad_enabled's *operands, cond's operand list, which both
// branches take), whose vals are set by then: they take those vals, or one element's.
void setOperandVals(Graph& g, const Node& call) {
  std::vector<Graph*> subs;
  for (const Argument& a : call.args) {
    const auto* graph = a.get<arg::Graph>();
    auto it = graph && graph->node ? g.attributes().find(graph->node->attr) : g.attributes().end();
    if (it != g.attributes().end() && it->second.subgraph) subs.push_back(it->second.subgraph.get());
  }
  const std::vector<const Node*> operands = subgraphOperands(call);
  const auto [first_element, past_elements] = elementOperands(call);
  for (Graph* sub : subs) {
    std::vector<Node*> placeholders = sub->placeholders();
    for (size_t i = 0; i < placeholders.size() && i < operands.size(); ++i) {
      if (!operands[i]) continue;
      const bool element = i >= first_element && i < past_elements;
      placeholders[i]->meta.val = element ? elementVal(operands[i]->meta.val) : operands[i]->meta.val;
    }
  }
}

// The observed values of `g`'s calls and of its subgraphs' calls, which the run shows
// too: a region whose calls kept the sizes they had before a shrink would not verify.
void setVals(Graph& g, const std::map<const Node*, Val>& vals) {
  for (Node& n : g.nodes()) {
    if (auto it = vals.find(&n); it != vals.end()) n.meta.val = it->second;
    setOperandVals(g, n);
  }
  for (auto& [path, attr] : g.attributes()) {
    if (attr.subgraph) setVals(*attr.subgraph, vals);
  }
}

}  // namespace

bool refreshVals(ExportedProgram& p) {
  compat::WarningHandlerGuard quiet(silentWarningHandler());  // warnings are about programs
  std::map<const Node*, Val> vals;
  bool holdable = true;
  RunOptions options(RunMode::Eager);
  options.observe = [&](const Node& n, const c10::IValue& v) {
    if (v.isNone()) return;
    Val val;
    if (valOf(v, &val))
      vals[&n] = std::move(val);
    else
      holdable = false;
  };
  RunResult r = runProgram(p, options);
  if (!r.ok() || !holdable) return false;
  setVals(p.graph(), vals);
  return true;
}

std::vector<Variant> foldIntoInputs(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (const auto& n : p.graph().nodes()) {
    if (foldableInput(p, n) < 0) continue;
    const std::string name = n.name();
    out.push_back({"fold-into-input: %" + name, [name](ExportedProgram& q) { return foldIntoInput(q, name); }});
  }
  return out;
}

std::vector<Variant> shrinkShapes(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (size_t i = 0; i < p.example_inputs.size(); ++i) {
    const InputValue& in = p.example_inputs[i];
    if (in.kind != InputValue::Kind::Tensor) continue;
    const auto& sizes = in.tensor.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      std::vector<int64_t> targets{1};
      if (sizes[d] / 2 > 1) targets.push_back(sizes[d] / 2);
      for (int64_t to : targets) {
        if (to >= sizes[d]) continue;
        out.push_back({"shrink-shapes: input " + std::to_string(i) + " dim " + std::to_string(d) + " " +
                           std::to_string(sizes[d]) + " -> " + std::to_string(to),
                       [i, d, to](ExportedProgram& q) {
                         return replaceUserInput(q, i, [&](const at::Tensor& t) {
                           return t.narrow(static_cast<int64_t>(d), 0, to).clone(at::MemoryFormat::Contiguous);
                         });
                       }});
      }
    }
  }
  return out;
}

std::vector<Variant> simplifyDtypes(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (size_t i = 0; i < p.example_inputs.size(); ++i) {
    const InputValue& in = p.example_inputs[i];
    if (in.kind != InputValue::Kind::Tensor || in.tensor.dtype() == ScalarType::Float) continue;
    out.push_back({"simplify-dtypes: input " + std::to_string(i) + " -> f32", [i](ExportedProgram& q) {
                     return replaceUserInput(q, i, [](const at::Tensor& t) { return t.to(at::kFloat); });
                   }});
  }
  return out;
}

}  // namespace epsmith
