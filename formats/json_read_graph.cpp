// Reads one torch Graph object into an IR graph: placeholders from `inputs`, nodes (with the
// getitem and get_attr foldings undone, see docs/json-format.md), the output node, and the
// graph's attributes from the epsmith section. Names resolve in a second pass, so a use
// before its definition survives for the verifier to report.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "formats/json_read.h"
#include "ops/schema_check.h"
#include "ops/targets.h"

namespace epsmith::json_detail {
namespace {

const std::vector<std::string_view>& argumentTags() {
  static const std::vector<std::string_view> tags = [] {
    std::vector<std::string_view> t;
    for (int k = 0; k < kNumArgKinds; ++k) t.push_back(serializedTag(static_cast<ArgKind>(k)));
    for (const char* extra : {"as_nested_tensors", "as_int_lists", "as_string_to_argument"}) {
      t.push_back(extra);
    }
    return t;
  }();
  return tags;
}

bool hasSingleKey(const JsonValue& j, std::string_view key) {
  return j.isObject() && j.size() == 1 && j[0].key() == key;
}

bool isNamedOutputTag(std::string_view tag) {
  return tag == "as_tensor" || tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool";
}

class GraphReader {
 public:
  GraphReader(ProgramReader& r, const At& a, std::string gpath, const GraphSignature* sig, Graph& g)
      : r_(r), a_(a), gpath_(std::move(gpath)), sig_(sig), g_(g) {}
  void read();

 private:
  struct Element {
    std::optional<std::string> name;  // none for an as_none element
    Val val;
    At where;
  };
  struct Pending {
    Node* node;
    At json;
  };

  void readValueTables();
  void readInputs();
  void readNode(const At& n);
  static Target readTarget(const At& target_at, const At& metadata, OpKind op, const MetaRead& ext);
  // A node with folded outputs: its list val, and a getitem node per named element.
  void unfold(Node* node, const std::vector<Element>& elements, const At& metadata, const MetaRead& ext);
  void readOutputNode();
  void foldInSubgraphs(const At& list, bool named);
  Node* create(OpKind op, const std::string& name, const At& where);
  Node* lookup(const std::string& name, const At& where) const;
  std::pair<std::string, Val> namedOutput(std::string_view tag, const At& v) const;
  std::pair<std::optional<std::string>, Val> singleOutput(const At& o) const;
  std::vector<Element> foldedOutputs(const At& outputs) const;
  Argument argument(const At& a) const;
  void resolveInputs(const Pending& p);
  void readAttributes();

