// Program corruptions; see corruptions.h. Each edit is the smallest one that breaks its
// rule in a program that verifies, and leaves every rule the verifier checks earlier intact,
// so the verifier's first diagnostic (the error PyTorch raises) names the intended check.
#include "generators/corruptions.h"

#include <algorithm>
#include <map>
#include <cstdio>
#include <cstdlib>

#include "generators/probe_dialect.h"
#include "ir/grad_mode.h"
#include "ir/subgraphs.h"
#include "ops/op_registry.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

// --- Picking places -------------------------------------------------------------------

template <typename T>
T* pick(std::vector<T*>& items, RandomSource& random) {
  return items.empty() ? nullptr : items[random.below(items.size())];
}

std::vector<Node*> nodesWhere(Graph& g, bool (*keep)(const Node&)) {
  std::vector<Node*> out;
  for (auto& n : g.nodes()) {
    if (keep(n)) out.push_back(&n);
  }
  return out;
}

bool isTensorValued(const Node& n) { return n.meta.val.isTensor(); }
bool isTensorCall(const Node& n) { return n.op() == OpKind::CallFunction && n.meta.val.isTensor(); }
bool isTensorPlaceholder(const Node& n) { return n.isPlaceholder() && n.meta.val.isTensor(); }

// A value any new node may take as its argument: a tensor placeholder.
Node* anyTensorInput(ExportedProgram& p, RandomSource& random) {
  auto inputs = nodesWhere(p.graph(), isTensorPlaceholder);
  return pick(inputs, random);
}

// A new call_function node before the output: `op(arg)`, with arg's val.
Node* insertCall(ExportedProgram& p, const OpInfo* op, Node* arg) {
  Graph& g = p.graph();
  Node* n = g.insertBefore(g.outputNode(), OpKind::CallFunction, op->localName());
  n->target = Target::aten(op);
  n->args = {arg::Tensor{arg}};
  n->meta.val = arg->meta.val;
  return n;
}

// A name for a new attribute: free among the graph's nodes and its attributes (a
// corruption adds an attribute; it never replaces one the program has).
std::string freshAttributeName(const Graph& g, const std::string& base) {
  std::string name = g.uniqueName(base);
  for (int i = 1; g.attributes().count(name); ++i) name = g.uniqueName(base + "_" + std::to_string(i));
  return name;
}

// A get_attr / call_module / call_method node before the output.
Node* insertAttrNode(ExportedProgram& p, OpKind kind, std::string_view name, std::string attr) {
  Graph& g = p.graph();
  Node* n = g.insertBefore(g.outputNode(), kind, name);
  n->attr = std::move(attr);
  return n;
}

std::vector<InputSpec*> inputSpecsOf(ExportedProgram& p, InputKind kind) {
  std::vector<InputSpec*> out;
  for (auto& s : p.signature.input_specs) {
    if (s.kind == kind) out.push_back(&s);
  }
  return out;
}

// Edits one spec of `kind`, drawn at random; false when there is none or `edit` declines
// (before changing anything).
template <typename Edit>
bool editInputSpec(ExportedProgram& p, InputKind kind, RandomSource& random, Edit edit) {
  auto specs = inputSpecsOf(p, kind);
  InputSpec* s = pick(specs, random);
  return s && edit(*s);
}

std::vector<InputSpec*> buffersWhere(ExportedProgram& p, bool persistent) {
  std::vector<InputSpec*> out;
  for (auto* s : inputSpecsOf(p, InputKind::Buffer)) {
    if (s->persistent == persistent) out.push_back(s);
  }
  return out;
}

bool isMutation(OutputKind k) {
  return k == OutputKind::BufferMutation || k == OutputKind::ParameterMutation || k == OutputKind::UserInputMutation;
}

// --- The corruptions, in check-id order -----------------------------------------------

