// Writes one graph: placeholders as `inputs`, nodes with torch's NamedArguments and outputs,
// the output node's arguments, and the graph's side-table entries.
#include <algorithm>

#include "ir/json_write.h"
#include "ir/schema_check.h"

namespace epsmith::json_detail {

void GraphWriter::validate() {
  const std::string graph_where = gpath_.empty() ? "graph" : gpath_;
  if (g_.empty() || !g_.nodes().back().isOutput()) {
    for (const auto& n : g_.nodes()) {
      if (n.isOutput()) fail(where(n), "the output node is not the last node of its graph");
    }
    fail(graph_where, "the graph has no output node");
  }
  for (const auto& n : g_.nodes()) {
    if (!taken_.insert(n.name()).second) fail(where(n), "duplicate node name");
    if (n.isOutput() && &n != &g_.nodes().back()) fail(where(n), "more than one output node");
    bool has_target = n.target.kind() != Target::Kind::None;
    switch (n.op()) {
      case OpKind::Placeholder:
        if (has_target || !n.attr.empty() || !n.args.empty() || !n.kwargs.empty()) {
          fail(where(n), "a placeholder with a target or arguments cannot be written");
        }
        break;
      case OpKind::Output:
        if (has_target || !n.attr.empty() || !n.kwargs.empty()) {
          fail(where(n), "an output node with a target or keyword arguments cannot be written");
        }
        break;
      case OpKind::CallFunction:
        if (!has_target) fail(where(n), "call_function node without a target");
        if (!n.attr.empty()) fail(where(n), "call_function node with an attribute path");
        break;
      default:
        if (has_target) fail(where(n), std::string(opKindName(n.op())) + " node with a target");
        break;
    }
  }
}

std::string GraphWriter::freshName(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_.count(name); ++i) name = base + "_" + std::to_string(i);
  taken_.insert(name);
  return name;
}

namespace {

bool foldableElement(const Val& v) {
  return std::visit(
      [](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        return std::is_same_v<X, TensorMeta> || std::is_same_v<X, Val::SymInt> ||
               std::is_same_v<X, Val::SymFloat> || std::is_same_v<X, Val::SymBool> ||
               std::is_same_v<X, int64_t> || std::is_same_v<X, double> ||
               std::is_same_v<X, bool> || std::is_same_v<X, Val::None>;
      },
      v.variant());
}

bool returnsTensorList(const Target& t) {
  if (t.kind() != Target::Kind::Aten) return false;
  const auto& returns = t.op()->returns;
  return returns.size() == 1 && returns[0].type == ParamType::TensorList;
}

}  // namespace

int64_t GraphWriter::foldableGetitemIndex(const Node& m, const Node& producer,
                                          const Val::List& list) const {
  if (m.op() != OpKind::CallFunction || m.target != Target::builtin(BuiltinOp::GetItem) ||
      !m.kwargs.empty() || m.args.size() != 2) {
    return -1;
  }
  const auto* from = m.args[0].get<arg::Tensor>();
  const auto* index = m.args[1].get<arg::Int>();
  if (!from || from->node != &producer || !index || index->value < 0 ||
      index->value >= static_cast<int64_t>(list.size())) {
    return -1;
  }
  const Val& element = list[index->value];
  if (element.get<Val::None>() || m.meta.val != element || !sameNonValMeta(m.meta, producer.meta)) {
    return -1;
  }
  return index->value;
}

void GraphWriter::planGetitemFolds() {
  for (const auto& n : g_.nodes()) {
    const Val::List* list = n.meta.val.list();
    if (n.op() != OpKind::CallFunction || folded_getitems_.count(&n) || !list || list->empty() ||
        !std::all_of(list->begin(), list->end(), foldableElement)) {
      continue;
    }
    FoldPlan plan;
    plan.as_tensors = returnsTensorList(n.target) &&
                      std::all_of(list->begin(), list->end(),
                                  [](const Val& v) { return v.isTensor(); });
    plan.names.resize(list->size());
    plan.used.assign(list->size(), false);
    int64_t last = -1;
    for (const Node* m = n.next(); m; m = m->next()) {
      int64_t i = foldableGetitemIndex(*m, n, *list);
      if (i <= last) break;
      plan.names[i] = m->name();
      plan.used[i] = true;
      folded_getitems_.insert(m);
      last = i;
    }
    for (size_t i = 0; i < list->size(); ++i) {
      if (!plan.used[i] && !(*list)[i].get<Val::None>()) {
        plan.names[i] = freshName(n.name() + "_unused_" + std::to_string(i));
      }
    }
    folds_.emplace(&n, std::move(plan));
  }
}

