// The delta engine and its passes; see minimize.h. Variants are edits of a clone, named by
// node names (pointers differ between clones).
#include "minimizer/minimize.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "ir/call_specs.h"
#include "ir/state_keys.h"
#include "ir/grad_regions.h"
#include "ir/subgraphs.h"
#include "minimizer/passes.h"
#include "ops/call_args.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"
#include "verifier/verifier.h"

namespace epsmith {

void renameReferences(ExportedProgram& p, const std::string& from, const std::string& to) {
  for (auto& s : p.signature.output_specs) {
    if (s.arg.hasNodeName() && s.arg.name == from) s.arg.name = to;
  }
  for (auto& entry : p.module_call_graph) {
    if (!entry.signature) continue;
    for (auto* list : {&entry.signature->inputs, &entry.signature->outputs}) {
      for (auto& a : *list) {
        if (a.hasNodeName() && a.name == from) a.name = to;
      }
    }
  }
}

namespace {

// State target `was` ("layer.inner.weight0") renamed to its last part, its placeholder
// renamed as torch.export names lifted state (its prefix, then the name), and every
// reference to either; false where another state already holds the short name.
bool flattenStateName(ExportedProgram& q, const std::string& was) {
  const std::string to = was.substr(was.rfind('.') + 1);
  InputSpec* spec = nullptr;
  for (InputSpec& s : q.signature.input_specs) {
    if (s.target == to) return false;
    if (s.target == was) spec = &s;
  }
  Node* n = spec ? q.graph().find(spec->arg.name) : nullptr;
  if (!n || q.state_dict.count(to) || q.constants.count(to)) return false;
  const std::string old_name = n->name();
  spec->target = to;
  for (const char* prefix : {"p_", "b_", "c_"}) {  // a name torch.export gave it
    if (old_name.rfind(prefix, 0) != 0) continue;
    spec->arg.name = q.graph().rename(n, prefix + to);
    renameReferences(q, old_name, spec->arg.name);
  }
  for (OutputSpec& s : q.signature.output_specs) {
    if (s.target == was && s.kind != OutputKind::UserInputMutation) s.target = to;
  }
  renameStateKey(q, was, to);
  return true;
}

size_t callCount(const ExportedProgram& p) {
  size_t n = 0;
  for (const auto& node : p.graph().nodes()) n += node.op() == OpKind::CallFunction ? 1 : 0;
  return n;
}

// A get_attr that nothing reads any more goes, and the subgraph or constant it read with it
// where no other get_attr reads that: a removed region leaves neither behind.
void dropUnusedGetAttr(Graph& g, Node* attr) {
  if (!g.users(attr).empty()) return;
  const std::string path = attr->attr;
  g.erase(attr);
  for (const Node& other : g.nodes()) {
    if (other.op() == OpKind::GetAttr && other.attr == path) return;
  }
  g.attributes().erase(path);
}

// The placeholder a mutation output's target names: the user input, or the parameter's or
// buffer's lifted input.
const Node* mutationTargetNode(const ExportedProgram& p, const OutputSpec& s) {
  if (!s.target) return nullptr;
  if (s.kind == OutputKind::UserInputMutation) return p.graph().find(*s.target);
  const InputKind kind = s.kind == OutputKind::BufferMutation ? InputKind::Buffer : InputKind::Parameter;
  for (const InputSpec& in : p.signature.input_specs) {
    if (in.kind == kind && in.target == s.target) return p.graph().find(in.arg.name);
  }
  return nullptr;
}

// Whether call `n` writes `target` itself (in place, out= or its metadata).
bool writes(const Node& n, const Node* target) {
  const OpInfo* op = n.atenOp();
  if (!op) return false;
  const OpRoleInfo& role = opRole(*op);
  if (role.role != OpRole::InPlace && role.role != OpRole::Out && role.role != OpRole::MetadataMutation) return false;
  return std::any_of(role.written.begin(), role.written.end(), [&](int w) {
    const Argument* a = schemaArgument(n, *op, static_cast<size_t>(w));
    const auto* tensor = a ? a->get<arg::Tensor>() : nullptr;
    return tensor && tensor->node == target;
  });
}

// Whether `n` is a write of `target`, or a piece of a call's results that writes it.
bool isAWriteOf(const Node& n, const Node* target) {
  if (n.target.kind() == Target::Kind::Builtin && n.target.builtinOp() == BuiltinOp::GetItem && !n.args.empty()) {
    const auto* of = n.args[0].get<arg::Tensor>();
    return of && of->node && writes(*of->node, target);
  }
  return writes(n, target);
}

// Note [A mutation output names a write]
// A mutation output says what its target holds at the end: in a TRAINING program the last
// call that wrote it, in an ATEN one the value to write back. Removing the call it names
// reconnects it to an operand of that call: the target's own placeholder (a write of the
// target into itself, in any dialect), or in a TRAINING program another value that no call
// wrote into the target, which torch.export never records and on which eager (the writes
// the graph makes) and a functionalized run (the write-back the signature asks) disagree.
// A D8 finding that needed the mutation so minimized to a program whose script wrote
// nothing, and a D2 one to a program of no calls at all. The output then names the last
// call still writing its target, or goes with the write. `moved`: the outputs the removal
// reconnected.
void keepMutationOutputsOnWrites(ExportedProgram& p, const std::vector<size_t>& moved) {
  auto& specs = p.signature.output_specs;
  Node* o = p.graph().outputNode();
  const bool training = isTraining(p);
  for (size_t k = specs.size(); k-- > 0;) {
    if (!isMutation(specs[k]) || std::find(moved.begin(), moved.end(), k) == moved.end()) continue;
    const Node* target = mutationTargetNode(p, specs[k]);
    const Node* named = p.graph().find(specs[k].arg.name);
    if (!target || !named || !o || k >= o->args.size()) continue;
    if (named != target && (!training || isAWriteOf(*named, target))) continue;
    const Node* last = nullptr;
    for (const Node& n : p.graph().nodes()) last = writes(n, target) ? &n : last;
    if (last) {
      o->args[k] = Argument(arg::Tensor{const_cast<Node*>(last)});
      specs[k].arg.name = last->name();
      continue;
    }
    specs.erase(specs.begin() + static_cast<long>(k));
    o->args.erase(o->args.begin() + static_cast<long>(k));
  }
}

// Removes the call `name` of `g` (the program's graph, or a subgraph of a region when
// `in_region`): its uses (getitems of it included) go to its first tensor argument of the
// same dtype, or the node must be unused. Only the root graph's names are in the signature
// and the module call graph.
bool removeCall(ExportedProgram& p, Graph& g, const std::string& name, bool in_region) {
  Node* n = g.find(name);
  if (!n || n->op() != OpKind::CallFunction) return false;
  const auto rename = [&](const std::string& from, const std::string& to) {
    if (!in_region) renameReferences(p, from, to);
  };
  std::vector<Node*> items;  // getitems of a multi-output call go with it
  for (Node* u : g.users(n)) {
    if (u->target.kind() == Target::Kind::Builtin && u->target.builtinOp() == BuiltinOp::GetItem) items.push_back(u);
  }
  std::vector<size_t> moved;  // the mutation outputs that name it or a piece of it
  const auto& specs = p.signature.output_specs;
  for (size_t k = 0; k < specs.size() && !in_region; ++k) {
    const bool names_it = specs[k].arg.name == name || std::any_of(items.begin(), items.end(), [&](const Node* i) {
                            return specs[k].arg.name == i->name();
                          });
    if (isMutation(specs[k]) && names_it) moved.push_back(k);
  }
  const TensorMeta* meta = n->meta.val.tensor();
  Node* replacement = nullptr;
  n->forEachInput([&](const Node* in) {
    const TensorMeta* m = in->meta.val.tensor();
    if (!replacement && m && (!meta || m->dtype == meta->dtype)) replacement = const_cast<Node*>(in);
    if (!replacement && m && !items.empty()) replacement = const_cast<Node*>(in);
  });
  for (Node* item : items) {
    if (!g.users(item).empty()) {
      if (!replacement) return false;
      g.replaceAllUsesWith(item, replacement);
      rename(item->name(), replacement->name());
    }
    rename(item->name(), replacement ? replacement->name() : "");
    g.erase(item);
  }
  if (!g.users(n).empty()) {
    if (!replacement) return false;
    g.replaceAllUsesWith(n, replacement);
    rename(n->name(), replacement->name());
  }
  std::vector<Node*> read_attrs;  // the subgraphs a higher-order call ran
  n->forEachInput([&](const Node* in) {
    if (in->op() == OpKind::GetAttr) read_attrs.push_back(const_cast<Node*>(in));
  });
  g.erase(n);
  for (Node* attr : read_attrs) dropUnusedGetAttr(g, attr);
  if (!moved.empty()) keepMutationOutputsOnWrites(p, moved);
  return true;
}

// A call of the program or of one of its regions: the attribute names that lead from the
// program's graph to the call's graph (none for the program's own), and the call's name.
struct CallPath {
  std::vector<std::string> regions;
  std::string name;