// A subgraph attribute whose node reads a value of the top graph.
bool argNotInGraph(ExportedProgram& p, RandomSource& random) {
  Node* outer = anyTensorInput(p, random);
  if (!outer) return false;
  auto sub = std::make_unique<Graph>();
  Node* a = sub->append(OpKind::Placeholder, "a");
  a->meta.val = outer->meta.val;
  Node* n = sub->append(OpKind::CallFunction, "alias");
  n->target = Target::aten(findOp("aten::alias", ""));
  n->args = {arg::Tensor{outer}};
  n->meta.val = outer->meta.val;
  Node* out = sub->append(OpKind::Output, "output");
  out->args = {arg::Tensor{n}};
  p.graph().attributes()[freshAttributeName(p.graph(), "corrupt_subgraph")] = Attribute::makeSubgraph(std::move(sub));
  return true;
}

// A node reads a value defined after it. Each (tensor argument, later tensor-valued node)
// pair is one place, drawn uniformly; the pairs are counted, not listed, since a program
// of thousands of nodes has millions of them.
bool useBeforeDef(ExportedProgram& p, RandomSource& random) {
  std::vector<std::pair<Argument*, Node*>> args;  // each tensor argument and its reader
  std::map<const Node*, size_t> later;            // per reader: tensor-valued nodes after it
  size_t after = 0, places = 0;
  for (auto n = p.graph().nodes().rbegin(); n != p.graph().nodes().rend(); ++n) {
    later[&*n] = after;
    after += !n->isOutput() && isTensorValued(*n);
  }
  for (auto& n : p.graph().nodes()) {
    if (n.op() != OpKind::CallFunction) continue;
    for (auto& a : n.args) {
      if (a.get<arg::Tensor>() && later[&n] > 0) args.emplace_back(&a, &n), places += later[&n];
    }
  }
  if (places == 0) return false;
  size_t pick = random.below(places);
  for (auto [a, n] : args) {
    if (pick >= later[n]) {
      pick -= later[n];
      continue;
    }
    for (Node* l = n->next(); l; l = l->next()) {
      if (!l->isOutput() && isTensorValued(*l) && pick-- == 0) {
        *a = arg::Tensor{l};
        break;
      }
    }
    return true;
  }
  return false;
}

// A second node under an existing call's name.
bool duplicateNodeName(ExportedProgram& p, RandomSource& random) {
  auto calls = nodesWhere(p.graph(), isTensorCall);
  Node* original = pick(calls, random);
  if (!original) return false;
  Graph& g = p.graph();
  Node* copy = g.insertRawBefore(g.outputNode(), OpKind::CallFunction, original->name());
  copy->target = original->target;
  copy->args = original->args;
  copy->kwargs = original->kwargs;
  copy->meta = original->meta;
  return true;
}

bool nonexistentAttribute(ExportedProgram& p, RandomSource&) {
  insertAttrNode(p, OpKind::GetAttr, "corrupt_get", "no_such.attribute");
  return true;
}

// call_module of a parameter attribute.
bool callModuleTargetNotModule(ExportedProgram& p, RandomSource& random) {
  Node* x = anyTensorInput(p, random);
  if (!x) return false;
  Attribute w;
  w.kind = Attribute::Kind::Parameter;
  const std::string name = freshAttributeName(p.graph(), "corrupt_weight");
  p.graph().attributes()[name] = std::move(w);
  Node* n = insertAttrNode(p, OpKind::CallModule, "corrupt_call", name);
  n->args = {arg::Tensor{x}};
  n->meta.val = x->meta.val;
  return true;
}

bool multipleOutputs(ExportedProgram& p, RandomSource&) {
  Graph& g = p.graph();
  const Node* out = g.outputNode();
  if (!out) return false;
  Node* second = g.appendRaw(OpKind::Output, g.uniqueName("output"));
  second->args = out->args;
  return true;
}

// A call after the output node.
bool outputNotLast(ExportedProgram& p, RandomSource& random) {
  Node* x = anyTensorInput(p, random);
  if (!x) return false;
  Graph& g = p.graph();
  Node* n = g.appendRaw(OpKind::CallFunction, g.uniqueName("after_output"));
  n->target = Target::aten(findOp("aten::alias", ""));
  n->args = {arg::Tensor{x}};
  n->meta.val = x->meta.val;
  return true;
}