void GraphWriter::planGetAttrFolds() {
  std::unordered_set<const Node*> candidates;
  for (const auto& n : g_.nodes()) {
    if (n.op() != OpKind::GetAttr || n.name() != n.attr || !n.args.empty() ||
        !n.kwargs.empty() || !(n.meta == NodeMeta{})) {
      continue;
    }
    const Attribute* a = g_.attribute(n.attr);
    if (a && a->kind == Attribute::Kind::Subgraph && a->subgraph && !a->tensor &&
        a->text.empty() && a->field_types.empty() && !a->has_original_module) {
      candidates.insert(&n);
    }
  }
  if (candidates.empty()) return;
  // A candidate folds only if every use is a Graph argument; its first user is where the
  // reader re-creates it.
  std::unordered_map<const Node*, const Node*> first_user;
  std::unordered_set<const Node*> disqualified;
  std::vector<std::pair<const Node*, std::vector<const Node*>>> by_user;
  for (const auto& u : g_.nodes()) {
    std::vector<const Node*> firsts;
    auto visit = [&](const Argument& a) {
      if (const auto* gr = a.get<arg::Graph>(); gr && candidates.count(gr->node)) {
        if (first_user.emplace(gr->node, &u).second) firsts.push_back(gr->node);
        return;
      }
      a.forEachNode([&](const Node* x) {
        if (candidates.count(x)) disqualified.insert(x);
      });
    };
    for (const auto& a : u.args) visit(a);
    for (const auto& kv : u.kwargs) visit(kv.second);
    if (!firsts.empty()) by_user.emplace_back(&u, std::move(firsts));
  }
  for (auto& [user, list] : by_user) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const Node* c) { return disqualified.count(c) > 0; }),
               list.end());
    // Fold the longest run just before the user that is in the user's argument order.
    size_t pos = list.size();
    for (const Node* p = user->prev(); p; p = p->prev()) {
      auto it = std::find(list.begin(), list.begin() + pos, p);
      if (it == list.begin() + pos) break;
      pos = it - list.begin();
      folded_get_attrs_.insert(p);
    }
  }
}

std::string GraphWriter::ref(const Node* n, const Node& user) const {
  if (!n) fail(where(user), "an argument refers to no node");
  if (n->owningGraph() != &g_) {
    fail(where(user), "an argument refers to node '" + n->name() + "' of another graph");
  }
  return n->name();
}