  std::string str() const {
    std::string out;
    for (const auto& r : regions) out += r + "/";
    return out + "%" + name;
  }
};

Graph* graphAt(Graph& root, const std::vector<std::string>& regions) {
  Graph* g = &root;
  for (const auto& r : regions) {
    auto it = g->attributes().find(r);
    if (it == g->attributes().end() || !it->second.subgraph) return nullptr;
    g = it->second.subgraph.get();
  }
  return g;
}

// The calls of `g`, latest first (later calls have fewer users), each followed by those of
// the regions it runs: a region goes whole before its calls go one by one.
void collectCalls(const Graph& g, std::vector<std::string>& regions, std::vector<CallPath>& out) {
  std::vector<const Node*> calls;
  for (const auto& n : g.nodes()) {
    if (n.op() != OpKind::CallFunction) continue;
    if (n.target.kind() == Target::Kind::Builtin && n.target.builtinOp() == BuiltinOp::GetItem) continue;
    calls.push_back(&n);
  }
  for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
    out.push_back({regions, (*it)->name()});
    (*it)->forEachInput([&](const Node* in) {
      if (in->op() != OpKind::GetAttr) return;
      auto attr = g.attributes().find(in->attr);
      if (attr == g.attributes().end() || !attr->second.subgraph) return;
      regions.push_back(in->attr);
      collectCalls(*attr->second.subgraph, regions, out);
      regions.pop_back();
    });
  }
}

// remove-nodes: each call, of the program and of its regions.
std::vector<Variant> removeNodes(const ExportedProgram& p) {
  std::vector<CallPath> calls;
  std::vector<std::string> regions;
  collectCalls(p.graph(), regions, calls);
  std::vector<Variant> out;
  for (const CallPath& c : calls) {
    out.push_back({"remove-nodes: " + c.str(), [c](ExportedProgram& q) {
                     Graph* g = graphAt(q.graph(), c.regions);
                     return g && removeCall(q, *g, c.name, !c.regions.empty());
                   }});
  }
  return out;
}

// inline-region: a grad region of the program laid out inline, its calls between bare
// `_set_grad_enabled` calls (ir/grad_regions.h), which is what the finding is about when it
// survives without the higher-order op: a simpler program, and one more checks read.
// inline-autocast: an autocast region's calls laid out inline with no autocast around
// them, where the finding does not need autocast's casts.
// inline-branch: a cond replaced by one of its branches' calls, each branch tried.
// inline-loop: a while loop replaced by its body's calls run once, or by nothing (its
// results the values it was given), so a finding inside a body is keyed by the body's ops
// rather than the loop's counter and test.
// inline-map, inline-scan: a map or a scan replaced by its function run once, on each xs's
// first element, so a finding inside the function is keyed by its calls.
std::vector<Variant> inlineRegions(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (const Node& n : p.graph().nodes()) {
    if (!gradRegionBody(p.graph(), n)) continue;
    const std::string name = n.name();
    out.push_back({"inline-region: %" + name, [name](ExportedProgram& q) {
                     for (const auto& [hop, around] : gradRegionsOf(q.graph(), /*grad_enabled=*/true)) {
                       if (hop->name() == name) return !inlineGradRegion(q.graph(), hop, around).has_value();
                     }
                     return false;
                   }});
  }
  for (const Node& n : p.graph().nodes()) {
    if (!autocastRegionBody(p.graph(), n)) continue;
    const std::string name = n.name();
    out.push_back({"inline-autocast: %" + name, [name](ExportedProgram& q) {
                     Node* hop = q.graph().find(name);
                     return hop && !inlineAutocastRegion(q.graph(), hop, /*keep_autocast=*/false).has_value();
                   }});
  }
  for (const Node& n : p.graph().nodes()) {
    if (!condBranch(p.graph(), n, true)) continue;
    for (const bool which : {true, false}) {
      const std::string name = n.name();
      out.push_back({"inline-branch: %" + name + (which ? " (true)" : " (false)"), [name, which](ExportedProgram& q) {
                       Node* hop = q.graph().find(name);
                       return hop && !inlineCondBranch(q.graph(), hop, which).has_value();
                     }});
    }
  }
  for (const Node& n : p.graph().nodes()) {
    if (!loopBody(p.graph(), n)) continue;
    for (const int iterations : {1, 0}) {
      const std::string name = n.name();
      out.push_back(
          {"inline-loop: %" + name + (iterations ? " (once)" : " (never)"), [name, iterations](ExportedProgram& q) {
             Node* hop = q.graph().find(name);
             return hop && !inlineLoop(q.graph(), hop, iterations).has_value();
           }});
    }
  }
  for (const Node& n : p.graph().nodes()) {
    if (!mappedFunction(p.graph(), n)) continue;
    const std::string name = n.name();
    out.push_back({"inline-" + std::string(n.target.name() == "scan" ? "scan" : "map") + ": %" + name,
                   [name](ExportedProgram& q) {
                     const StackOps ops{findOp("aten::select", "int"), findOp("aten::unsqueeze", "")};
                     Node* hop = q.graph().find(name);
                     return hop && !inlineFirstElement(q.graph(), hop, ops).has_value();
                   }});
  }
  return out;
}

// flatten-modules: a module tree the finding does not need goes. Its stacks and entries:
// every call's nn_module_stack cut to the root's entry, the module call graph's entries
// without a signature dropped (those with one, the root and a preserved submodule, are the
// program's interface). Its state names: each dotted state target renamed to its last part
// where no other state holds that name, its placeholder renamed as export names it.
std::vector<Variant> flattenModules(const ExportedProgram& p) {
  std::vector<Variant> out;
  bool deep = false;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) deep = deep || (n.meta.nn_module_stack && n.meta.nn_module_stack->size() > 1);
  });
  for (const auto& e : p.module_call_graph) deep = deep || !e.signature;
  if (deep) {
    out.push_back({"flatten-modules: stacks and entries", [](ExportedProgram& q) {
                     forEachGraph(q.graph(), [](Graph& g) {
                       for (Node& n : g.nodes()) {
                         if (n.meta.nn_module_stack && n.meta.nn_module_stack->size() > 1)
                           n.meta.nn_module_stack->resize(1);
                       }
                     });
                     auto& entries = q.module_call_graph;
                     entries.erase(std::remove_if(entries.begin(), entries.end(),
                                                  [](const ModuleCallEntry& e) { return !e.signature; }),
                                   entries.end());
                     return true;
                   }});
  }
  for (const InputSpec& spec : p.signature.input_specs) {
    if (!spec.target || spec.target->find('.') == std::string::npos) continue;
    const std::string was = *spec.target;
    out.push_back({"flatten-modules: " + was, [was](ExportedProgram& q) { return flattenStateName(q, was); }});
  }
  return out;
}