  ProgramReader& r_;
  At a_;
  std::string gpath_;
  const GraphSignature* sig_;
  Graph& g_;
  std::optional<At> side_;
  std::unordered_map<std::string, Val> tensor_vals_, sym_int_vals_, sym_bool_vals_, sym_float_vals_;
  std::unordered_map<std::string, std::string> custom_obj_vals_;
  std::unordered_map<std::string, Node*> names_;
  std::unordered_set<const Node*> folded_get_attrs_;
  std::vector<Pending> pending_;
  Node* output_ = nullptr;
};

void GraphReader::read() {
  a_.allowOnly({"inputs", "outputs", "nodes", "tensor_values", "sym_int_values", "sym_bool_values",
                "is_single_tensor_return", "custom_obj_values", "sym_float_values"});
  readValueTables();
  readInputs();
  At nodes = a_.field("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) readNode(nodes[i]);
  readOutputNode();
  for (const auto& p : pending_) resolveInputs(p);
  At outputs = a_.field("outputs");
  for (size_t i = 0; i < outputs.size(); ++i) output_->args.push_back(argument(outputs[i]));
  readAttributes();
}

void GraphReader::readValueTables() {
  a_.field("tensor_values").forEachEntry([&](const std::string& name, const At& v) {
    tensor_vals_.emplace(name, readTensorMeta(v));
  });
  // Each table holds a concrete value (as_int / as_bool / as_float) or an expression.
  auto symbolic = [&](std::string_view field, std::string_view what, const char* literal, auto& table, auto make_expr,
                      auto make_literal, bool required) {
    std::optional<At> t = required ? std::optional<At>(a_.field(field)) : a_.optional(field);
    if (!t) return;
    t->forEachEntry([&](const std::string& name, const At& v) {
      auto [tag, x] = v.unionOf(what, {"as_expr", literal});
      table.emplace(name, tag == "as_expr" ? Val(make_expr(readSymExpr(x))) : make_literal(x));
    });
  };
  symbolic(
      "sym_int_values", "SymInt", "as_int", sym_int_vals_, [](SymExpr e) { return Val::SymInt{std::move(e)}; },
      [](const At& x) { return Val(x.integer()); }, /*required=*/true);
  symbolic(
      "sym_bool_values", "SymBool", "as_bool", sym_bool_vals_, [](SymExpr e) { return Val::SymBool{std::move(e)}; },
      [](const At& x) { return Val(x.boolean()); }, /*required=*/true);
  symbolic(
      "sym_float_values", "SymFloat", "as_float", sym_float_vals_,
      [](SymExpr e) { return Val::SymFloat{std::move(e)}; }, [](const At& x) { return Val(x.number()); },
      /*required=*/false);
  if (auto objs = a_.optional("custom_obj_values")) {
    objs->forEachEntry([&](const std::string& name, const At& v) {
      v.allowOnly({"name", "class_fqn"});
      v.field("name").string();
      custom_obj_vals_.emplace(name, v.field("class_fqn").string());
    });
  }
  if (auto single = a_.optional("is_single_tensor_return")) g_.returns_one_value = single->boolean();
}

Node* GraphReader::create(OpKind op, const std::string& name, const At& where) {
  if (names_.count(name)) where.fail("duplicate node name " + jsonQuoted(name));
  Node* n = g_.appendRaw(op, name);
  names_.emplace(name, n);
  return n;
}

Node* GraphReader::lookup(const std::string& name, const At& where) const {
  auto it = names_.find(name);
  if (it == names_.end()) where.fail("undefined name " + jsonQuoted(name));
  return it->second;
}

// A named value (as_tensor {name} or as_sym_* {as_name}) and its entry in the value tables.
std::pair<std::string, Val> GraphReader::namedOutput(std::string_view tag, const At& v) const {
  std::string name;
  const std::unordered_map<std::string, Val>* table = &tensor_vals_;
  const char* table_name = "tensor_values";
  if (tag == "as_tensor") {
    name = readTensorArgument(v);
  } else {
    auto [sym_tag, x] = v.unionOf("symbolic argument", {"as_name", "as_int", "as_float", "as_bool"});
    if (sym_tag != "as_name") x.fail("a graph input or node output must be named");
    name = x.string();
    if (tag == "as_sym_int") {
      table = &sym_int_vals_;
      table_name = "sym_int_values";
    } else if (tag == "as_sym_float") {
      table = &sym_float_vals_;
      table_name = "sym_float_values";
    } else {
      table = &sym_bool_vals_;
      table_name = "sym_bool_values";
    }
  }
  auto it = table->find(name);
  if (it == table->end()) v.fail("no " + std::string(table_name) + " entry for " + jsonQuoted(name));
  return {name, it->second};
}

std::pair<std::optional<std::string>, Val> GraphReader::singleOutput(const At& o) const {
  auto [tag, v] = o.unionOf("Argument", argumentTags());
  if (isNamedOutputTag(tag)) return namedOutput(tag, v);
  if (tag == "as_none") return {std::nullopt, Val(Val::None{})};
  if (tag == "as_int") return {std::nullopt, Val(v.integer())};
  if (tag == "as_float") return {std::nullopt, Val(v.number())};
  if (tag == "as_bool") return {std::nullopt, Val(v.boolean())};
  o.fail("unsupported node output " + jsonQuoted(tag));
}

std::vector<GraphReader::Element> GraphReader::foldedOutputs(const At& outputs) const {
  std::vector<Element> out;
  if (outputs.size() == 1 && hasSingleKey(outputs[0].json(), "as_tensors")) {
    At list = outputs[0].field("as_tensors");
    for (size_t i = 0; i < list.size(); ++i) {
      auto [name, val] = namedOutput("as_tensor", list[i]);
      out.push_back({name, std::move(val), list[i]});
    }
    return out;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    At o = outputs[i];
    auto [tag, v] = o.unionOf("Argument", argumentTags());
    if (tag == "as_none") {
      out.push_back({std::nullopt, Val(Val::None{}), o});
    } else if (isNamedOutputTag(tag)) {
      auto [name, val] = namedOutput(tag, v);
      out.push_back({name, std::move(val), o});
    } else {
      o.fail(tag == "as_tensors" ? "a list inside several outputs is not supported"
                                 : "unsupported node output " + jsonQuoted(tag));
    }
  }
  return out;
}

void GraphReader::foldInSubgraphs(const At& list, bool named) {
  for (size_t i = 0; i < list.size(); ++i) {
    At item = list[i];
    const JsonValue* arg = &item.json();
    if (named) {
      arg = arg->find("arg");
      if (!arg) continue;  // pass 2 reports it
    }
    if (!hasSingleKey(*arg, "as_graph")) continue;
    At ga = (named ? item.field("arg") : item).field("as_graph");
    ga.allowOnly({"name", "graph"});
    std::optional<At> graph = ga.optional("graph");
    if (!graph) continue;
    At name_at = ga.field("name");
    const std::string& name = name_at.string();
    if (auto it = names_.find(name); it != names_.end()) {
      if (folded_get_attrs_.count(it->second)) continue;  // a later use of the same subgraph
      name_at.fail("subgraph name " + jsonQuoted(name) + " is already a node name");
    }
    auto sub = std::make_unique<Graph>();
    readGraph(r_, *graph, childGraphPath(gpath_, name), /*sig=*/nullptr, *sub);
    g_.attributes().emplace(name, Attribute::makeSubgraph(std::move(sub)));
    Node* get_attr = create(OpKind::GetAttr, name, name_at);
    get_attr->attr = name;
    folded_get_attrs_.insert(get_attr);
  }
}

void GraphReader::readInputs() {
  At inputs = a_.field("inputs");
  side_ = r_.graphSideInfo(gpath_);
  std::optional<At> side_inputs;
  if (side_) {
    side_->allowOnly({"inputs", "output"});
    side_inputs = side_->optional("inputs");
    if (side_inputs && side_inputs->size() != inputs.size()) {
      side_inputs->fail("has " + std::to_string(side_inputs->size()) + " entries for " + std::to_string(inputs.size()) +
                        " graph inputs");
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    At in = inputs[i];
    auto [tag, v] = in.unionOf("Argument", argumentTags());
    std::optional<std::string> name;
    Val val;
    if (isNamedOutputTag(tag)) {
      std::tie(name, val) = namedOutput(tag, v);
    } else if (tag == "as_custom_obj") {
      v.allowOnly({"name", "class_fqn"});
      name = v.field("name").string();
      auto it = custom_obj_vals_.find(*name);
      val = Val::CustomObj{it != custom_obj_vals_.end() ? it->second : v.field("class_fqn").string()};
    } else if (tag == "as_string") {
      val = v.string();
    } else if (tag == "as_none" || tag == "as_int" || tag == "as_float" || tag == "as_bool") {
      val = singleOutput(in).second;
    } else {
      in.fail("unsupported graph input " + jsonQuoted(tag));
    }
    MetaRead ext;
    if (side_inputs && !(*side_inputs)[i].isNull()) {
      At entry = (*side_inputs)[i];
      entry.allowOnly({"name", "metadata"});
      if (auto rename = entry.optional("name")) {
        if (name) rename->fail("graph input " + jsonQuoted(*name) + " is already named");
        name = rename->string();
      }
      if (auto md = entry.optional("metadata")) {
        ext = readMetadata(*md);
        if (ext.op || ext.target_kind || ext.unused_outputs) {
          md->fail("only \"epsmith.val\" extends the metadata of a graph input");
        }
      }
    }
    if (ext.val) val = std::move(*ext.val);
    Node* p = create(OpKind::Placeholder, name ? *name : defaultInputName(sig_, i), in);
    p->meta = std::move(ext.meta);
    p->meta.val = std::move(val);
  }
}

// A call's target (an ATen op, a higher-order op, any other callable, as the metadata
// says); other nodes have none.
Target GraphReader::readTarget(const At& target_at, const At& metadata, OpKind op, const MetaRead& ext) {
  const std::string target_text = target_at.string();
  Target target;
  if (op == OpKind::CallFunction) {
    const std::string hop_prefix = "torch.ops.higher_order.";
    if (ext.target_kind == "other") {
      target = Target::other(target_text);
    } else if (ext.target_kind == "higher_order") {
      if (target_text.compare(0, hop_prefix.size(), hop_prefix) != 0) {
        target_at.fail("a higher-order target starts with " + hop_prefix);
      }
      target = Target::higherOrder(target_text.substr(hop_prefix.size()));
    } else {
      auto parsed = parseTarget(target_text);
      if (!parsed) target_at.fail(parsed.error().message);
      target = *parsed;
    }
  } else if (ext.target_kind) {
    metadata.fail("\"epsmith.target\" applies to call_function nodes only");
  } else if (op == OpKind::Placeholder && !target_text.empty()) {
    target_at.fail("a placeholder node has no target");
  }
  return target;
}

void GraphReader::unfold(Node* node, const std::vector<Element>& elements, const At& metadata, const MetaRead& ext) {
  std::vector<bool> unused(elements.size(), false);
  for (int64_t i : ext.unused_outputs.value_or(std::vector<int64_t>{})) {
    if (i < 0 || i >= static_cast<int64_t>(elements.size()) || !elements[i].name || unused[i]) {
      metadata.fail("\"epsmith.unused_outputs\" names output " + std::to_string(i) +
                    ", which is not a named output or is listed twice");
    }
    unused[i] = true;
  }
  Val::List list;
  for (const auto& e : elements) list.push_back(e.val);
  node->meta.val = std::move(list);
  for (size_t i = 0; i < elements.size(); ++i) {
    if (!elements[i].name || unused[i]) continue;
    Node* item = create(OpKind::CallFunction, *elements[i].name, elements[i].where);
    item->target = Target::builtin(BuiltinOp::GetItem);
    item->args = {arg::Tensor{node}, arg::Int{static_cast<int64_t>(i)}};
    item->meta = ext.meta;
    item->meta.val = elements[i].val;
  }
}

void GraphReader::readNode(const At& n) {
  n.allowOnly({"target", "inputs", "outputs", "metadata", "is_hop_single_tensor_return", "name"});
  At metadata = n.field("metadata");
  MetaRead ext = readMetadata(metadata);
  const OpKind op = ext.op.value_or(OpKind::CallFunction);
  At target_at = n.field("target");
  const Target target = readTarget(target_at, metadata, op, ext);
  At inputs = n.field("inputs");
  if (op == OpKind::Placeholder && inputs.size() != 0) inputs.fail("a placeholder takes no inputs");
  foldInSubgraphs(inputs, /*named=*/true);

  At outputs = n.field("outputs");
  const size_t count = outputs.size();
  std::optional<bool> hop_flag;
  if (auto flag = n.optional("is_hop_single_tensor_return")) hop_flag = flag->boolean();
  std::optional<std::string> name;
  if (auto field = n.optional("name")) name = field->string();
  Val val;
  std::vector<Element> elements;
  const bool folded =
      !ext.val && (count >= 2 || (count == 1 && (hasSingleKey(outputs[0].json(), "as_tensors") || hop_flag == false)));
  if (ext.val) {
    if (count) outputs.fail("a node with \"epsmith.val\" metadata has no outputs");
    val = std::move(*ext.val);
  } else if (folded) {
    elements = foldedOutputs(outputs);
  } else if (count == 1) {
    auto [out_name, v] = singleOutput(outputs[0]);
    val = std::move(v);
    if (out_name) {
      if (name && *name != *out_name) {
        n.field("name").fail("node name " + jsonQuoted(*name) + " differs from its output name " +
                             jsonQuoted(*out_name));
      }
      name = out_name;
    }
  }
  if (ext.unused_outputs && !folded) {
    metadata.fail("\"epsmith.unused_outputs\" applies to nodes with folded outputs only");
  }
  if (!name) {
    name = g_.uniqueName(target.kind() == Target::Kind::Aten
                             ? target.op()->qualified_name.substr(target.op()->qualified_name.find("::") + 2)
                             : std::string(opKindName(op)));
  }
  Node* node = create(op, *name, n);
  node->target = target;
  if (op != OpKind::CallFunction && op != OpKind::Placeholder) node->attr = target_at.string();
  node->meta = ext.meta;
  if (folded)
    unfold(node, elements, metadata, ext);
  else
    node->meta.val = std::move(val);
  pending_.push_back({node, n});
}

void GraphReader::readOutputNode() {
  At outputs = a_.field("outputs");
  foldInSubgraphs(outputs, /*named=*/false);
  std::string name = "output";
  MetaRead ext;
  if (side_) {
    if (auto o = side_->optional("output")) {
      o->allowOnly({"name", "metadata"});
      if (auto n = o->optional("name")) name = n->string();
      if (auto md = o->optional("metadata")) {
        ext = readMetadata(*md);
        if (ext.op || ext.target_kind || ext.unused_outputs) {
          md->fail("only \"epsmith.val\" extends the metadata of the output node");
        }
      }
    }
  }
  output_ = create(OpKind::Output, name, outputs);
  output_->meta = std::move(ext.meta);
  if (ext.val) output_->meta.val = std::move(*ext.val);
}

template <typename T>
arg::SymScalar<T> symScalar(const At& a, const char* literal_tag, T (*literal)(const At&),
                            const std::function<Node*(const At&)>& ref) {
  auto [tag, v] = a.unionOf("symbolic argument", {"as_name", literal_tag});
  if (tag == "as_name") return {ref(v), T{}};
  return {nullptr, literal(v)};
}

int64_t intOf(const At& a) { return a.integer(); }
double floatOf(const At& a) { return a.number(); }
bool boolOf(const At& a) { return a.boolean(); }

Argument GraphReader::argument(const At& a) const {
  const auto tagged = a.unionOf("Argument", argumentTags());
  const std::string_view tag = tagged.first;
  const At& v = tagged.second;  // not a structured binding: lambdas below capture it
  int kind = 0;
  while (kind < kNumArgKinds && serializedTag(static_cast<ArgKind>(kind)) != tag) ++kind;
  if (kind == kNumArgKinds) a.fail("argument tag " + jsonQuoted(tag) + " is not supported by epsmith");
  std::function<Node*(const At&)> byName = [&](const At& x) { return lookup(x.string(), x); };
  auto tensor = [&](const At& x) { return lookup(readTensorArgument(x), x); };
  auto optionalTensor = [&](const At& x) -> Node* {
    auto [t, y] = x.unionOf("OptionalTensorArgument", {"as_tensor", "as_none"});
    return t == "as_tensor" ? tensor(y) : nullptr;
  };
  auto list = [&](auto each) {
    std::vector<decltype(each(v))> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(each(v[i]));
    return out;
  };
  switch (static_cast<ArgKind>(kind)) {
    case ArgKind::None: return arg::None{};
    case ArgKind::Tensor: return arg::Tensor{tensor(v)};
    case ArgKind::TensorList: return arg::TensorList{list(tensor)};
    case ArgKind::OptionalTensor: return arg::OptionalTensor{optionalTensor(v)};
    case ArgKind::OptionalTensorList: return arg::OptionalTensorList{list(optionalTensor)};
    case ArgKind::Int: return arg::Int{v.integer()};
    case ArgKind::IntList: return arg::IntList{v.integers()};
    case ArgKind::Float: return arg::Float{v.number()};
    case ArgKind::FloatList: return arg::FloatList{list(floatOf)};
    case ArgKind::Bool: return arg::Bool{v.boolean()};
    case ArgKind::BoolList: {
      std::vector<bool> values;
      for (size_t i = 0; i < v.size(); ++i) values.push_back(v[i].boolean());
      return arg::BoolList{std::move(values)};
    }
    case ArgKind::String: return arg::String{v.string()};
    case ArgKind::StringList: return arg::StringList{v.strings()};
    case ArgKind::SymInt: return arg::SymInt{symScalar(v, "as_int", intOf, byName)};
    case ArgKind::SymIntList:
      return arg::SymIntList{list([&](const At& x) { return symScalar(x, "as_int", intOf, byName); })};
    case ArgKind::SymFloat: return arg::SymFloat{symScalar(v, "as_float", floatOf, byName)};
    case ArgKind::SymFloatList:
      return arg::SymFloatList{list([&](const At& x) { return symScalar(x, "as_float", floatOf, byName); })};
    case ArgKind::SymBool: return arg::SymBool{symScalar(v, "as_bool", boolOf, byName)};
    case ArgKind::SymBoolList:
      return arg::SymBoolList{list([&](const At& x) { return symScalar(x, "as_bool", boolOf, byName); })};
    case ArgKind::ScalarType: return arg::Dtype{readDtype(v)};
    case ArgKind::MemoryFormat: return arg::MemFormat{readMemoryFormat(v)};
    case ArgKind::Layout: return arg::TensorLayout{readLayout(v)};
    case ArgKind::Device: return arg::DeviceArg{readDevice(v)};
    case ArgKind::Graph: {
      v.allowOnly({"name", "graph"});
      return arg::Graph{byName(v.field("name"))};
    }
    case ArgKind::CustomObj: {
      v.allowOnly({"name", "class_fqn"});
      return arg::CustomObj{byName(v.field("name")), v.field("class_fqn").string()};
    }
    case ArgKind::Operator: {
      const std::string& text = v.string();
      auto t = parseTarget(text);
      return arg::Operator{t && t->exportName() == text ? t->textName() : text};
    }
    case ArgKind::Complex: {
      v.allowOnly({"real", "imag"});
      return arg::Complex{v.field("real").number(), v.field("imag").number()};
    }
  }
  a.fail("unreachable argument kind");
}

void GraphReader::resolveInputs(const Pending& p) {
  Node& n = *p.node;
  At inputs = p.json.field("inputs");
  const OpInfo* op = n.atenOp();
  const bool by_schema = op && !op->is_vararg;
  for (size_t k = 0; k < inputs.size(); ++k) {
    At in = inputs[k];
    in.allowOnly({"name", "arg", "kind"});
    std::string name = in.field("name").string();
    Argument value = argument(in.field("arg"));
    int64_t kind = 0;  // UNKNOWN: decided as torch's loader does
    if (auto kind_at = in.optional("kind")) {
      kind = kind_at->integer();
      if (kind < 0 || kind > 2) kind_at->fail("unknown argument kind " + std::to_string(kind));
    }
    bool positional;
    if (by_schema) {
      int index = op->argumentIndex(name);
      positional = kind == 1 ||
                   (kind == 0 && index >= 0 && !op->arguments[index].kwarg_only && !op->arguments[index].has_default);
      if (positional) {
        size_t want = n.args.size();
        if (index < 0) in.field("name").fail(jsonQuoted(name) + " is not an argument of " + op->name());
        if (static_cast<size_t>(index) != want) {
          in.fail("positional argument " + jsonQuoted(name) + " is argument " + std::to_string(index) + " of " +
                  op->name() + " but " + std::to_string(want) + " positional arguments precede it");
        }
      }
    } else {
      positional = kind == 1 || (kind == 0 && name.empty());
    }
    if (positional) {
      n.args.push_back(std::move(value));
    } else {
      n.kwargs.emplace_back(std::move(name), std::move(value));
    }
  }
  if (op) {
    if (auto error = checkSchemaCall(*op, n.args, n.kwargs)) p.json.fail(*error);
  }
}

void GraphReader::readAttributes() {
  std::optional<At> attrs = r_.graphAttributes(gpath_);
  if (!attrs) return;
  attrs->forEachEntry([&](const std::string& name, const At& v) {
    if (g_.attributes().count(name)) v.fail("attribute " + jsonQuoted(name) + " is defined twice");
    v.allowOnly({"kind", "graph", "tensor", "text", "field_types", "has_original_module"});
    Attribute attr;
    At kind = v.field("kind");
    bool known = false;
    for (auto k : {Attribute::Kind::Subgraph, Attribute::Kind::Parameter, Attribute::Kind::Tensor,
                   Attribute::Kind::TreeSpec, Attribute::Kind::Module, Attribute::Kind::Opaque}) {
      if (attributeKindName(k) == kind.string()) {
        attr.kind = k;
        known = true;
      }
    }
    if (!known) kind.fail("unknown attribute kind " + jsonQuoted(kind.string()));
    if (auto graph = v.optional("graph")) {
      attr.subgraph = std::make_unique<Graph>();
      readGraph(r_, *graph, childGraphPath(gpath_, name), /*sig=*/nullptr, *attr.subgraph);
    }
    if (auto tensor = v.optional("tensor")) attr.tensor = r_.tensorValue(*tensor, /*storage_optional=*/true);
    if (auto text = v.optional("text")) attr.text = text->string();
    if (auto fields = v.optional("field_types")) {
      fields->forEachEntry([&](const std::string& field, const At& type) { attr.field_types[field] = type.string(); });
    }
    if (auto original = v.optional("has_original_module")) attr.has_original_module = original->boolean();
    g_.attributes().emplace(name, std::move(attr));
  });
}

}  // namespace

void readGraph(ProgramReader& r, const At& a, const std::string& gpath, const GraphSignature* sig, Graph& g) {
  r.enterSubgraph(a);
  GraphReader(r, a, gpath, sig, g).read();
  r.leaveSubgraph();
}

}  // namespace epsmith::json_detail
