// Text-form parsing of graphs: node lines, arguments, metadata and attributes (storages,
// tensor values, constants and spec arguments: text_parse_values.cpp).
#include "formats/text_parse_graph.h"

#include <cmath>

#include "ops/op_registry.h"
#include "ops/schema_check.h"
#include "ops/targets.h"

namespace epsmith::text {
namespace {

constexpr int kMaxDepth = 64;

}  // namespace

Node* GraphParser::refTo(std::string name, Loc at) {
  if (scope_) {
    auto it = scope_->nodes.find(name);
    if (it != scope_->nodes.end()) return it->second.second;
    scope_->forward_references = true;
  }
  Node* stand_in = scratch_.appendRaw(OpKind::Placeholder, std::move(name));
  stand_in->attr = at.str();
  return stand_in;
}

void GraphParser::define(Node* n, Loc at) { scope_->nodes.emplace(n->name(), std::make_pair(at, n)); }

void GraphParser::resolve(Graph& g) {
  if (!scope_->forward_references) return;  // every reference found its node as it was read
  NameIndex index(g);
  for (auto& n : g.nodes()) {
    n.forEachInputRef([&](Node*& ref) {
      if (ref->owningGraph() != &scratch_) return;
      Node* target = index.find(ref->name());
      if (!target) {
        auto colon = ref->attr.find(':');
        Loc at{std::stoi(ref->attr.substr(0, colon)), std::stoi(ref->attr.substr(colon + 1))};
        Cursor::failAt(at, "reference to undefined node %" + ref->name());
      }
      ref = target;
    });
  }
}

SymExpr GraphParser::symExpr() {
  SymExpr e;
  e.expr = c_.string("symbolic expression");
  if (c_.tryConsume(',')) {
    if (!c_.tryKeyword("hint")) c_.fail("expected hint=");
    c_.expect('=', "after hint");
    bool b = false;
    if (boolWord(c_, &b)) {
      e.hint = b;
    } else {
      Loc at = c_.loc();
      std::string tok = c_.numberToken();
      if (looksFloat(tok))
        e.hint = toDouble(tok, at);
      else
        e.hint = toInt(tok, at);
    }
  }
  return e;
}

SymIntValue GraphParser::symIntValue() {
  if (c_.tryKeyword("sym")) {
    c_.expect('(', "after sym");
    SymExpr e = symExpr();
    c_.expect(')', "closing sym(");
    return SymIntValue(std::move(e));
  }
  return SymIntValue(c_.integer("size"));
}

TensorMeta GraphParser::tensorMeta() {
  TensorMeta m;
  Loc at = c_.loc();
  std::string dtype = c_.ident("dtype");
  auto t = scalarTypeFromShortName(dtype);
  if (!t) Cursor::failAt(at, "unknown dtype '" + dtype + "'");
  m.dtype = *t;
  c_.expect('[', "after the dtype");
  if (!c_.tryConsume(']')) {
    do m.sizes.push_back(symIntValue());
    while (c_.tryConsume(','));
    c_.expect(']', "closing the sizes");
  }
  if (TensorMeta::elementCountOverflows(m.sizes)) Cursor::failAt(at, "the sizes have more elements than int64 counts");
  m.strides = TensorMeta::contiguousStrides(m.sizes);
  if (c_.rawPeek() == '<') {
    c_.expect('<', "");
    do {
      Loc key_at = c_.loc();
      std::string key = c_.ident("tensor attribute");
      c_.expect('=', "after " + key);
      if (key == "stride") {
        c_.expect('[', "before strides");
        m.strides.clear();
        if (!c_.tryConsume(']')) {
          do m.strides.push_back(symIntValue());
          while (c_.tryConsume(','));
          c_.expect(']', "closing the strides");
        }
        if (m.strides.size() != m.sizes.size()) {
          Cursor::failAt(
              key_at, std::to_string(m.sizes.size()) + " sizes but " + std::to_string(m.strides.size()) + " strides");
        }
      } else if (key == "offset") {
        m.storage_offset = symIntValue();
      } else if (key == "device") {
        Loc dev_at = c_.loc();
        auto d = Device::parse(c_.string("device"));
        if (!d) Cursor::failAt(dev_at, "malformed device");
        m.device = *d;
      } else if (key == "requires_grad") {
        if (!boolWord(c_, &m.requires_grad)) c_.fail("expected True or False");
      } else if (key == "layout") {
        Loc l_at = c_.loc();
        auto l = layoutFromTorchName(c_.word("layout"));
        if (!l) Cursor::failAt(l_at, "unknown layout");
        m.layout = *l;
      } else {
        Cursor::failAt(key_at, "unknown tensor attribute '" + key + "'");
      }
    } while (c_.tryConsume(','));
    c_.expect('>', "closing the tensor attributes");
  }
  return m;
}

Val GraphParser::val(int depth) {
  if (depth > kMaxDepth) c_.fail("values nested too deeply");
  char ch = c_.peek();
  Loc at = c_.loc();
  if (ch == '(') {
    c_.expect('(', "");
    Val::List items;
    while (!c_.tryConsume(')')) {
      items.push_back(val(depth + 1));
      if (!c_.tryConsume(',')) {
        c_.expect(')', "closing the tuple");
        break;
      }
    }
    return items;
  }
  if (auto k = tryConstant()) {
    return std::visit(
        [](auto& x) -> Val {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>)
            return Val::None{};
          else
            return std::move(x);
        },
        *k);
  }
  auto mark = c_.mark();
  std::string w = c_.word("a value");
  if (c_.rawPeek() == '[') {  // DTYPE[...]: a tensor (tensorMeta names a bad dtype)
    c_.reset(mark);
    return tensorMeta();
  }
  if (auto t = scalarTypeFromTorchName(w)) return *t;
  if (auto l = layoutFromTorchName(w)) return *l;
  if (auto m = memoryFormatFromTorchName(w)) return *m;
  auto call = [&](auto&& body) {
    c_.expect('(', "after " + w);
    auto result = body();
    c_.expect(')', "closing " + w + "(");
    return Val(std::move(result));
  };
  if (w == "device") {
    return call([&] {
      auto d = Device::parse(c_.string("device"));
      if (!d) Cursor::failAt(at, "malformed device");
      return *d;
    });
  }
  if (w == "sym_int") return call([&] { return Val::SymInt{symExpr()}; });
  if (w == "sym_float") return call([&] { return Val::SymFloat{symExpr()}; });
  if (w == "sym_bool") return call([&] { return Val::SymBool{symExpr()}; });
  if (w == "custom_obj") return call([&] { return Val::CustomObj{c_.string("class name")}; });
  if (w == "opaque") return call([&] { return Val::Opaque{c_.string("type name")}; });
  Cursor::failAt(at, "unknown value '" + w + "'");
}

