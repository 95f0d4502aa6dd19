// JSON → IR values: the path-aware cursor, tensor metas, node values, signatures and node
// metadata (see formats/json_decode.h).
#include "formats/json_decode.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace epsmith::json_detail {
namespace {

std::string describe(const JsonValue& j) {
  switch (j.type()) {
    case JsonValue::Type::Null: return "null";
    case JsonValue::Type::Boolean: return j.boolean() ? "true" : "false";
    case JsonValue::Type::String: {
      std::string s = jsonQuoted(j.string());
      return "string " + (s.size() > 40 ? s.substr(0, 37) + "...\"" : s);
    }
    case JsonValue::Type::Integer:
    case JsonValue::Type::Unsigned:
    case JsonValue::Type::Float: return "number " + std::string(j.token());
    case JsonValue::Type::Object: return "an object";
    case JsonValue::Type::Array: return "an array";
  }
  return "a value";
}

bool isNonFiniteSpelling(const JsonValue& j) {
  if (!j.isString()) return false;
  std::string_view s = j.string();
  return s == "Infinity" || s == "-Infinity" || s == "NaN";
}

SpecArg customObjArg(const At& a) {
  a.allowOnly({"name", "class_fqn"});
  SpecArg s{SpecArg::Kind::CustomObj, a.field("name").string(), a.field("class_fqn").string(), {}};
  return s;
}

// {"arg": TensorArgument, <target_field>: str}: the shape of most signature specs.
std::pair<std::string, std::string> tensorAndTarget(const At& a, std::string_view target_field) {
  a.allowOnly({"arg", target_field});
  return {readTensorArgument(a.field("arg")), a.field(target_field).string()};
}

std::optional<std::string> optionalString(const At& a, std::string_view key) {
  auto v = a.optional(key);
  if (!v) return std::nullopt;
  return v->string();
}

InputSpec readInputSpec(const At& a) {
  auto [tag, v] = a.unionOf("InputSpec", {"user_input", "parameter", "buffer", "tensor_constant", "custom_obj", "token",
                                          "constant_input", "epsmith.spec"});
  InputSpec s;
  if (tag == "user_input") {
    v.allowOnly({"arg"});
    s.arg = readSpecArg(v.field("arg"));
  } else if (tag == "parameter" || tag == "tensor_constant") {
    bool param = tag == "parameter";
    auto [name, target] = tensorAndTarget(v, param ? "parameter_name" : "tensor_constant_name");
    s.kind = param ? InputKind::Parameter : InputKind::ConstantTensor;
    s.arg = SpecArg::tensor(name);
    s.target = target;
  } else if (tag == "buffer") {
    v.allowOnly({"arg", "buffer_name", "persistent"});
    s.kind = InputKind::Buffer;
    s.arg = SpecArg::tensor(readTensorArgument(v.field("arg")));
    s.target = v.field("buffer_name").string();
    s.persistent = v.field("persistent").boolean();
  } else if (tag == "custom_obj") {
    v.allowOnly({"arg", "custom_obj_name"});
    s.kind = InputKind::CustomObj;
    s.arg = customObjArg(v.field("arg"));
    s.target = v.field("custom_obj_name").string();
  } else if (tag == "token") {
    v.allowOnly({"arg"});
    s.kind = InputKind::Token;
    s.arg = SpecArg{SpecArg::Kind::Token, readTensorArgument(v.field("arg")), "", {}};
  } else if (tag == "constant_input") {
    v.allowOnly({"name", "value"});
    s.arg = SpecArg{SpecArg::Kind::Constant, v.field("name").string(), "", readConstantValue(v.field("value"))};
  } else {
    v.allowOnly({"kind", "arg", "target", "persistent"});
    At kind = v.field("kind");
    auto k = inputKindFromName(kind.string());
    if (!k) kind.fail("unknown input kind " + jsonQuoted(kind.string()));
    s.kind = *k;
    s.arg = readSpecArg(v.field("arg"));
    s.target = optionalString(v, "target");
    if (auto p = v.optional("persistent")) s.persistent = p->boolean();
  }
  return s;
}

OutputSpec readOutputSpec(const At& a) {
  static const std::vector<std::pair<std::string_view, std::pair<OutputKind, std::string_view>>> kTargeted{
      {"buffer_mutation", {OutputKind::BufferMutation, "buffer_name"}},
      {"gradient_to_parameter", {OutputKind::GradientToParameter, "parameter_name"}},
      {"gradient_to_user_input", {OutputKind::GradientToUserInput, "user_input_name"}},
      {"user_input_mutation", {OutputKind::UserInputMutation, "user_input_name"}},
      {"parameter_mutation", {OutputKind::ParameterMutation, "parameter_name"}},
  };
  auto [tag, v] = a.unionOf(
      "OutputSpec", {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter", "gradient_to_user_input",
                     "user_input_mutation", "token", "parameter_mutation", "epsmith.spec"});
  OutputSpec s;
  if (tag == "user_output") {
    v.allowOnly({"arg"});
    s.arg = readSpecArg(v.field("arg"));
  } else if (tag == "loss_output") {
    v.allowOnly({"arg"});
    s.kind = OutputKind::LossOutput;
    s.arg = SpecArg::tensor(readTensorArgument(v.field("arg")));
  } else if (tag == "token") {
    v.allowOnly({"arg"});
    s.kind = OutputKind::Token;
    s.arg = SpecArg{SpecArg::Kind::Token, readTensorArgument(v.field("arg")), "", {}};
  } else if (tag == "epsmith.spec") {
    v.allowOnly({"kind", "arg", "target"});
    At kind = v.field("kind");
    auto k = outputKindFromName(kind.string());
    if (!k) kind.fail("unknown output kind " + jsonQuoted(kind.string()));
    s.kind = *k;
    s.arg = readSpecArg(v.field("arg"));
    s.target = optionalString(v, "target");
  } else {
    for (const auto& [name, row] : kTargeted) {
      if (name != tag) continue;
      auto [arg, target] = tensorAndTarget(v, row.second);
      s.kind = row.first;
      s.arg = SpecArg::tensor(arg);
      s.target = target;
    }
  }
  return s;
}

std::optional<OpKind> opKindFromName(std::string_view name) {
  for (OpKind op :
       {OpKind::Placeholder, OpKind::CallFunction, OpKind::GetAttr, OpKind::CallModule, OpKind::CallMethod}) {
    if (opKindName(op) == name) return op;
  }
  return std::nullopt;
}

}  // namespace