bool callModule(ExportedProgram& p, RandomSource& random) {
  Node* x = anyTensorInput(p, random);
  if (!x) return false;
  Attribute m;
  m.kind = Attribute::Kind::Module;
  m.text = "torch.nn.modules.linear.Linear";
  const std::string name = freshAttributeName(p.graph(), "corrupt_linear");
  p.graph().attributes()[name] = std::move(m);
  Node* n = insertAttrNode(p, OpKind::CallModule, "corrupt_call", name);
  n->args = {arg::Tensor{x}};
  n->meta.val = x->meta.val;
  return true;
}

bool callMethod(ExportedProgram& p, RandomSource& random) {
  Node* x = anyTensorInput(p, random);
  if (!x) return false;
  Node* n = insertAttrNode(p, OpKind::CallMethod, "corrupt_method", "relu");
  n->args = {arg::Tensor{x}};
  n->meta.val = x->meta.val;
  return true;
}

// A tensor-valued node other than a getitem: the JSON form folds a getitem into its
// producer's outputs, keeps an opaque value only in epsmith's own metadata, and
// torch.export.load derives a getitem's value from its producer's, so D7 would ask torch
// about a corruption it never sees (2.13 campaigns' torch-accepts root causes, invalid-val
// and then missing-val).
bool holdsItsOwnVal(const Node& n) {
  return isTensorValued(n) && !(n.target.kind() == Target::Kind::Builtin && n.target.builtinOp() == BuiltinOp::GetItem);
}

bool missingVal(ExportedProgram& p, RandomSource& random) {
  auto nodes = nodesWhere(p.graph(), holdsItsOwnVal);
  Node* n = pick(nodes, random);
  if (!n) return false;
  n->meta.val = Val();
  return true;
}

bool invalidVal(ExportedProgram& p, RandomSource& random) {
  auto nodes = nodesWhere(p.graph(), holdsItsOwnVal);
  Node* n = pick(nodes, random);
  if (!n) return false;
  n->meta.val = Val::Opaque{"object"};
  return true;
}

bool disallowedOp(ExportedProgram& p, RandomSource& random) {
  auto calls = nodesWhere(p.graph(), isTensorCall);
  Node* n = pick(calls, random);
  if (!n) return false;
  n->target = Target::other("operator.matmul");
  return true;
}

// add_ in a program verified as ATEN (a TRAINING program is switched to ATEN: its own
// in-place ops then break the same rule).
bool nonFunctionalOp(ExportedProgram& p, RandomSource& random) {
  auto inputs = nodesWhere(p.graph(), isTensorPlaceholder);
  Node* x = pick(inputs, random);
  if (!x) return false;
  Node* n = insertCall(p, findOp("aten::add_", "Tensor"), x);
  n->args.push_back(arg::Tensor{x});
  p.setDialect(IrDialect::Aten);
  return true;
}

// Dialect checks exist only in dialects that define them: a functional program moves to the
// probe dialect and gains the one op it refuses.
bool dialectOp(ExportedProgram& p, RandomSource& random) {
  if (p.dialectName() != "ATEN") return false;
  Node* x = anyTensorInput(p, random);
  if (!x) return false;
  insertCall(p, findOp("aten::alias_copy", ""), x);
  useProbeDialect(p);
  return true;
}

bool invalidGetAttrType(ExportedProgram& p, RandomSource&) {
  Attribute w;
  w.kind = Attribute::Kind::Parameter;
  const std::string name = freshAttributeName(p.graph(), "corrupt_weight");
  p.graph().attributes()[name] = std::move(w);
  insertAttrNode(p, OpKind::GetAttr, "corrupt_get", name);
  return true;
}

bool invalidLoweredModule(ExportedProgram& p, RandomSource&) {
  Attribute m;
  m.kind = Attribute::Kind::Module;
  m.text = "LoweredBackendModule";
  m.field_types = {{"backend_id", "str"}, {"processed_bytes", "str"}, {"compile_specs", "list"}};
  m.has_original_module = true;
  const std::string name = freshAttributeName(p.graph(), "corrupt_lowered");
  p.graph().attributes()[name] = std::move(m);
  insertAttrNode(p, OpKind::GetAttr, "corrupt_get", name);
  return true;
}