template <typename T>
arg::SymScalar<T> GraphParser::symScalar(std::string_view what) {
  arg::SymScalar<T> s;
  if (c_.peek() == '%') {
    Loc at = c_.loc();
    s.node = refTo(c_.nodeName(), at);
    return s;
  }
  Loc at = c_.loc();
  if constexpr (std::is_same_v<T, bool>) {
    if (!boolWord(c_, &s.literal)) c_.fail("expected %node, True or False in " + std::string(what));
  } else {
    std::string tok = c_.numberToken();
    if constexpr (std::is_same_v<T, double>) {
      s.literal = toDouble(tok, at);
    } else {
      if (looksFloat(tok)) Cursor::failAt(at, "expected an integer in " + std::string(what));
      s.literal = toInt(tok, at);
    }
  }
  return s;
}

Argument GraphParser::list(std::string_view tag, Loc at) {
  c_.expect('[', "opening a list");
  std::vector<Argument> items;
  std::vector<Loc> locs;
  auto each = [&](auto&& one) {
    if (c_.tryConsume(']')) return;
    do {
      locs.push_back(c_.loc());
      one();
    } while (c_.tryConsume(','));
    c_.expect(']', "closing the list");
  };
  if (tag == "sym_ints") {
    arg::SymIntList l;
    each([&] { l.values.push_back(symScalar<int64_t>("sym_ints")); });
    return l;
  }
  if (tag == "sym_floats") {
    arg::SymFloatList l;
    each([&] { l.values.push_back(symScalar<double>("sym_floats")); });
    return l;
  }
  if (tag == "sym_bools") {
    arg::SymBoolList l;
    each([&] { l.values.push_back(symScalar<bool>("sym_bools")); });
    return l;
  }
  if (tag == "optional") {
    arg::OptionalTensorList l;
    each([&] {
      if (c_.tryKeyword("None")) {
        l.nodes.push_back(nullptr);
      } else {
        Loc ref_at = c_.loc();
        l.nodes.push_back(refTo(c_.nodeName(), ref_at));
      }
    });
    return l;
  }
  each([&] { items.push_back(argument()); });
  ArgKind kind = ArgKind::Int;
  if (tag == "ints")
    kind = ArgKind::Int;
  else if (tag == "floats")
    kind = ArgKind::Float;
  else if (tag == "bools")
    kind = ArgKind::Bool;
  else if (tag == "strings")
    kind = ArgKind::String;
  else if (tag == "tensors")
    kind = ArgKind::Tensor;
  else if (!items.empty())
    kind = items[0].kind();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind() != kind) {
      Cursor::failAt(locs[i], "list element of kind " + std::string(serializedTag(items[i].kind())) + " in a list of " +
                                  std::string(serializedTag(kind)));
    }
  }
  // Collects one field of each (same-kind) item into a list argument.
  auto collect = [&](auto list, auto field) -> Argument {
    for (auto& a : items) field(list, a);
    return list;
  };
  switch (kind) {
    case ArgKind::Int:
      return collect(arg::IntList{}, [](auto& l, Argument& a) { l.values.push_back(a.get<arg::Int>()->value); });
    case ArgKind::Float:
      return collect(arg::FloatList{}, [](auto& l, Argument& a) { l.values.push_back(a.get<arg::Float>()->value); });
    case ArgKind::Bool:
      return collect(arg::BoolList{}, [](auto& l, Argument& a) { l.values.push_back(a.get<arg::Bool>()->value); });
    case ArgKind::String:
      return collect(arg::StringList{}, [](auto& l, Argument& a) { l.values.push_back(a.get<arg::String>()->value); });
    case ArgKind::Tensor:
      return collect(arg::TensorList{}, [](auto& l, Argument& a) { l.nodes.push_back(a.get<arg::Tensor>()->node); });
    default: Cursor::failAt(at, "lists of " + std::string(serializedTag(kind)) + " are not supported");
  }
}