JsonOut GraphWriter::argJson(const Argument& a, const Node& user) {
  auto tensorArg = [&](const Node* n) { return nameObject(ref(n, user)); };
  auto optionalTensor = [&](const Node* n) {
    return n ? oneKey("as_tensor", tensorArg(n)) : oneKey("as_none", true);
  };
  auto sym = [&](const auto& s, const char* literal_tag, auto literal) {
    return s.node ? oneKey("as_name", ref(s.node, user)) : oneKey(literal_tag, literal(s.literal));
  };
  auto asIs = [](auto v) { return JsonOut(v); };
  auto asFloat = [](double v) { return floatJson(v); };
  const std::string tag(serializedTag(a.kind()));
  JsonOut value = std::visit(
      [&](const auto& x) -> JsonOut {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, arg::None>) {
          return true;
        } else if constexpr (std::is_same_v<X, arg::Tensor>) {
          return tensorArg(x.node);
        } else if constexpr (std::is_same_v<X, arg::TensorList>) {
          JsonOut list = JsonOut::array();
          for (const Node* n : x.nodes) list.push_back(tensorArg(n));
          return list;
        } else if constexpr (std::is_same_v<X, arg::OptionalTensor>) {
          return optionalTensor(x.node);
        } else if constexpr (std::is_same_v<X, arg::OptionalTensorList>) {
          JsonOut list = JsonOut::array();
          for (const Node* n : x.nodes) list.push_back(optionalTensor(n));
          return list;
        } else if constexpr (std::is_same_v<X, arg::Float>) {
          return floatJson(x.value);
        } else if constexpr (std::is_same_v<X, arg::FloatList>) {
          JsonOut list = JsonOut::array();
          for (double v : x.values) list.push_back(floatJson(v));
          return list;
        } else if constexpr (std::is_same_v<X, arg::Int> || std::is_same_v<X, arg::Bool> ||
                             std::is_same_v<X, arg::String>) {
          return x.value;
        } else if constexpr (std::is_same_v<X, arg::IntList> ||
                             std::is_same_v<X, arg::BoolList> ||
                             std::is_same_v<X, arg::StringList>) {
          return x.values;
        } else if constexpr (std::is_same_v<X, arg::SymInt>) {
          return sym(x.value, "as_int", asIs);
        } else if constexpr (std::is_same_v<X, arg::SymFloat>) {
          return sym(x.value, "as_float", asFloat);
        } else if constexpr (std::is_same_v<X, arg::SymBool>) {
          return sym(x.value, "as_bool", asIs);
        } else if constexpr (std::is_same_v<X, arg::SymIntList>) {
          JsonOut list = JsonOut::array();
          for (const auto& s : x.values) list.push_back(sym(s, "as_int", asIs));
          return list;
        } else if constexpr (std::is_same_v<X, arg::SymFloatList>) {
          JsonOut list = JsonOut::array();
          for (const auto& s : x.values) list.push_back(sym(s, "as_float", asFloat));
          return list;
        } else if constexpr (std::is_same_v<X, arg::SymBoolList>) {
          JsonOut list = JsonOut::array();
          for (const auto& s : x.values) list.push_back(sym(s, "as_bool", asIs));
          return list;
        } else if constexpr (std::is_same_v<X, arg::Dtype>) {
          return dtypeJson(x.value, where(user));
        } else if constexpr (std::is_same_v<X, arg::MemFormat>) {
          return memoryFormatJson(x.value, where(user));
        } else if constexpr (std::is_same_v<X, arg::TensorLayout>) {
          return layoutJson(x.value, where(user));
        } else if constexpr (std::is_same_v<X, arg::DeviceArg>) {
          return deviceJson(x.value);
        } else if constexpr (std::is_same_v<X, arg::Graph>) {
          JsonOut o = JsonOut::object();
          if (folded_get_attrs_.count(x.node)) {
            o.add("name", x.node->attr);
            o.add("graph", w_.subgraphJson(*g_.attribute(x.node->attr)->subgraph,
                                           childGraphPath(gpath_, x.node->attr)));
          } else {
            o.add("name", ref(x.node, user));
            o.add("graph", nullptr);
          }
          return o;
        } else if constexpr (std::is_same_v<X, arg::CustomObj>) {
          JsonOut o = nameObject(ref(x.node, user));
          o.add("class_fqn", x.class_fqn);
          return o;
        } else if constexpr (std::is_same_v<X, arg::Operator>) {
          std::optional<Target> t = Target::parse(x.name, nullptr);
          return t && t->textName() == x.name ? t->exportName() : x.name;
        } else {
          static_assert(std::is_same_v<X, arg::Complex>);
          JsonOut o = JsonOut::object();
          o.add("real", floatJson(x.real));
          o.add("imag", floatJson(x.imag));
          return o;
        }
      },
      a.variant());
  return oneKey(tag, std::move(value));
}

std::optional<JsonOut> GraphWriter::outputFor(const std::string& name, const Val& v,
                                            const Node& n) {
  auto named = [&](JsonOut& table, const char* tag, JsonOut value) {
    table.add(name, std::move(value));
    return oneKey(tag, oneKey("as_name", name));
  };
  if (const auto* t = v.tensor()) {
    tensor_values_.add(name, tensorMetaJson(*t, where(n)));
    return oneKey("as_tensor", nameObject(name));
  }
  if (const auto* s = v.get<Val::SymInt>()) {
    return named(sym_int_values_, "as_sym_int", oneKey("as_expr", symExprJson(s->expr)));
  }
  if (const auto* i = v.get<int64_t>()) return named(sym_int_values_, "as_sym_int", oneKey("as_int", *i));
  if (const auto* s = v.get<Val::SymFloat>()) {
    return named(sym_float_values_, "as_sym_float", oneKey("as_expr", symExprJson(s->expr)));
  }
  if (const auto* f = v.get<double>()) {
    return named(sym_float_values_, "as_sym_float", oneKey("as_float", floatJson(*f)));
  }
  if (const auto* s = v.get<Val::SymBool>()) {
    return named(sym_bool_values_, "as_sym_bool", oneKey("as_expr", symExprJson(s->expr)));
  }
  if (const auto* b = v.get<bool>()) return named(sym_bool_values_, "as_sym_bool", oneKey("as_bool", *b));
  if (v.get<Val::None>()) return oneKey("as_none", true);
  return std::nullopt;
}