void At::OriginRef::destroy(Origin* o) { delete o; }

At::At(const JsonValue& j, std::string path) : j_(&j), origin_(new Origin{&j, std::move(path), std::nullopt}) {}

At At::inside(const JsonValue& j, const At& outer) { return At(&j, OriginRef(new Origin{&j, "", outer})); }

namespace {

// Appends to `path` the steps from `at` down to `target`; false (path as it was) when
// `target` is not under `at`.
bool pathTo(const JsonValue& at, const JsonValue* target, std::string& path) {
  if (&at == target) return true;
  const size_t mark = path.size();
  for (size_t i = 0; i < at.size(); ++i) {
    path = at.isObject() ? keyPath(path, at[i].key()) : indexPath(path, i);
    if (pathTo(at[i], target, path)) return true;
    path.resize(mark);
  }
  return false;
}

}  // namespace

std::string At::path() const {
  std::string path = origin_->outer ? origin_->outer->path() : origin_->path;
  pathTo(*origin_->root, j_, path);
  return path;
}

JsonDocument parseJsonAt(std::string_view text, const At& where) {
  try {
    return parseJson(text, "");
  } catch (const Failure&) {
    return parseJson(text, where.path());  // fails again, now located
  }
}

void At::fail(const std::string& message) const { json_detail::fail(path(), message); }

void At::expectObject() const {
  if (!j_->isObject()) fail("expected an object, got " + describe(*j_));
}

At At::field(std::string_view key) const {
  expectObject();
  const JsonValue* v = j_->find(key);
  if (!v) fail("missing required field " + jsonQuoted(key));
  return At(v, origin_);
}

std::optional<At> At::optional(std::string_view key) const {
  expectObject();
  const JsonValue* v = j_->find(key);
  if (!v || v->isNull()) return std::nullopt;
  return At(v, origin_);
}

void At::allowOnly(std::initializer_list<std::string_view> keys) const {
  expectObject();
  for (const JsonValue& member : *j_) {
    const std::string_view key = member.key();
    if (std::none_of(keys.begin(), keys.end(), [&](std::string_view k) { return sameKey(k, key); })) {
      fail("unknown field " + jsonQuoted(key));
    }
  }
}

std::pair<std::string_view, At> At::unionOf(std::string_view what, const std::vector<std::string_view>& tags) const {
  if (!j_->isObject()) {
    fail("expected an object with one key (the " + std::string(what) + " union), got " + describe(*j_));
  }
  if (j_->size() != 1) {
    std::string keys;
    for (const JsonValue& member : *j_) keys += (keys.empty() ? "" : ", ") + std::string(member.key());
    fail("the " + std::string(what) + " union must have exactly one key, got " + std::to_string(j_->size()) +
         (keys.empty() ? "" : " (" + keys + ")"));
  }
  const JsonValue& member = (*j_)[0];
  if (std::none_of(tags.begin(), tags.end(), [&](std::string_view t) { return sameKey(t, member.key()); })) {
    fail("unknown " + std::string(what) + " tag " + jsonQuoted(member.key()));
  }
  return {member.key(), At(&member, origin_)};
}