Argument GraphParser::argument() {
  char ch = c_.peek();
  Loc at = c_.loc();
  if (ch == '%') return arg::Tensor{refTo(c_.nodeName(), at)};
  if (ch == '[') return list("", at);
  if (auto k = tryConstant()) {
    return std::visit(
        [](auto& x) -> Argument {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::monostate>)
            return arg::None{};
          else if constexpr (std::is_same_v<X, int64_t>)
            return arg::Int{x};
          else if constexpr (std::is_same_v<X, double>)
            return arg::Float{x};
          else if constexpr (std::is_same_v<X, bool>)
            return arg::Bool{x};
          else
            return arg::String{std::move(x)};
        },
        *k);
  }
  std::string w = c_.word("an argument");
  if (auto t = scalarTypeFromTorchName(w)) return arg::Dtype{*t};
  if (auto l = layoutFromTorchName(w)) return arg::TensorLayout{*l};
  if (auto m = memoryFormatFromTorchName(w)) return arg::MemFormat{*m};
  if (c_.rawPeek() == '[') {
    static constexpr std::string_view kTags[] = {"ints",     "floats",   "bools",      "strings",  "tensors",
                                                 "optional", "sym_ints", "sym_floats", "sym_bools"};
    for (auto tag : kTags) {
      if (w == tag) return list(tag, at);
    }
    Cursor::failAt(at, "unknown list tag '" + w + "'");
  }
  if (c_.rawPeek() != '(') Cursor::failAt(at, "unknown argument '" + w + "'");
  c_.expect('(', "");
  Argument result;
  if (w == "optional") {
    if (c_.tryKeyword("None")) {
      result = arg::OptionalTensor{};
    } else {
      Loc ref_at = c_.loc();
      result = arg::OptionalTensor{refTo(c_.nodeName(), ref_at)};
    }
  } else if (w == "sym_int") {
    result = arg::SymInt{symScalar<int64_t>("sym_int")};
  } else if (w == "sym_float") {
    result = arg::SymFloat{symScalar<double>("sym_float")};
  } else if (w == "sym_bool") {
    result = arg::SymBool{symScalar<bool>("sym_bool")};
  } else if (w == "device") {
    auto d = Device::parse(c_.string("device"));
    if (!d) Cursor::failAt(at, "malformed device");
    result = arg::DeviceArg{*d};
  } else if (w == "graph") {
    Loc ref_at = c_.loc();
    result = arg::Graph{refTo(c_.nodeName(), ref_at)};
  } else if (w == "custom_obj") {
    Loc ref_at = c_.loc();
    Node* n = refTo(c_.nodeName(), ref_at);
    c_.expect(',', "after the custom object node");
    result = arg::CustomObj{n, c_.string("class name")};
  } else if (w == "operator") {
    result = arg::Operator{c_.string("operator name")};
  } else if (w == "complex") {
    Loc re_at = c_.loc();
    double re = toDouble(c_.numberToken(), re_at);
    c_.expect(',', "between real and imaginary parts");
    Loc im_at = c_.loc();
    double im = toDouble(c_.numberToken(), im_at);
    result = arg::Complex{re, im};
  } else {
    Cursor::failAt(at, "unknown argument '" + w + "(...)'");
  }
  c_.expect(')', "closing " + w + "(");
  return result;
}