// remove-outputs: one user output at a time (never the last one).
std::vector<Variant> removeOutputs(const ExportedProgram& p) {
  std::vector<Variant> out;
  const auto& specs = p.signature.output_specs;
  size_t users = 0;
  for (const auto& s : specs) users += s.kind == OutputKind::UserOutput ? 1 : 0;
  if (users < 2) return out;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != OutputKind::UserOutput) continue;
    const std::string name = specs[i].arg.name;
    out.push_back({"remove-outputs: " + name, [name](ExportedProgram& q) {
                     // Found by name: an earlier edit of the same chunk may have moved it.
                     auto& now = q.signature.output_specs;
                     size_t i = 0;
                     while (i < now.size() && !(now[i].kind == OutputKind::UserOutput && now[i].arg.name == name)) ++i;
                     size_t users = 0;
                     for (const auto& s : now) users += s.kind == OutputKind::UserOutput ? 1 : 0;
                     Node* o = q.graph().outputNode();
                     if (!o || i >= now.size() || i >= o->args.size() || users < 2) return false;
                     o->args.erase(o->args.begin() + static_cast<long>(i));
                     q.signature.output_specs.erase(q.signature.output_specs.begin() + static_cast<long>(i));
                     for (auto& entry : q.module_call_graph) {
                       if (!entry.signature) continue;
                       auto& outs = entry.signature->outputs;
                       outs.erase(
                           std::remove_if(outs.begin(), outs.end(), [&](const SpecArg& a) { return a.name == name; }),
                           outs.end());
                     }
                     return true;
                   }});
  }
  return out;
}