// The output returns one value twice (its spec listed twice, so the signature agrees).
bool dialectGraph(ExportedProgram& p, RandomSource& random) {
  if (p.dialectName() != "ATEN" || p.signature.output_specs.empty()) return false;
  // Under the probe dialect a generated alias_copy would be the first thing reported, in
  // a subgraph (a map's body) as in the graph.
  bool refused = false;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) refused = refused || (n.op() == OpKind::CallFunction && probeRefuses(n.target));
  });
  if (refused) return false;
  Node* out = p.graph().outputNode();
  const size_t i = random.below(out->args.size());
  const auto* t = out->args[i].get<arg::Tensor>();
  if (!t || p.signature.output_specs[i].kind != OutputKind::UserOutput) return false;
  out->args.push_back(out->args[i]);
  p.signature.output_specs.push_back(p.signature.output_specs[i]);
  useProbeDialect(p);
  return true;
}

bool callGraphInputMissing(ExportedProgram& p, RandomSource&) {
  if (p.module_call_graph.empty() || !p.module_call_graph[0].signature) return false;
  p.module_call_graph[0].signature->inputs.push_back(SpecArg::tensor("no_such_input"));
  return true;
}

bool callGraphOutputMissing(ExportedProgram& p, RandomSource&) {
  if (p.module_call_graph.empty() || !p.module_call_graph[0].signature) return false;
  p.module_call_graph[0].signature->outputs.push_back(SpecArg::tensor("no_such_output"));
  return true;
}

// The last input spec dropped: one placeholder more than specs.
bool inputCount(ExportedProgram& p, RandomSource&) {
  if (p.signature.input_specs.empty()) return false;
  p.signature.input_specs.pop_back();
  return true;
}

// Two specs of one kind swap the placeholders they name (so each name is still an input
// of that kind, and nothing else changes).
bool inputName(ExportedProgram& p, RandomSource& random) {
  std::vector<std::pair<size_t, size_t>> pairs;
  auto& specs = p.signature.input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (size_t j = i + 1; j < specs.size(); ++j) {
      if (specs[i].kind == specs[j].kind && specs[i].arg.kind == specs[j].arg.kind) pairs.emplace_back(i, j);
    }
  }
  if (pairs.empty()) return false;
  auto [i, j] = pairs[random.below(pairs.size())];
  std::swap(specs[i].arg.name, specs[j].arg.name);
  return true;
}

std::vector<InputSpec*> liftedSpecs(ExportedProgram& p) {
  std::vector<InputSpec*> out;
  for (auto& s : p.signature.input_specs) {
    if (s.kind == InputKind::Parameter || s.kind == InputKind::Buffer || s.kind == InputKind::ConstantTensor) {
      out.push_back(&s);
    }
  }
  return out;
}

bool specMissingTarget(ExportedProgram& p, RandomSource& random) {
  auto specs = liftedSpecs(p);
  InputSpec* s = pick(specs, random);
  if (!s) return false;
  s->target.reset();
  return true;
}

bool parameterNotTensor(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::Parameter, random, [&](InputSpec& s) {
    s.arg.kind = SpecArg::Kind::Token;
    return true;
  });
}

bool parameterNotInStateDict(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::Parameter, random, [&](InputSpec& s) {
    if (!s.target) return false;
    p.state_dict.erase(*s.target);
    return true;
  });
}

bool parameterNotParameter(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::Parameter, random, [&](InputSpec& s) {
    if (!s.target || !p.state_dict.count(*s.target)) return false;
    p.state_dict[*s.target].is_parameter = false;
    return true;
  });
}

bool bufferNotTensor(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::Buffer, random, [&](InputSpec& s) {
    s.arg.kind = SpecArg::Kind::SymInt;
    return true;
  });
}

bool bufferMissingPersistence(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::Buffer, random, [&](InputSpec& s) {
    s.persistent.reset();
    return true;
  });
}

bool bufferNotInStateDict(ExportedProgram& p, RandomSource& random) {
  auto specs = buffersWhere(p, true);
  InputSpec* s = pick(specs, random);
  if (!s || !s->target) return false;
  p.state_dict.erase(*s->target);
  return true;
}