JsonOut GraphWriter::inputJson(const Node& p, size_t index, JsonOut* side) {
  const Val& v = p.meta.val;
  bool named = true, val_written = true;
  JsonOut arg;
  if (v.isTensor() || v.get<Val::SymInt>() || v.get<Val::SymFloat>() || v.get<Val::SymBool>()) {
    arg = *outputFor(p.name(), v, p);
  } else if (const auto* obj = v.get<Val::CustomObj>()) {
    JsonOut o = nameObject(p.name());
    o.add("class_fqn", obj->class_fqn);
    custom_obj_values_.add(p.name(), o);
    arg = oneKey("as_custom_obj", std::move(o));
  } else {
    named = false;
    if (const auto* i = v.get<int64_t>()) {
      arg = oneKey("as_int", *i);
    } else if (const auto* f = v.get<double>()) {
      arg = oneKey("as_float", floatJson(*f));
    } else if (const auto* b = v.get<bool>()) {
      arg = oneKey("as_bool", *b);
    } else if (const auto* s = v.get<std::string>()) {
      arg = oneKey("as_string", *s);
    } else {
      arg = oneKey("as_none", true);
      val_written = v.get<Val::None>() != nullptr;
    }
  }
  JsonOut meta = metaJson(p.meta, val_written, where(p));
  bool rename = !named && p.name() != defaultInputName(sig_, index);
  if (rename || !meta.empty()) {
    JsonOut entry = JsonOut::object();
    entry.add("name", rename ? JsonOut(p.name()) : JsonOut(nullptr));
    entry.add("metadata", std::move(meta));
    *side = std::move(entry);
  }
  return arg;
}

JsonOut GraphWriter::namedInputs(const Node& n) {
  JsonOut list = JsonOut::array();
  auto add = [&](std::string name, const Argument& a, int kind) {
    JsonOut o = JsonOut::object();
    o.add("name", std::move(name));
    o.add("arg", argJson(a, n));
    o.add("kind", kind);
    list.push_back(std::move(o));
  };
  const bool call = n.op() == OpKind::CallFunction;
  const OpInfo* op = call && n.target.kind() == Target::Kind::Aten ? n.target.op() : nullptr;
  if (op) {
    if (auto error = checkSchemaCall(*op, n.args, n.kwargs)) fail(where(n), *error);
  }
  for (size_t i = 0; i < n.args.size(); ++i) {
    std::string name = "arg" + std::to_string(i);
    if (op && i < op->arguments.size()) {
      name = op->arguments[i].name;
    } else if (call && n.target.kind() == Target::Kind::Builtin) {
      const auto& params = Target::builtinParamNames(n.target.builtinOp());
      if (i < params.size()) name = std::string(params[i]);
    } else if (call && n.target.kind() == Target::Kind::HigherOrder) {
      name.clear();  // torch names higher-order positional arguments ""
    }
    add(std::move(name), n.args[i], /*kind=POSITIONAL*/ 1);
  }
  for (const auto& [key, a] : n.kwargs) add(key, a, /*kind=KEYWORD*/ 2);
  return list;
}

JsonOut GraphWriter::nodeJson(const Node& n) {
  const std::string w = where(n);
  const bool call = n.op() == OpKind::CallFunction;
  JsonOut node = JsonOut::object();
  std::optional<std::string> target_kind;
  if (call) {
    std::string name = n.target.exportName();
    std::optional<Target> back = Target::parse(name, nullptr);
    if (!back || *back != n.target) {
      if (n.target.kind() == Target::Kind::Other) {
        target_kind = "other";
      } else if (n.target.kind() == Target::Kind::HigherOrder) {
        target_kind = "higher_order";
      } else {
        fail(w, "target '" + name + "' does not read back as itself");
      }
    }
    node.add("target", name);
  } else {
    node.add("target", n.op() == OpKind::Placeholder ? std::string() : n.attr);
  }
  node.add("inputs", namedInputs(n));

  const bool hop = call && n.target.kind() == Target::Kind::HigherOrder;
  JsonOut outputs = JsonOut::array();
  JsonOut hop_flag = hop ? JsonOut(true) : JsonOut(nullptr);
  bool val_written = true;
  std::vector<int64_t> unused;
  if (auto fold = folds_.find(&n); fold != folds_.end()) {
    const FoldPlan& plan = fold->second;
    const Val::List& list = *n.meta.val.list();
    if (plan.as_tensors) {
      JsonOut tensors = JsonOut::array();
      for (size_t i = 0; i < list.size(); ++i) {
        tensor_values_.add(plan.names[i], tensorMetaJson(*list[i].tensor(), w));
        tensors.push_back(nameObject(plan.names[i]));
      }
      outputs.push_back(oneKey("as_tensors", std::move(tensors)));
      hop_flag = hop ? JsonOut(false) : JsonOut(nullptr);
    } else {
      for (size_t i = 0; i < list.size(); ++i) outputs.push_back(*outputFor(plan.names[i], list[i], n));
      hop_flag = hop || list.size() == 1 ? JsonOut(false) : JsonOut(nullptr);
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!plan.used[i] && !list[i].get<Val::None>()) unused.push_back(static_cast<int64_t>(i));
    }
  } else if (!n.meta.val.isMissing()) {
    if (auto out = outputFor(n.name(), n.meta.val, n)) {
      outputs.push_back(std::move(*out));
    } else {
      val_written = false;
    }
  }
  node.add("outputs", std::move(outputs));
  JsonOut md = metaJson(n.meta, val_written, w);
  if (!call) md.add(kExtOp, std::string(opKindName(n.op())));
  if (target_kind) md.add(kExtTarget, *target_kind);
  if (!unused.empty()) md.add(kExtUnused, JsonOut(unused).compact());
  node.add("metadata", std::move(md));
  node.add("is_hop_single_tensor_return", std::move(hop_flag));
  node.add("name", n.name());
  return node;
}