// demote-state: a lifted parameter, buffer or constant becomes the first user input.
std::vector<Variant> demoteState(const ExportedProgram& p) {
  std::vector<Variant> out;
  const auto& specs = p.signature.input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputKind k = specs[i].kind;
    if (k != InputKind::Parameter && k != InputKind::Buffer && k != InputKind::ConstantTensor) continue;
    const std::string input = specs[i].arg.name;
    out.push_back({"demote-state: " + input, [input](ExportedProgram& q) {
                     // Found by name: an earlier edit of the same chunk may have moved it.
                     auto& now = q.signature.input_specs;
                     size_t i = 0;
                     while (i < now.size() && now[i].arg.name != input) ++i;
                     if (i == now.size() || now[i].kind == InputKind::UserInput) return false;
                     InputSpec& s = now[i];
                     if (!s.target) return false;
                     std::optional<TensorValue> value;
                     if (auto it = q.state_dict.find(*s.target); it != q.state_dict.end() && s.persistent != false) {
                       value = it->second.tensor;
                       q.state_dict.erase(it);
                     } else if (auto c = q.constants.find(*s.target); c != q.constants.end() && c->second.tensor) {
                       value = *c->second.tensor;
                       q.constants.erase(c);
                     }
                     if (!value) return false;
                     // Placeholders are in spec order and user inputs come last: move it there.
                     Graph& g = q.graph();
                     Node* old = g.find(s.arg.name);
                     if (!old) return false;
                     InputSpec moved{InputKind::UserInput, s.arg, std::nullopt, std::nullopt};
                     q.signature.input_specs.erase(q.signature.input_specs.begin() + static_cast<long>(i));
                     q.signature.input_specs.push_back(moved);
                     Node* last = nullptr;
                     for (Node* ph : g.placeholders()) last = ph;
                     Node* fresh = g.insertAfter(last, OpKind::Placeholder, "demoted");
                     fresh->meta = old->meta;
                     if (TensorMeta* m = fresh->meta.val.tensor()) m->requires_grad = false;
                     g.replaceAllUsesWith(old, fresh);
                     const std::string name = old->name();
                     g.erase(old);
                     g.rename(fresh, name);
                     value->requires_grad = false;
                     InputValue in;
                     in.kind = InputValue::Kind::Tensor;
                     in.tensor = std::move(*value);
                     q.example_inputs.push_back(std::move(in));
                     return true;
                   }});
  }
  return out;
}