// A persistent buffer (in the state dict) marked non-persistent.
bool nonPersistentBufferInStateDict(ExportedProgram& p, RandomSource& random) {
  auto specs = buffersWhere(p, true);
  InputSpec* s = pick(specs, random);
  if (!s) return false;
  s->persistent = false;
  return true;
}

bool constantNotTensor(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::ConstantTensor, random, [&](InputSpec& s) {
    s.arg.kind = SpecArg::Kind::SymFloat;
    return true;
  });
}

bool constantNotInConstants(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::ConstantTensor, random, [&](InputSpec& s) {
    if (!s.target) return false;
    p.constants.erase(*s.target);
    return true;
  });
}

// A user input relabelled a custom object (its argument still a tensor).
bool customObjNotCustomObj(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::UserInput, random, [&](InputSpec& s) {
    s.kind = InputKind::CustomObj;
    s.target = "corrupt_object";
    return true;
  });
}

// A user input relabelled a custom object that the constants do not hold.
bool customObjNotInConstants(ExportedProgram& p, RandomSource& random) {
  return editInputSpec(p, InputKind::UserInput, random, [&](InputSpec& s) {
    s.kind = InputKind::CustomObj;
    s.arg.kind = SpecArg::Kind::CustomObj;
    s.arg.class_fqn = "__torch__.torch.classes.epsmith.Missing";
    s.target = "corrupt_object";
    return true;
  });
}

// The token's spec argument a tensor; without a token, a user input relabelled a token.
bool tokenNotToken(ExportedProgram& p, RandomSource& random) {
  auto tokens = inputSpecsOf(p, InputKind::Token);
  if (InputSpec* t = pick(tokens, random)) {
    t->arg.kind = SpecArg::Kind::Tensor;
    return true;
  }
  auto specs = inputSpecsOf(p, InputKind::UserInput);
  InputSpec* s = pick(specs, random);
  if (!s) return false;
  s->kind = InputKind::Token;
  return true;
}

bool unknownInputKind(ExportedProgram& p, RandomSource& random) {
  if (p.signature.input_specs.empty()) return false;
  p.signature.input_specs[random.below(p.signature.input_specs.size())].kind = static_cast<InputKind>(42);
  return true;
}

bool outputCount(ExportedProgram& p, RandomSource&) {
  if (p.signature.output_specs.empty()) return false;
  p.signature.output_specs.push_back(p.signature.output_specs.back());
  return true;
}

// Retargets a mutation output of `kind`; without one, the first user output becomes one
// (it then sits right after the mutation slice, where mutations are looked for).
bool mutationTarget(ExportedProgram& p, RandomSource& random, OutputKind kind) {
  std::vector<OutputSpec*> same;
  std::vector<std::string> mutated;  // names of mutation outputs
  OutputSpec* first_user = nullptr;
  for (auto& s : p.signature.output_specs) {
    if (s.kind == kind) same.push_back(&s);
    if (isMutation(s.kind)) mutated.push_back(s.arg.name);
    if (s.kind == OutputKind::UserOutput && !first_user) first_user = &s;
  }
  OutputSpec* s = pick(same, random);
  if (!s) {
    // PyTorch finds mutations by node name: a user output that is also another mutation's
    // value would be checked as that mutation.
    if (!first_user || std::count(mutated.begin(), mutated.end(), first_user->arg.name)) return false;
    s = first_user;
    s->kind = kind;
  }
  s->target = "no_such_target";
  return true;
}

bool bufferMutationTarget(ExportedProgram& p, RandomSource& random) {
  return mutationTarget(p, random, OutputKind::BufferMutation);
}
bool parameterMutationTarget(ExportedProgram& p, RandomSource& random) {
  return mutationTarget(p, random, OutputKind::ParameterMutation);
}
bool userInputMutationTarget(ExportedProgram& p, RandomSource& random) {
  return mutationTarget(p, random, OutputKind::UserInputMutation);
}