JsonOut GraphWriter::attributeJson(const std::string& name, const Attribute& a) {
  const std::string child = childGraphPath(gpath_, name);
  JsonOut o = JsonOut::object();
  o.add("kind", std::string(attributeKindName(a.kind)));
  o.add("graph", a.subgraph ? w_.subgraphJson(*a.subgraph, child) : JsonOut(nullptr));
  o.add("tensor", a.tensor ? w_.tensorValueJson(*a.tensor,
                                                keyPath(keyPath("$.epsmith.attributes", gpath_), name) + ".tensor",
                                                /*storage_optional=*/true)
                           : JsonOut(nullptr));
  o.add("text", a.text);
  JsonOut field_types = JsonOut::object();
  for (const auto& [field, type] : a.field_types) field_types.add(field, type);
  o.add("field_types", std::move(field_types));
  o.add("has_original_module", a.has_original_module);
  return o;
}

JsonOut GraphWriter::write() {
  validate();
  planGetitemFolds();
  planGetAttrFolds();

  JsonOut inputs = JsonOut::array(), side_inputs = JsonOut::array();
  bool any_side = false;
  auto it = g_.nodes().begin();
  for (size_t index = 0; it != g_.nodes().end() && it->isPlaceholder(); ++it, ++index) {
    JsonOut side;
    inputs.push_back(located(*it, [&] { return inputJson(*it, index, &side); }));
    any_side = any_side || !side.isNull();
    side_inputs.push_back(std::move(side));
  }
  JsonOut nodes = JsonOut::array();
  for (; it != g_.nodes().end(); ++it) {
    if (it->isOutput() || folded_getitems_.count(&*it) || folded_get_attrs_.count(&*it)) continue;
    nodes.push_back(located(*it, [&] { return nodeJson(*it); }));
  }
  const Node& out = g_.nodes().back();
  JsonOut outputs = JsonOut::array();
  for (const auto& a : out.args) outputs.push_back(argJson(a, out));

  JsonOut graph = JsonOut::object();
  graph.add("inputs", std::move(inputs));
  graph.add("outputs", std::move(outputs));
  graph.add("nodes", std::move(nodes));
  graph.add("tensor_values", std::move(tensor_values_));
  graph.add("sym_int_values", std::move(sym_int_values_));
  graph.add("sym_bool_values", std::move(sym_bool_values_));
  graph.add("is_single_tensor_return", false);
  graph.add("custom_obj_values", std::move(custom_obj_values_));
  graph.add("sym_float_values", std::move(sym_float_values_));

  JsonOut side = JsonOut::object();
  if (any_side) side.add("inputs", std::move(side_inputs));
  if (out.name() != "output" || !(out.meta == NodeMeta{})) {
    JsonOut o = JsonOut::object();
    o.add("name", out.name());
    o.add("metadata", metaJson(out.meta, out.meta.val.isMissing(), where(out)));
    side.add("output", std::move(o));
  }
  if (!side.empty()) w_.graphs().add(gpath_, std::move(side));

  std::unordered_set<std::string> folded_attrs;
  for (const Node* n : folded_get_attrs_) folded_attrs.insert(n->attr);
  JsonOut attrs = JsonOut::object();
  for (const auto& [name, a] : g_.attributes()) {
    if (!folded_attrs.count(name)) attrs.add(name, attributeJson(name, a));
  }
  if (!attrs.empty()) w_.attributes().add(gpath_, std::move(attrs));
  return graph;
}


}  // namespace epsmith::json_detail