// remove-inputs: a placeholder nothing reads, with its spec and its value.
std::vector<Variant> removeInputs(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (const Node* ph : p.graph().placeholders()) {
    if (!p.graph().users(ph).empty()) continue;
    const std::string name = ph->name();
    out.push_back({"remove-inputs: %" + name, [name](ExportedProgram& q) {
                     auto& specs = q.signature.input_specs;
                     size_t user_index = 0;
                     for (size_t i = 0; i < specs.size(); ++i) {
                       const bool user = specs[i].kind == InputKind::UserInput;
                       if (specs[i].arg.name == name) {
                         if (user) {
                           if (user_index >= q.example_inputs.size()) return false;
                           q.example_inputs.erase(q.example_inputs.begin() + static_cast<long>(user_index));
                         } else if (specs[i].target) {
                           q.state_dict.erase(*specs[i].target);
                           q.constants.erase(*specs[i].target);
                         }
                         specs.erase(specs.begin() + static_cast<long>(i));
                         for (auto& entry : q.module_call_graph) {
                           if (!entry.signature) continue;
                           auto& ins = entry.signature->inputs;
                           ins.erase(
                               std::remove_if(ins.begin(), ins.end(), [&](const SpecArg& a) { return a.name == name; }),
                               ins.end());
                         }
                         q.graph().erase(q.graph().find(name));
                         return true;
                       }
                       user_index += user ? 1 : 0;
                     }
                     return false;
                   }});
  }
  return out;
}