// The graph returns a user output's value where a mutation's value belongs.
bool mutationOutputKind(ExportedProgram& p, RandomSource& random) {
  Node* out = p.graph().outputNode();
  const auto& specs = p.signature.output_specs;
  if (!out || out->args.size() != specs.size()) return false;
  std::vector<size_t> mutations, users;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (isMutation(specs[i].kind)) mutations.push_back(i);
    if (specs[i].kind == OutputKind::UserOutput && out->args[i].get<arg::Tensor>()) users.push_back(i);
  }
  if (mutations.empty() || users.empty()) return false;
  const size_t m = mutations[random.below(mutations.size())];
  const Node* replacement = out->args[users[random.below(users.size())]].get<arg::Tensor>()->node;
  // The replacement must be no mutation's value, or the slice would still hold a mutation.
  for (size_t i : mutations) {
    const auto* t = out->args[i].get<arg::Tensor>();
    if (t && t->node == replacement) return false;
  }
  out->args[m] = arg::Tensor{const_cast<Node*>(replacement)};
  return true;
}

// Two user outputs trade places in the signature (or the only one names another value).
bool userOutputOrder(ExportedProgram& p, RandomSource& random) {
  std::vector<OutputSpec*> users;
  for (auto& s : p.signature.output_specs) {
    if (s.kind == OutputKind::UserOutput && s.arg.kind == SpecArg::Kind::Tensor) users.push_back(&s);
  }
  for (size_t i = 0; i < users.size(); ++i) {
    for (size_t j = i + 1; j < users.size(); ++j) {
      if (users[i]->arg.name != users[j]->arg.name) {
        std::swap(users[i]->arg.name, users[j]->arg.name);
        return true;
      }
    }
  }
  OutputSpec* s = pick(users, random);
  if (!s) return false;
  for (auto& n : p.graph().nodes()) {
    if (isTensorValued(n) && n.name() != s->arg.name) {
      s->arg.name = n.name();
      return true;
    }
  }
  return false;
}

bool unknownDialect(ExportedProgram& p, RandomSource&) {
  p.verifiers = {"NO_SUCH_DIALECT"};
  return true;
}

