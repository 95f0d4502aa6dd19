// Writes one graph: placeholders as `inputs`, nodes with torch's NamedArguments and outputs,
// the output node's arguments, and the graph's side-table entries.
#include <algorithm>

#include "formats/json_write.h"
#include "ops/schema_check.h"
#include "ops/targets.h"

namespace epsmith::json_detail {

GraphWriter::GraphWriter(ProgramWriter& w, const Graph& g, std::string gpath, const GraphSignature* sig)
    : w_(w), g_(g), gpath_(std::move(gpath)), sig_(sig) {
  for (JsonWriter* table :
       {&tensor_values_, &sym_int_values_, &sym_bool_values_, &sym_float_values_, &custom_obj_values_}) {
    table->beginObject();
  }
}

void GraphWriter::validate() {
  const std::string graph_where = gpath_.empty() ? "graph" : gpath_;
  if (g_.empty() || !g_.nodes().back().isOutput()) {
    for (const auto& n : g_.nodes()) {
      if (n.isOutput()) fail(where(n), "the output node is not the last node of its graph");
    }
    fail(graph_where, "the graph has no output node");
  }
  // The graph counts its names as it is edited: only a graph with a duplicate is walked
  // to find the first one.
  std::unordered_set<std::string_view> seen;
  for (const auto& n : g_.nodes()) {
    if (g_.hasDuplicateNames() && !seen.insert(n.name()).second) fail(where(n), "duplicate node name");
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
  for (int i = 1; g_.hasName(name) || fresh_.count(name); ++i) name = base + "_" + std::to_string(i);
  fresh_.insert(name);
  return name;
}

namespace {

bool foldableElement(const Val& v) {
  return std::visit(
      [](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        return std::is_same_v<X, TensorMeta> || std::is_same_v<X, Val::SymInt> || std::is_same_v<X, Val::SymFloat> ||
               std::is_same_v<X, Val::SymBool> || std::is_same_v<X, int64_t> || std::is_same_v<X, double> ||
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

int64_t GraphWriter::foldableGetitemIndex(const Node& m, const Node& producer, const Val::List& list) const {
  if (m.op() != OpKind::CallFunction || m.target != Target::builtin(BuiltinOp::GetItem) || !m.kwargs.empty() ||
      m.args.size() != 2) {
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
    // An empty Tensor[] is written as torch.export writes it, `[{"as_tensors": []}]`: a
    // loader that counts a node's outputs by its entries (NativeRT) finds the one list.
    if (n.op() != OpKind::CallFunction || folded_getitems_.count(&n) || !list ||
        (list->empty() && !returnsTensorList(n.target)) || !std::all_of(list->begin(), list->end(), foldableElement)) {
      continue;
    }
    FoldPlan plan;
    plan.as_tensors = returnsTensorList(n.target) &&
                      std::all_of(list->begin(), list->end(), [](const Val& v) { return v.isTensor(); });
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
    if (n.op() != OpKind::GetAttr || n.name() != n.attr || !n.args.empty() || !n.kwargs.empty() ||
        !(n.meta == NodeMeta{})) {
      continue;
    }
    const Attribute* a = g_.attribute(n.attr);
    if (a && a->kind == Attribute::Kind::Subgraph && a->subgraph && !a->tensor && a->text.empty() &&
        a->field_types.empty() && !a->has_original_module) {
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
    list.erase(std::remove_if(list.begin(), list.end(), [&](const Node* c) { return disqualified.count(c) > 0; }),
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

const std::string& GraphWriter::ref(const Node* n, const Node& user) const {
  if (!n) fail(where(user), "an argument refers to no node");
  if (n->owningGraph() != &g_) {
    fail(where(user), "an argument refers to node '" + n->name() + "' of another graph");
  }
  return n->name();
}

namespace {

const std::string kNoWhere;  // failures inside located() are placed at their node

// Whether a node value has a form as a node output (GraphWriter::outputFor).
bool hasOutputForm(const Val& v) {
  return v.isTensor() || v.get<Val::SymInt>() || v.get<int64_t>() || v.get<Val::SymFloat>() || v.get<double>() ||
         v.get<Val::SymBool>() || v.get<bool>() || v.get<Val::None>();
}

// Whether `t`, written as `name`, reads back as itself. An ATen op always gives the same
// answer, so its answer is kept: every call node of every program written asks.
bool readsBack(const Target& t, const std::string& name) {
  auto check = [&] {
    auto back = parseTarget(name);
    return back && *back == t;
  };
  if (t.kind() != Target::Kind::Aten) return check();
  thread_local PerOpMemo<bool> known;
  return known.get(*t.op(), check);
}

}  // namespace

namespace {

// An argument that names no node (a number, a string, a dtype, a list of them): its value
// after the tag; false for one that names a node, which GraphWriter::argJson writes.
// `where()` names the place for a value no file can hold; only then is it made.
template <typename Where>
bool literalArgJson(JsonWriter& w, const Argument& a, Where&& where) {
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, arg::None>) {
          w.boolean(true);
        } else if constexpr (std::is_same_v<X, arg::Float>) {
          floatJson(w, x.value);
        } else if constexpr (std::is_same_v<X, arg::FloatList>) {
          w.beginArray();
          for (double v : x.values) floatJson(w, v);
          w.endArray();
        } else if constexpr (std::is_same_v<X, arg::Int>) {
          w.integer(x.value);
        } else if constexpr (std::is_same_v<X, arg::Bool>) {
          w.boolean(x.value);
        } else if constexpr (std::is_same_v<X, arg::String>) {
          w.string(x.value);
        } else if constexpr (std::is_same_v<X, arg::IntList>) {
          w.integers(x.values);
        } else if constexpr (std::is_same_v<X, arg::BoolList>) {
          w.booleans(x.values);
        } else if constexpr (std::is_same_v<X, arg::StringList>) {
          w.strings(x.values);
        } else if constexpr (std::is_same_v<X, arg::Dtype>) {
          dtypeJson(w, x.value, where());
        } else if constexpr (std::is_same_v<X, arg::MemFormat>) {
          memoryFormatJson(w, x.value, where());
        } else if constexpr (std::is_same_v<X, arg::TensorLayout>) {
          layoutJson(w, x.value, where());
        } else if constexpr (std::is_same_v<X, arg::DeviceArg>) {
          deviceJson(w, x.value);
        } else if constexpr (std::is_same_v<X, arg::Operator>) {
          auto t = parseTarget(x.name);
          w.string(t && t->textName() == x.name ? t->exportName() : x.name);
        } else if constexpr (std::is_same_v<X, arg::Complex>) {
          w.beginObject();
          w.key("real");
          floatJson(w, x.real);
          w.key("imag");
          floatJson(w, x.imag);
          w.endObject();
        } else {
          return false;
        }
        return true;
      },
      a.variant());
}

}  // namespace

void GraphWriter::argJson(JsonWriter& w, const Argument& a, const Node& user) {
  w.beginObject();
  w.key(serializedTag(a.kind()));
  if (!literalArgJson(w, a, [&] { return where(user); })) referenceArgJson(w, a, user);
  w.endObject();
}

// An argument that names nodes: tensors, symbolic values, a subgraph, a custom object.
void GraphWriter::referenceArgJson(JsonWriter& w, const Argument& a, const Node& user) {
  auto tensorArg = [&](const Node* n) { nameObject(w, ref(n, user)); };
  auto optionalTensor = [&](const Node* n) {
    if (n)
      oneKey(w, "as_tensor", [&] { tensorArg(n); });
    else
      oneKey(w, "as_none", [&] { w.boolean(true); });
  };
  auto sym = [&](const auto& s, const char* literal_tag, auto literal) {
    if (s.node)
      oneKey(w, "as_name", [&] { w.string(ref(s.node, user)); });
    else
      oneKey(w, literal_tag, [&] { literal(s.literal); });
  };
  auto asInt = [&](int64_t v) { w.integer(v); };
  auto asBool = [&](bool v) { w.boolean(v); };
  auto asFloat = [&](double v) { floatJson(w, v); };
  auto array = [&](const auto& items, auto&& each) {
    w.beginArray();
    for (const auto& item : items) each(item);
    w.endArray();
  };
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, arg::Tensor>) {
          tensorArg(x.node);
        } else if constexpr (std::is_same_v<X, arg::TensorList>) {
          array(x.nodes, tensorArg);
        } else if constexpr (std::is_same_v<X, arg::OptionalTensor>) {
          optionalTensor(x.node);
        } else if constexpr (std::is_same_v<X, arg::OptionalTensorList>) {
          array(x.nodes, optionalTensor);
        } else if constexpr (std::is_same_v<X, arg::SymInt>) {
          sym(x.value, "as_int", asInt);
        } else if constexpr (std::is_same_v<X, arg::SymFloat>) {
          sym(x.value, "as_float", asFloat);
        } else if constexpr (std::is_same_v<X, arg::SymBool>) {
          sym(x.value, "as_bool", asBool);
        } else if constexpr (std::is_same_v<X, arg::SymIntList>) {
          array(x.values, [&](const auto& s) { sym(s, "as_int", asInt); });
        } else if constexpr (std::is_same_v<X, arg::SymFloatList>) {
          array(x.values, [&](const auto& s) { sym(s, "as_float", asFloat); });
        } else if constexpr (std::is_same_v<X, arg::SymBoolList>) {
          array(x.values, [&](const auto& s) { sym(s, "as_bool", asBool); });
        } else if constexpr (std::is_same_v<X, arg::Graph>) {
          w.beginObject();
          if (folded_get_attrs_.count(x.node)) {
            w.key("name").string(x.node->attr);
            w.key("graph").raw(
                w_.subgraphJson(*g_.attribute(x.node->attr)->subgraph, childGraphPath(gpath_, x.node->attr)));
          } else {
            w.key("name").string(ref(x.node, user));
            w.key("graph").null();
          }
          w.endObject();
        } else if constexpr (std::is_same_v<X, arg::CustomObj>) {
          w.beginObject();
          w.key("name").string(ref(x.node, user));
          w.key("class_fqn").string(x.class_fqn);
          w.endObject();
        }
      },
      a.variant());
}

void GraphWriter::outputFor(JsonWriter& w, const std::string& name, const Val& v) {
  // {tag: {"as_name": name}}, with the value itself in `table` under `name`.
  // {tag: {"as_name": name}}, with {value_tag: value} in `table` under `name`.
  auto named = [&](JsonWriter& table, const char* tag, const char* value_tag, auto&& value) {
    table.member(name, [&](JsonWriter& t) { oneKey(t, value_tag, [&] { value(t); }); });
    oneKey(w, tag, [&] { oneKey(w, "as_name", [&] { w.string(name); }); });
  };
  if (const auto* t = v.tensor()) {
    tensor_values_.member(name, [&](JsonWriter& table) { tensorMetaJson(table, *t, kNoWhere); });
    oneKey(w, "as_tensor", [&] { nameObject(w, name); });
  } else if (const auto* s = v.get<Val::SymInt>()) {
    named(sym_int_values_, "as_sym_int", "as_expr", [&](JsonWriter& t) { symExprJson(t, s->expr); });
  } else if (const auto* i = v.get<int64_t>()) {
    named(sym_int_values_, "as_sym_int", "as_int", [&](JsonWriter& t) { t.integer(*i); });
  } else if (const auto* sf = v.get<Val::SymFloat>()) {
    named(sym_float_values_, "as_sym_float", "as_expr", [&](JsonWriter& t) { symExprJson(t, sf->expr); });
  } else if (const auto* f = v.get<double>()) {
    named(sym_float_values_, "as_sym_float", "as_float", [&](JsonWriter& t) { floatJson(t, *f); });
  } else if (const auto* sb = v.get<Val::SymBool>()) {
    named(sym_bool_values_, "as_sym_bool", "as_expr", [&](JsonWriter& t) { symExprJson(t, sb->expr); });
  } else if (const auto* b = v.get<bool>()) {
    named(sym_bool_values_, "as_sym_bool", "as_bool", [&](JsonWriter& t) { t.boolean(*b); });
  } else {
    oneKey(w, "as_none", [&] { w.boolean(true); });
  }
}

void GraphWriter::inputJson(JsonWriter& w, const Node& p, size_t index, JsonWriter& side) {
  const Val& v = p.meta.val;
  bool named = true, val_written = true;
  if (v.isTensor() || v.get<Val::SymInt>() || v.get<Val::SymFloat>() || v.get<Val::SymBool>()) {
    outputFor(w, p.name(), v);
  } else if (const auto* obj = v.get<Val::CustomObj>()) {
    JsonWriter o;
    o.beginObject();
    o.key("name").string(p.name());
    o.key("class_fqn").string(obj->class_fqn);
    o.endObject();
    custom_obj_values_.key(p.name()).raw(o.compact());
    oneKey(w, "as_custom_obj", [&] { w.raw(o.compact()); });
  } else {
    named = false;
    if (const auto* i = v.get<int64_t>()) {
      oneKey(w, "as_int", [&] { w.integer(*i); });
    } else if (const auto* f = v.get<double>()) {
      oneKey(w, "as_float", [&] { floatJson(w, *f); });
    } else if (const auto* b = v.get<bool>()) {
      oneKey(w, "as_bool", [&] { w.boolean(*b); });
    } else if (const auto* s = v.get<std::string>()) {
      oneKey(w, "as_string", [&] { w.string(*s); });
    } else {
      oneKey(w, "as_none", [&] { w.boolean(true); });
      val_written = v.get<Val::None>() != nullptr;
    }
  }
  const bool rename = !named && p.name() != defaultInputName(sig_, index);
  if (rename || !metaIsEmpty(p.meta, val_written)) {
    side.beginObject();
    side.key("name");
    if (rename) {
      side.string(p.name());
    } else {
      side.null();
    }
    side.key("metadata");
    beginMetaJson(side, p.meta, val_written, kNoWhere);
    side.endObject();
    side.endObject();
  }
}

void GraphWriter::namedInputs(JsonWriter& w, const Node& n) {
  auto add = [&](std::string_view name, const Argument& a, int kind) {
    w.beginObject();
    w.key("name").string(name);
    w.key("arg");
    argJson(w, a, n);
    w.key("kind").integer(kind);
    w.endObject();
  };
  const bool call = n.op() == OpKind::CallFunction;
  const OpInfo* op = call && n.target.kind() == Target::Kind::Aten ? n.target.op() : nullptr;
  if (op) {
    if (auto error = checkSchemaCall(*op, n.args, n.kwargs)) fail(where(n), *error);
  }
  w.beginArray();
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (op && i < op->arguments.size()) {
      add(op->arguments[i].name, n.args[i], /*kind=POSITIONAL*/ 1);
      continue;
    }
    std::string name = "arg" + std::to_string(i);
    if (call && n.target.kind() == Target::Kind::Builtin) {
      const auto& params = Target::builtinParamNames(n.target.builtinOp());
      if (i < params.size()) name = std::string(params[i]);
    } else if (call && n.target.kind() == Target::Kind::HigherOrder) {
      name.clear();  // torch names higher-order positional arguments ""
    }
    add(name, n.args[i], /*kind=POSITIONAL*/ 1);
  }
  for (const auto& [key, a] : n.kwargs) add(key, a, /*kind=KEYWORD*/ 2);
  w.endArray();
}

// The node's "target" and, for a call that does not read back as itself, the
// extension saying what kind of target it is.
std::string GraphWriter::targetJson(const Node& n, std::optional<std::string>& target_kind) {
  if (n.op() != OpKind::CallFunction) return n.op() == OpKind::Placeholder ? std::string() : n.attr;
  std::string target = n.target.exportName();
  if (readsBack(n.target, target)) return target;
  if (n.target.kind() == Target::Kind::Other) {
    target_kind = "other";
  } else if (n.target.kind() == Target::Kind::HigherOrder) {
    target_kind = "higher_order";
  } else {
    fail(where(n), "target '" + target + "' does not read back as itself");
  }
  return target;
}

// Writes the node's "outputs" array. A folded list writes one entry per element,
// and the indices of the elements no node reads go to `unused`.
GraphWriter::OutputsWritten GraphWriter::outputsJson(JsonWriter& w, const Node& n, std::vector<int64_t>& unused) {
  const bool hop = n.op() == OpKind::CallFunction && n.target.kind() == Target::Kind::HigherOrder;
  OutputsWritten written{hop ? HopFlag::True : HopFlag::Null, true};
  w.key("outputs").beginArray();
  if (auto fold = folds_.find(&n); fold != folds_.end()) {
    const FoldPlan& plan = fold->second;
    const Val::List& list = *n.meta.val.list();
    if (plan.as_tensors) {
      oneKey(w, "as_tensors", [&] {
        w.beginArray();
        for (size_t i = 0; i < list.size(); ++i) {
          tensor_values_.member(plan.names[i],
                                [&](JsonWriter& table) { tensorMetaJson(table, *list[i].tensor(), kNoWhere); });
          nameObject(w, plan.names[i]);
        }
        w.endArray();
      });
      written.hop_flag = hop ? HopFlag::False : HopFlag::Null;
    } else {
      for (size_t i = 0; i < list.size(); ++i) outputFor(w, plan.names[i], list[i]);
      written.hop_flag = hop || list.size() == 1 ? HopFlag::False : HopFlag::Null;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!plan.used[i] && !list[i].get<Val::None>()) unused.push_back(static_cast<int64_t>(i));
    }
  } else if (!n.meta.val.isMissing()) {
    if (hasOutputForm(n.meta.val)) {
      outputFor(w, n.name(), n.meta.val);
    } else {
      written.val_written = false;
    }
  }
  w.endArray();
  return written;
}

void GraphWriter::nodeJson(JsonWriter& w, const Node& n) {
  std::optional<std::string> target_kind;
  const std::string target = targetJson(n, target_kind);
  w.beginObject();
  w.key("target").string(target);
  w.key("inputs");
  namedInputs(w, n);
  std::vector<int64_t> unused;
  const OutputsWritten written = outputsJson(w, n, unused);
  w.key("metadata");
  beginMetaJson(w, n.meta, written.val_written, kNoWhere);
  if (n.op() != OpKind::CallFunction) w.key(kExtOp).string(opKindName(n.op()));
  if (target_kind) w.key(kExtTarget).string(*target_kind);
  if (!unused.empty()) {
    JsonWriter list;
    list.integers(unused);
    w.key(kExtUnused).string(list.compact());
  }
  w.endObject();
  w.key("is_hop_single_tensor_return");
  switch (written.hop_flag) {
    case HopFlag::Null: w.null(); break;
    case HopFlag::True: w.boolean(true); break;
    case HopFlag::False: w.boolean(false); break;
  }
  w.key("name").string(n.name());
  w.endObject();
}

void GraphWriter::attributeJson(JsonWriter& w, const std::string& name, const Attribute& a) {
  const std::string child = childGraphPath(gpath_, name);
  w.beginObject();
  w.key("kind").string(attributeKindName(a.kind));
  w.key("graph");
  if (a.subgraph) {
    w.raw(w_.subgraphJson(*a.subgraph, child));
  } else {
    w.null();
  }
  w.key("tensor");
  if (a.tensor) {
    w_.tensorValueJson(w, *a.tensor, keyPath(keyPath("$.epsmith.attributes", gpath_), name) + ".tensor",
                       /*storage_optional=*/true);
  } else {
    w.null();
  }
  w.key("text").string(a.text);
  w.key("field_types").beginObject();
  for (const auto& [field, type] : a.field_types) w.key(field).string(type);
  w.endObject();
  w.key("has_original_module").boolean(a.has_original_module);
  w.endObject();
}

// The graph's inputs into `out`; their "graphs" section entries (null where an input has
// none) into `side`. Whether any input had one.
bool GraphWriter::inputsJson(JsonWriter& out, JsonWriter& side_inputs) {
  out.beginArray();
  side_inputs.beginArray();
  bool any_side = false;
  size_t index = 0;
  for (auto it = g_.nodes().begin(); it != g_.nodes().end() && it->isPlaceholder(); ++it, ++index) {
    JsonWriter side;
    located(*it, [&] { inputJson(out, *it, index, side); });
    any_side = any_side || !side.compact().empty();
    if (side.compact().empty())
      side_inputs.null();
    else
      side_inputs.raw(side.compact());
  }
  side_inputs.endArray();
  out.endArray();
  return any_side;
}

// The graph's entry in the "graphs" section: its inputs' entries, and the output node's
// name and metadata where they are not torch's defaults.
void GraphWriter::sideEntryJson(bool any_side, const JsonWriter& side_inputs) {
  const Node& output = g_.nodes().back();
  const bool named_output = output.name() != "output" || !(output.meta == NodeMeta{});
  if (!any_side && !named_output) return;
  w_.graphs().member(gpath_, [&](JsonWriter& side) {
    side.beginObject();
    if (any_side) side.key("inputs").raw(side_inputs.compact());
    if (named_output) {
      side.key("output").beginObject();
      side.key("name").string(output.name());
      side.key("metadata");
      beginMetaJson(side, output.meta, output.meta.val.isMissing(), where(output));
      side.endObject();
      side.endObject();
    }
    side.endObject();
  });
}

// The graph's attributes in the "attributes" section, but those folded into get_attr
// arguments.
void GraphWriter::attributesJson() {
  std::unordered_set<std::string> folded_attrs;
  for (const Node* n : folded_get_attrs_) folded_attrs.insert(n->attr);
  JsonWriter attrs;  // written before it is known to be empty
  attrs.beginObject();
  bool any_attr = false;
  for (const auto& name_attribute : g_.attributes()) {
    const std::string& name = name_attribute.first;
    const Attribute& a = name_attribute.second;
    if (folded_attrs.count(name)) continue;
    attrs.member(name, [&](JsonWriter& v) { attributeJson(v, name, a); });
    any_attr = true;
  }
  attrs.endObject();
  if (any_attr) w_.attributes().key(gpath_).raw(attrs.compact());
}

void GraphWriter::write(JsonWriter& out) {
  validate();
  planGetitemFolds();
  planGetAttrFolds();
  out.beginObject();
  JsonWriter side_inputs;
  const bool any_side = inputsJson(out.key("inputs"), side_inputs);
  // Nodes are written before the outputs they follow in the file: the side tables must
  // have every node's entry by the time they are closed, and `outputs` only refers.
  JsonWriter nodes;
  nodes.beginArray();
  auto it = g_.nodes().begin();
  while (it != g_.nodes().end() && it->isPlaceholder()) ++it;  // the inputs, written above
  for (; it != g_.nodes().end(); ++it) {
    if (it->isOutput() || folded_getitems_.count(&*it) || folded_get_attrs_.count(&*it)) continue;
    located(*it, [&] { nodeJson(nodes, *it); });
  }
  nodes.endArray();
  const Node& output = g_.nodes().back();
  out.key("outputs").beginArray();
  for (const auto& a : output.args) argJson(out, a, output);
  out.endArray();
  out.key("nodes").raw(nodes.compact());
  for (JsonWriter* table :
       {&tensor_values_, &sym_int_values_, &sym_bool_values_, &sym_float_values_, &custom_obj_values_}) {
    table->endObject();
  }
  out.key("tensor_values").raw(tensor_values_.compact());
  out.key("sym_int_values").raw(sym_int_values_.compact());
  out.key("sym_bool_values").raw(sym_bool_values_.compact());
  out.key("is_single_tensor_return").boolean(g_.returns_one_value);
  out.key("custom_obj_values").raw(custom_obj_values_.compact());
  out.key("sym_float_values").raw(sym_float_values_.compact());
  out.endObject();
  sideEntryJson(any_side, side_inputs);
  attributesJson();
}

}  // namespace epsmith::json_detail