// simplify-scalars: each int argument to 0 then 1, each float to 0.0 then 1.0, each
// element of an int list to 1 then 0.
std::vector<Variant> simplifyScalars(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (const auto& n : p.graph().nodes()) {
    if (!n.atenOp()) continue;
    for (size_t i = 0; i < n.args.size(); ++i) {
      // An int list: one element at a time toward 1, then toward 0.
      if (const auto* list = n.args[i].get<arg::IntList>()) {
        for (size_t k = 0; k < list->values.size(); ++k) {
          for (int simple : {1, 0}) {
            if (std::abs(list->values[k]) <= simple) continue;
            const std::string name = n.name();
            out.push_back({"simplify-scalars: %" + name + " argument " + std::to_string(i) + "[" + std::to_string(k) +
                               "] = " + std::to_string(simple),
                           [name, i, k, simple](ExportedProgram& q) {
                             Node* m = q.graph().find(name);
                             if (!m || i >= m->args.size()) return false;
                             auto* l = m->args[i].get<arg::IntList>();
                             if (!l || k >= l->values.size()) return false;
                             l->values[k] = simple;
                             return true;
                           }});
          }
        }
        continue;
      }
      const auto* iv = n.args[i].get<arg::Int>();
      const auto* fv = n.args[i].get<arg::Float>();
      if (!iv && !fv) continue;
      // 0 is simpler than 1, and 1 than anything else: a value only ever moves down, so no
      // two variants can undo each other.
      const auto rank = [](double v) { return v == 0 ? 0 : v == 1 ? 1 : 2; };
      const double value = iv ? static_cast<double>(iv->value) : fv->value;
      for (int simple : {0, 1}) {
        if (rank(simple) < rank(value)) {
          const std::string name = n.name();
          const bool is_int = iv != nullptr;
          out.push_back(
              {"simplify-scalars: %" + name + " argument " + std::to_string(i) + " = " + std::to_string(simple),
               [name, i, simple, is_int](ExportedProgram& q) {
                 Node* m = q.graph().find(name);
                 if (!m || i >= m->args.size()) return false;
                 if (is_int)
                   m->args[i] = arg::Int{simple};
                 else
                   m->args[i] = arg::Float{static_cast<double>(simple)};
                 return true;
               }});
        }
      }
    }
  }
  return out;
}

// A pass only enumerates its targets; the engine owns the policy (Note [The delta engine]).
struct Pass {
  std::vector<Variant> (*targets)(const ExportedProgram&);
  // Each edit runs the program eagerly (to make a value): one target at a time, each edit
  // counted as a run.
  bool edits_run = false;
};
constexpr Pass kPasses[] = {{inlineRegions},      {removeNodes},          {flattenModules},    {removeOutputs},
                            {demoteState},        {removeInputs},         {cutToInputs, true}, {foldIntoInputs, true},
                            {shrinkShapes, true}, {simplifyDtypes, true}, {simplifyScalars}};

// Note [The delta engine]
// llvm-reduce's model (llvm/tools/llvm-reduce/deltas/Delta.cpp): passes enumerate targets,
// the engine decides what to try. Each pass's targets are tried in chunks, all of them at
// once first, halving the chunk ddmin-style while no chunk of that size is accepted; an
// accepted chunk re-enumerates the pass's targets on the smaller program and goes on at the
// same size. Passes run in order, the whole sequence again until a round accepts nothing,
// so a pass is not re-run from scratch after every step of another. A candidate is
// verified first (free, and the verifier is structural: stale vals cannot fail it), and
// only a verified one costs runs: the eager run that rebuilds its vals and the predicate,
// each counted against the budget, as is each edit that runs the program. The value passes
// edit by running the program, so they go one target at a time. Every eager run the engine
// makes (a value pass's edits, the refresh) goes through MinimizeOptions::run_step, so a
// caller that runs the predicate in a forked child runs these in one too: a kernel that
// crashes there rejects the candidate instead of ending the minimization.
class Engine {
 public:
  Engine(const StillFails& still_fails, const MinimizeOptions& options, MinimizeResult& result)
      : still_fails_(still_fails), options_(options), r_(result) {}