// Every edit above must leave the program untouched when it returns false; the ones that
// check before editing do. The table is in check-id order.
const std::vector<Corruption>& table() {
  constexpr auto kGraph = Corruption::Scope::Graph;
  constexpr auto kProgram = Corruption::Scope::Program;
  static const std::vector<Corruption> t = {
      {CheckId::ArgNotInGraph, "a subgraph node reads a value of the top graph", argNotInGraph, kGraph},
      {CheckId::UseBeforeDef, "a node reads a value defined after it", useBeforeDef, kGraph},
      {CheckId::DuplicateNodeName, "a second node under an existing name", duplicateNodeName, kGraph},
      {CheckId::NonexistentAttribute, "get_attr of an attribute that does not exist", nonexistentAttribute, kGraph},
      {CheckId::CallModuleTargetNotModule, "call_module of a parameter", callModuleTargetNotModule, kGraph},
      {CheckId::MultipleOutputs, "a second output node", multipleOutputs, kGraph},
      {CheckId::OutputNotLast, "a call after the output node", outputNotLast, kGraph},
      {CheckId::CallModule, "a call_module node", callModule, kGraph},
      {CheckId::CallMethod, "a call_method node", callMethod, kGraph},
      {CheckId::MissingVal, "a node's meta.val dropped", missingVal, kGraph},
      {CheckId::InvalidVal, "a node's meta.val an opaque object", invalidVal, kGraph},
      {CheckId::DisallowedOp, "a call's target operator.matmul", disallowedOp, kGraph},
      {CheckId::NonFunctionalOp, "add_ in a program verified as ATEN", nonFunctionalOp, kGraph},
      {CheckId::DialectOp, "the op the probe dialect refuses", dialectOp, kGraph},
      {CheckId::InvalidGetAttrType, "get_attr of a parameter at the top level", invalidGetAttrType, kGraph},
      {CheckId::InvalidLoweredModule, "get_attr of a LoweredBackendModule with bytes as str", invalidLoweredModule,
       kGraph},
      {CheckId::DialectGraph, "the graph returns a value twice (probe dialect)", dialectGraph, kGraph},
      {CheckId::CallGraphInputMissing, "the root module call lists an input that is no node", callGraphInputMissing,
       kProgram},
      {CheckId::CallGraphOutputMissing, "the root module call lists an output that is no node", callGraphOutputMissing,
       kProgram},
      {CheckId::InputCount, "the last input spec dropped", inputCount, kProgram},
      {CheckId::InputName, "two input specs swap their placeholders", inputName, kProgram},
      {CheckId::SpecMissingTarget, "a lifted input spec loses its target", specMissingTarget, kProgram},
      {CheckId::ParameterNotTensor, "a parameter spec's argument a token", parameterNotTensor, kProgram},
      {CheckId::ParameterNotInStateDict, "a parameter taken out of the state dict", parameterNotInStateDict, kProgram},
      {CheckId::ParameterNotParameter, "a parameter's state entry a plain tensor", parameterNotParameter, kProgram},
      {CheckId::BufferNotTensor, "a buffer spec's argument a SymInt", bufferNotTensor, kProgram},
      {CheckId::BufferMissingPersistence, "a buffer spec loses its persistent flag", bufferMissingPersistence,
       kProgram},
      {CheckId::BufferNotInStateDict, "a persistent buffer taken out of the state dict", bufferNotInStateDict,
       kProgram},
      {CheckId::NonPersistentBufferInStateDict, "a buffer in the state dict marked non-persistent",
       nonPersistentBufferInStateDict, kProgram},
      {CheckId::ConstantNotTensor, "a tensor constant's argument a SymFloat", constantNotTensor, kProgram},
      {CheckId::ConstantNotInConstants, "a tensor constant taken out of the constants", constantNotInConstants,
       kProgram},
      {CheckId::CustomObjNotCustomObj, "a user input relabelled a custom object", customObjNotCustomObj, kProgram},
      {CheckId::CustomObjNotInConstants, "a custom object input the constants do not hold", customObjNotInConstants,
       kProgram},
      {CheckId::TokenNotToken, "a token spec whose argument is a tensor", tokenNotToken, kProgram},
      {CheckId::UnknownInputKind, "an input spec of kind 42", unknownInputKind, kProgram},
      {CheckId::OutputCount, "one output spec more than graph outputs", outputCount, kProgram},
      {CheckId::BufferMutationTarget, "a buffer mutation naming no buffer", bufferMutationTarget, kProgram},
      {CheckId::ParameterMutationTarget, "a parameter mutation naming no parameter", parameterMutationTarget, kProgram},
      {CheckId::UserInputMutationTarget, "a user input mutation naming no user input", userInputMutationTarget,
       kProgram},
      {CheckId::MutationOutputKind, "a user output's value in the mutation slice", mutationOutputKind, kGraph},
      {CheckId::UserOutputOrder, "user outputs reordered in the signature", userOutputOrder, kProgram},
      {CheckId::UnknownDialect, "the program names a dialect with no verifier", unknownDialect, kProgram},
  };
  return t;
}

}  // namespace

const std::vector<Corruption>& corruptions() { return table(); }

const Corruption& corruptionFor(CheckId check) { return table()[static_cast<size_t>(check)]; }

// Note [Parameters written under grad]
// Export refuses a program that writes a parameter with grad mode on where autograd
// refuses the write (a leaf that requires grad, written in place by an op with a
// derivative: Note [Writes autograd lets through]), and eager refuses it alike, so
// building programs call by call on real tensors never makes one. It is made as a
// targeted corruption instead, as D6 makes the verifier's: half of the refused share's
// programs that write a parameter inside a no_grad region lose every `_set_grad_enabled`
// call (the generator's run()). Eager then raises (D1 and D2 skip); run_decompositions
// may take the program, which export under no_grad makes too, and where it refuses, D8
// compares its reason with the functionalizer's (Note [Parameters written with grad on]).
// A write autograd lets through is exported by both.
void dropGradRegions(ExportedProgram& p) {
  Graph& g = p.graph();
  std::vector<Node*> toggles;
  for (Node& n : g.nodes()) {
    if (setsGradMode(n)) toggles.push_back(&n);
  }
  for (Node* n : toggles) g.erase(n);
}

}  // namespace epsmith