void GraphParser::callArgs(Node& n) {
  c_.expect('(', "opening the arguments");
  if (c_.tryConsume(')')) return;
  do {
    auto mark = c_.mark();
    if (isIdentChar(c_.peek())) {
      Loc key_at = c_.loc();
      std::string key = c_.ident("keyword");
      if (c_.peek() == '=') {
        c_.expect('=', "");
        for (const auto& [k, v] : n.kwargs) {
          if (k == key) Cursor::failAt(key_at, "keyword argument '" + key + "' given twice");
        }
        n.kwargs.emplace_back(key, argument());
        continue;
      }
      c_.reset(mark);
    }
    if (!n.kwargs.empty()) c_.fail("positional argument after keyword arguments");
    n.args.push_back(argument());
  } while (c_.tryConsume(','));
  c_.expect(')', "closing the arguments");
}

void GraphParser::nodeMeta(NodeMeta& meta) {
  if (c_.peek() != '{') return;
  c_.expect('{', "");
  do {
    Loc at = c_.loc();
    std::string key = c_.ident("metadata key");
    c_.expect('=', "after " + key);
    if (key == "stack_trace") {
      meta.stack_trace = c_.string("stack trace");
    } else if (key == "nn_module_stack") {
      std::vector<ModuleStackEntry> stack;
      c_.expect('[', "opening nn_module_stack");
      if (!c_.tryConsume(']')) {
        do {
          ModuleStackEntry e;
          c_.expect('(', "opening a module stack entry");
          e.key = c_.string("module key");
          c_.expect(',', "");
          e.path = c_.string("module path");
          c_.expect(',', "");
          e.type = c_.string("module type");
          c_.expect(')', "closing a module stack entry");
          stack.push_back(std::move(e));
        } while (c_.tryConsume(','));
        c_.expect(']', "closing nn_module_stack");
      }
      meta.nn_module_stack = std::move(stack);
    } else if (key == "torch_fn") {
      c_.expect('(', "opening torch_fn");
      std::string a = c_.string("torch_fn name");
      c_.expect(',', "");
      std::string b = c_.string("torch_fn qualified name");
      c_.expect(')', "closing torch_fn");
      meta.torch_fn = std::make_pair(a, b);
    } else if (key == "custom") {
      c_.stringKeyedMap("custom", [&](const std::string& k) { meta.custom[k] = c_.string("custom value"); });
    } else {
      Cursor::failAt(at, "unknown metadata key '" + key + "'");
    }
  } while (c_.tryConsume(','));
  c_.expect('}', "closing the metadata");
}

void GraphParser::outputLine(Graph& g) {
  Loc at = c_.loc();
  std::string name = "output";
  Val v;
  if (c_.tryConsume('[')) {
    at = c_.loc();
    name = c_.nodeName();
    if (c_.tryConsume(':')) v = val();
    c_.expect(']', "closing return[...]");
  }
  if (scope_->nodes.count(name)) Cursor::failAt(at, "duplicate node name %" + name);
  Node* n = g.appendRaw(OpKind::Output, name);
  define(n, at);
  n->meta.val = std::move(v);
  if (c_.peek() == '%') {  // `return %x`: the one value as it is (Graph::returns_one_value)
    g.returns_one_value = true;
    n->args.push_back(argument());
  } else {
    callArgs(*n);
  }
  nodeMeta(n->meta);
}