  bool spent() const { return r_.oracle_calls >= options_.max_oracle_calls; }

  // Runs `pass` to its fixpoint; whether it accepted anything.
  bool run(const Pass& pass) {
    bool accepted_any = false;
    std::vector<Variant> targets = pass.targets(r_.program);
    size_t chunk = pass.edits_run ? 1 : targets.size();
    while (chunk >= 1 && !targets.empty() && !spent()) {
      bool accepted = false;
      for (size_t start = 0; start < targets.size() && !spent(); start += chunk) {
        const size_t end = std::min(targets.size(), start + chunk);
        if (!tryChunk(targets, start, end, pass.edits_run)) continue;
        accepted = accepted_any = true;
        targets = pass.targets(r_.program);
        break;
      }
      if (!accepted) chunk /= 2;
      chunk = std::min(chunk, targets.size());
    }
    return accepted_any;
  }

 private:
  size_t runsLeft() const { return static_cast<size_t>(std::max(0, options_.max_oracle_calls - r_.oracle_calls)); }

  bool tryChunk(const std::vector<Variant>& targets, size_t start, size_t end, bool edits_run) {
    // An edit that runs the program is a run; two more to come: the refresh and the predicate.
    const size_t last = edits_run ? start + std::min(end - start, runsLeft()) : end;
    if (edits_run) r_.oracle_calls += static_cast<int>(last - start);
    if (last == start || r_.oracle_calls + 2 > options_.max_oracle_calls) return false;
    std::optional<ExportedProgram> candidate;
    if (edits_run) {
      candidate = eager([&] { return edited(targets, start, last, true); });
    } else if (auto structural = edited(targets, start, last, false)) {  // edits that run nothing
      candidate = eager([&]() -> std::optional<ExportedProgram> {
        refreshVals(*structural);
        return std::move(*structural);
      });
    }
    if (!candidate) return false;
    r_.oracle_calls += 2;
    if (!still_fails_(*candidate)) return false;
    r_.program = std::move(*candidate);
    r_.log.push_back(end - start == 1 ? targets[start].what
                                      : targets[start].what + " and " + std::to_string(end - start - 1) + " more");
    return true;
  }

  // The current program with the edits of targets [start, last); nullopt when none applies
  // or the result does not verify (free, and structural: stale vals cannot fail it). With
  // `refresh`, meta.val then follows an eager run where the program still runs: removing a
  // call or changing an argument can change the shapes after it (a finding that raises
  // eagerly keeps the vals it had).
  std::optional<ExportedProgram> edited(const std::vector<Variant>& targets, size_t start, size_t last,
                                        bool refresh) const {
    ExportedProgram candidate = r_.program.clone();
    size_t applied = 0;
    for (size_t i = start; i < last; ++i) applied += targets[i].edit(candidate) ? 1 : 0;
    if (applied == 0) return std::nullopt;
    // An edit that changes how many user inputs or outputs there are makes the root call's
    // specs flat tuples of the new counts.
    if (userInputOutputCounts(candidate) != userInputOutputCounts(r_.program)) flattenRootCallSpecs(candidate);
    if (!verify(candidate).empty()) return std::nullopt;
    if (refresh) refreshVals(candidate);
    return candidate;
  }

  std::optional<ExportedProgram> eager(const EagerStep& step) const {
    return options_.run_step ? options_.run_step(step) : step();
  }

  const StillFails& still_fails_;
  const MinimizeOptions& options_;
  MinimizeResult& r_;
};

}  // namespace

MinimizeResult minimize(const ExportedProgram& p, const StillFails& still_fails, const MinimizeOptions& options) {
  MinimizeResult result;
  result.program = p.clone();
  result.nodes_before = callCount(p);
  Engine engine(still_fails, options, result);
  bool progress = true;
  while (progress && !engine.spent()) {
    progress = false;
    for (const Pass& pass : kPasses) progress = engine.run(pass) || progress;
  }
  result.nodes_after = callCount(result.program);
  return result;
}

}  // namespace epsmith