size_t At::size() const {
  if (!j_->isArray()) fail("expected an array, got " + describe(*j_));
  return j_->size();
}

int64_t At::integer() const {
  if (j_->type() == JsonValue::Type::Integer) return j_->integer();
  if (j_->type() == JsonValue::Type::Unsigned) {
    fail("integer " + std::string(j_->token()) + " is out of the int64 range");
  }
  if (isNonFiniteSpelling(*j_)) {
    fail("non-finite number " + jsonQuoted(j_->string()) + " where an integer is expected");
  }
  fail("expected an integer, got " + describe(*j_));
}

uint64_t At::unsignedInteger() const {
  if (j_->type() == JsonValue::Type::Unsigned) return j_->unsignedInteger();
  if (j_->type() == JsonValue::Type::Integer && j_->integer() < 0) {
    fail("expected a whole number from 0 up, got " + std::string(j_->token()));
  }
  return static_cast<uint64_t>(integer());
}

double At::number() const {
  if (j_->isNumber()) return j_->number();
  if (isNonFiniteSpelling(*j_)) {
    std::string_view s = j_->string();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    return s == "Infinity" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  fail("expected a number, got " + describe(*j_));
}

bool At::boolean() const {
  if (!j_->isBoolean()) fail("expected a boolean, got " + describe(*j_));
  return j_->boolean();
}

std::string_view At::view() const {
  if (!j_->isString()) fail("expected a string, got " + describe(*j_));
  return j_->string();
}

std::string At::string() const { return std::string(view()); }

std::vector<std::string> At::strings() const {
  std::vector<std::string> out(size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i].string();
  return out;
}

std::vector<int64_t> At::integers() const {
  std::vector<int64_t> out(size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = (*this)[i].integer();
  return out;
}

std::string readTensorArgument(const At& a) {
  a.allowOnly({"name"});
  return a.field("name").string();
}

ScalarType readDtype(const At& a) {
  int64_t v = a.integer();
  auto t = scalarTypeFromInt(v);
  if (!t) a.fail("unknown dtype " + std::to_string(v));
  return *t;
}

Layout readLayout(const At& a) {
  int64_t v = a.integer();
  auto l = layoutFromInt(v);
  if (!l) a.fail("unknown layout " + std::to_string(v));
  return *l;
}

MemoryFormat readMemoryFormat(const At& a) {
  int64_t v = a.integer();
  auto m = memoryFormatFromInt(v);
  if (!m) a.fail("unknown memory format " + std::to_string(v));
  return *m;
}

Device readDevice(const At& a) {
  const JsonValue& j = a.json();
  // {"type": "cpu", "index": null}, as torch writes it.
  if (j.isObject() && j.size() == 2 && j[0].key() == "type" && j[0].isString() && j[1].key() == "index" &&
      j[1].isNull()) {
    Device d;
    d.type = std::string(j[0].string());
    return d;
  }
  a.allowOnly({"type", "index"});
  Device d;
  d.type = a.field("type").string();
  if (auto index = a.optional("index")) d.index = index->integer();
  return d;
}

SymExpr readSymExpr(const At& a) {
  a.allowOnly({"expr_str", "hint"});
  SymExpr e;
  e.expr = a.field("expr_str").string();
  if (auto hint = a.optional("hint")) {
    auto [tag, v] = hint->unionOf("SymExprHint", {"as_int", "as_bool", "as_float"});
    if (tag == "as_int") {
      e.hint = v.integer();
    } else if (tag == "as_bool") {
      e.hint = v.boolean();
    } else {
      e.hint = v.number();
    }
  }
  return e;
}

SymIntValue readSymInt(const At& a) {
  auto [tag, v] = a.unionOf("SymInt", {"as_expr", "as_int"});
  if (tag == "as_int") return SymIntValue(v.integer());
  return SymIntValue(readSymExpr(v));
}

// Note [Tensor metas in one pass]
// A program file holds a tensor meta for every tensor value and placeholder, so reading
// them is a good part of reading a file: each is read in one pass over its members in the
// order torch writes them (the common case; any other order takes the general path), with
// the SymInt unions of its sizes and strides read as plain integers where they are.
namespace {

// {"as_int": n}: the concrete SymInt, read without a cursor per level.
std::optional<int64_t> concreteSymInt(const JsonValue& j) {
  if (!j.isObject() || j.size() != 1 || j[0].key() != "as_int" || j[0].type() != JsonValue::Type::Integer) {
    return std::nullopt;
  }
  return j[0].integer();
}

void readSymInts(const At& list, SymIntList& out) {
  const size_t n = list.size();
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (auto v = concreteSymInt(list.json()[i])) {
      out.emplace_back(*v);
    } else {
      out.push_back(readSymInt(list[i]));
    }
  }
}

}  // namespace

TensorMeta readTensorMeta(const At& a) {
  static constexpr std::string_view kFields[] = {"dtype",   "sizes",          "requires_grad", "device",
                                                 "strides", "storage_offset", "layout"};
  const JsonValue& j = a.json();
  bool in_order = j.isObject() && j.size() == std::size(kFields);
  for (size_t i = 0; in_order && i < std::size(kFields); ++i) in_order = j[i].key() == kFields[i];
  if (!in_order) a.allowOnly({"dtype", "sizes", "requires_grad", "device", "strides", "storage_offset", "layout"});
  auto member = [&](size_t i) { return in_order ? a.memberAt(i) : a.field(kFields[i]); };
  TensorMeta m;
  m.dtype = readDtype(member(0));
  readSymInts(member(1), m.sizes);
  m.requires_grad = member(2).boolean();
  m.device = readDevice(member(3));
  readSymInts(member(4), m.strides);
  const At offset = member(5);
  if (auto v = concreteSymInt(offset.json())) {
    m.storage_offset = SymIntValue(*v);
  } else {
    m.storage_offset = readSymInt(offset);
  }
  m.layout = readLayout(member(6));
  return m;
}

Val readVal(const At& a) {
  auto [tag, v] =
      a.unionOf("value", {"as_missing", "as_none", "as_tensor_meta", "as_list", "as_int", "as_float", "as_bool",
                          "as_string", "as_scalar_type", "as_device", "as_layout", "as_memory_format", "as_sym_int",
                          "as_sym_float", "as_sym_bool", "as_custom_obj", "as_opaque"});
  if (tag == "as_missing") return Val(Val::Missing{});
  if (tag == "as_none") return Val(Val::None{});
  if (tag == "as_tensor_meta") return Val(readTensorMeta(v));
  if (tag == "as_list") {
    Val::List list;
    for (size_t i = 0; i < v.size(); ++i) list.push_back(readVal(v[i]));
    return Val(std::move(list));
  }
  if (tag == "as_int") return Val(v.integer());
  if (tag == "as_float") return Val(v.number());
  if (tag == "as_bool") return Val(v.boolean());
  if (tag == "as_string") return Val(v.string());
  if (tag == "as_scalar_type") return Val(readDtype(v));
  if (tag == "as_device") return Val(readDevice(v));
  if (tag == "as_layout") return Val(readLayout(v));
  if (tag == "as_memory_format") return Val(readMemoryFormat(v));
  if (tag == "as_sym_int") return Val(Val::SymInt{readSymExpr(v)});
  if (tag == "as_sym_float") return Val(Val::SymFloat{readSymExpr(v)});
  if (tag == "as_sym_bool") return Val(Val::SymBool{readSymExpr(v)});
  if (tag == "as_custom_obj") {
    v.allowOnly({"class_fqn"});
    return Val(Val::CustomObj{v.field("class_fqn").string()});
  }
  v.allowOnly({"type_name"});
  return Val(Val::Opaque{v.field("type_name").string()});
}

ConstantValue readConstantValue(const At& a) {
  auto [tag, v] = a.unionOf("ConstantValue", {"as_none", "as_int", "as_float", "as_string", "as_bool"});
  if (tag == "as_int") return v.integer();
  if (tag == "as_float") return v.number();
  if (tag == "as_string") return v.string();
  if (tag == "as_bool") return v.boolean();
  return std::monostate{};
}

SpecArg readSpecArg(const At& a) {
  using K = SpecArg::Kind;
  auto [tag, v] = a.unionOf("Argument", {"as_tensor", "as_sym_int", "as_sym_float", "as_sym_bool", "as_custom_obj",
                                         "as_none", "as_int", "as_float", "as_string", "as_bool", "epsmith.spec_arg"});
  if (tag == "as_tensor") return SpecArg::tensor(readTensorArgument(v));
  if (tag == "as_custom_obj") return customObjArg(v);
  if (tag == "as_sym_int" || tag == "as_sym_float" || tag == "as_sym_bool") {
    auto [sym_tag, name] = v.unionOf("symbolic argument", {"as_name", "as_int", "as_float", "as_bool"});
    if (sym_tag != "as_name") name.fail("a signature argument must be named");
    K kind = tag == "as_sym_int" ? K::SymInt : tag == "as_sym_float" ? K::SymFloat : K::SymBool;
    return SpecArg{kind, name.string(), "", {}};
  }
  if (tag == "epsmith.spec_arg") {
    v.allowOnly({"kind", "name", "class_fqn", "value"});
    At kind = v.field("kind");
    auto k = specArgKindFromName(kind.string());
    if (!k) kind.fail("unknown argument kind " + jsonQuoted(kind.string()));
    return SpecArg{*k, v.field("name").string(), v.field("class_fqn").string(), readConstantValue(v.field("value"))};
  }
  return SpecArg{K::Constant, "", "", readConstantValue(a)};
}

GraphSignature readSignature(const At& a) {
  a.allowOnly({"input_specs", "output_specs"});
  GraphSignature s;
  At inputs = a.field("input_specs");
  for (size_t i = 0; i < inputs.size(); ++i) s.input_specs.push_back(readInputSpec(inputs[i]));
  At outputs = a.field("output_specs");
  for (size_t i = 0; i < outputs.size(); ++i) s.output_specs.push_back(readOutputSpec(outputs[i]));
  return s;
}

MetaRead readMetadata(const At& a) {
  MetaRead r;
  auto addCustom = [&](const std::string& key, const std::string& value, const At& at) {
    if (!r.meta.custom.emplace(key, value).second) {
      at.fail("custom metadata key " + jsonQuoted(key) + " given twice");
    }
  };
  a.forEachEntry([&](const std::string& key, const At& v) {
    const std::string& text = v.string();
    auto once = [&](bool already) {
      if (already) v.fail("metadata entry given twice (torch and epsmith forms)");
    };
    if (key == kStackTrace) {
      r.meta.stack_trace = text;
    } else if (key == kModuleStack || key == kExtModuleStack) {
      once(r.meta.nn_module_stack.has_value());
      if (key == kModuleStack) {
        r.meta.nn_module_stack = decodeModuleStack(text);
        if (!r.meta.nn_module_stack) {
          v.fail("malformed nn_module_stack: expected \"key,path,type\" entries joined by ';'");
        }
      } else {
        JsonDocument j = parseJsonAt(text, v);
        At list = At::inside(j.root(), v);
        std::vector<ModuleStackEntry> stack;
        for (size_t i = 0; i < list.size(); ++i) {
          At e = list[i];
          if (e.size() != 3) e.fail("expected [key, path, type]");
          stack.push_back({e[0].string(), e[1].string(), e[2].string()});
        }
        r.meta.nn_module_stack = std::move(stack);
      }
    } else if (key == kTorchFn || key == kExtTorchFn) {
      once(r.meta.torch_fn.has_value());
      if (key == kTorchFn) {
        r.meta.torch_fn = decodeTorchFn(text);
        if (!r.meta.torch_fn) v.fail("malformed torch_fn: expected \"name;qualified_name\"");
      } else {
        JsonDocument j = parseJsonAt(text, v);
        At pair = At::inside(j.root(), v);
        if (pair.size() != 2) pair.fail("expected [name, qualified_name]");
        r.meta.torch_fn = std::make_pair(pair[0].string(), pair[1].string());
      }
    } else if (key == kExtOp) {
      r.op = opKindFromName(text);
      if (!r.op) v.fail("unknown node op " + jsonQuoted(text));
    } else if (key == kExtTarget) {
      if (text != "other" && text != "higher_order") {
        v.fail("unknown target kind " + jsonQuoted(text) + " (expected other or higher_order)");
      }
      r.target_kind = text;
    } else if (key == kExtVal) {
      JsonDocument j = parseJsonAt(text, v);
      r.val = readVal(At::inside(j.root(), v));
    } else if (key == kExtUnused) {
      JsonDocument j = parseJsonAt(text, v);
      r.unused_outputs = At::inside(j.root(), v).integers();
    } else if (key.compare(0, kExtCustom.size(), kExtCustom) == 0) {
      addCustom(key.substr(kExtCustom.size()), text, v);
    } else if (key.compare(0, kExtPrefix.size(), kExtPrefix) == 0) {
      v.fail("unknown epsmith metadata key " + jsonQuoted(key));
    } else {
      addCustom(key, text, v);
    }
  });
  return r;
}

}  // namespace epsmith::json_detail