void GraphParser::nodeLine(Graph& g) {
  Loc at = c_.loc();
  std::string name = c_.nodeName();
  if (auto it = scope_->nodes.find(name); it != scope_->nodes.end()) {
    Cursor::failAt(at, "duplicate node name %" + name + " (first defined at " + it->second.first.str() + ")");
  }
  Val v;
  if (c_.tryConsume(':')) v = val();
  c_.expect('=', "after the node name");
  Loc op_at = c_.loc();
  std::string op = c_.word("an op or target");
  Node* n = nullptr;
  if (op == "placeholder") {
    n = g.appendRaw(OpKind::Placeholder, name);
    define(n, at);
  } else if (op == "get_attr" || op == "call_module" || op == "call_method") {
    OpKind kind = op == "get_attr" ? OpKind::GetAttr : op == "call_module" ? OpKind::CallModule : OpKind::CallMethod;
    n = g.appendRaw(kind, name);
    define(n, at);
    c_.expect('(', "after " + op);
    n->attr = c_.string("attribute path");
    c_.expect(')', "closing " + op + "(");
    if (kind != OpKind::GetAttr) callArgs(*n);
  } else {
    auto target = parseTarget(op);
    if (!target) Cursor::failAt(op_at, target.error().message);
    n = g.appendRaw(OpKind::CallFunction, name);
    define(n, at);
    n->target = *target;
    callArgs(*n);
    if (target->kind() == Target::Kind::Aten) {
      if (auto problem = checkSchemaCall(*target->op(), n->args, n->kwargs)) Cursor::failAt(op_at, *problem);
    }
  }
  n->meta.val = std::move(v);
  nodeMeta(n->meta);
}

void GraphParser::attrLine(Graph& g, int depth) {
  Loc at = c_.loc();
  std::string name = c_.string("attribute name");
  if (g.attributes().count(name)) Cursor::failAt(at, "duplicate attribute \"" + name + "\"");
  c_.expect('=', "after the attribute name");
  Loc kind_at = c_.loc();
  std::string kind = c_.ident("attribute kind");
  Attribute a;
  if (kind == "graph") {
    a = Attribute::makeSubgraph(graphBlock(depth + 1));
  } else if (kind == "parameter" || kind == "tensor") {
    a.kind = kind == "parameter" ? Attribute::Kind::Parameter : Attribute::Kind::Tensor;
    if (c_.peek() == '$') a.tensor = tensorValue();
  } else if (kind == "treespec" || kind == "opaque") {
    a.kind = kind == "treespec" ? Attribute::Kind::TreeSpec : Attribute::Kind::Opaque;
    c_.expect('(', "after " + kind);
    a.text = c_.string(kind);
    c_.expect(')', "closing " + kind + "(");
  } else if (kind == "module") {
    a.kind = Attribute::Kind::Module;
    c_.expect('(', "after module");
    a.text = c_.string("module class");
    while (c_.tryConsume(',')) {
      std::string field = c_.ident("module field");
      c_.expect('=', "after " + field);
      if (field == "original_module") {
        if (!boolWord(c_, &a.has_original_module)) c_.fail("expected True or False");
      } else {
        a.field_types[field] = c_.string("field type");
      }
    }
    c_.expect(')', "closing module(");
  } else {
    Cursor::failAt(kind_at, "unknown attribute kind '" + kind + "'");
  }
  auto& stored = g.attributes().emplace(name, std::move(a)).first->second;
  if (stored.tensor) deferCheck(&*stored.tensor, kind_at);
}

std::unique_ptr<Graph> GraphParser::graphBlock(int depth) {
  if (depth > 16) c_.fail("subgraphs nested too deeply");
  auto g = std::make_unique<Graph>();
  Scope scope;
  struct Enter {
    Scope*& current;
    Scope* outer;
    ~Enter() { current = outer; }
  } enter{scope_, scope_};
  scope_ = &scope;
  c_.expect('{', "opening the graph");
  while (!c_.tryConsume('}')) {
    if (c_.atEnd()) c_.fail("unterminated graph block");
    if (c_.peek() == '%') {
      nodeLine(*g);
    } else if (c_.tryKeyword("return")) {
      outputLine(*g);
    } else if (c_.tryKeyword("attr")) {
      attrLine(*g, depth);
    } else {
      c_.fail("expected a node (%name = ...), return, attr or '}'");
    }
  }
  resolve(*g);
  return g;
}

}  // namespace epsmith::text
