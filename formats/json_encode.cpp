// IR values → JSON: tensor metas, node values, signature specs and node metadata.
#include "formats/json_encode.h"

namespace epsmith::json_detail {
namespace {

void enumJson(JsonWriter& w, int value, bool known, std::string_view what, const std::string& where) {
  if (!known) fail(where, "unknown " + std::string(what) + " " + std::to_string(value));
  w.integer(value);
}

// Fields a SpecArg of its kind does not use are at their defaults.
bool isClean(const SpecArg& a) {
  return (a.kind == SpecArg::Kind::CustomObj || a.class_fqn.empty()) &&
         (a.kind == SpecArg::Kind::Constant || std::holds_alternative<std::monostate>(a.value));
}

bool cleanTensor(const SpecArg& a) { return a.kind == SpecArg::Kind::Tensor && isClean(a); }

// The "epsmith.spec" extension, for a spec torch's unions have no form for: its kind,
// argument and target, and (input specs only) `persistent`.
void genericSpec(JsonWriter& w, std::string_view kind, const SpecArg& arg, const std::optional<std::string>& target,
                 const std::optional<bool>* persistent) {
  oneKey(w, "epsmith.spec", [&] {
    w.beginObject();
    w.key("kind").string(kind);
    w.key("arg");
    specArgJson(w, arg);
    w.key("target").stringOrNull(target);
    if (persistent) w.key("persistent").booleanOrNull(*persistent);
    w.endObject();
  });
}

// {"as_name": name} under `tag`: a symbolic value named in the graph.
void namedSym(JsonWriter& w, const char* tag, const std::string& name) {
  oneKey(w, tag, [&] { oneKey(w, "as_name", [&] { w.string(name); }); });
}

// {"name": name, "class_fqn": fqn}: CustomObjArgument.
void customObjArgument(JsonWriter& w, const std::string& name, const std::string& class_fqn) {
  w.beginObject();
  w.key("name").string(name);
  w.key("class_fqn").string(class_fqn);
  w.endObject();
}

}  // namespace

void dtypeJson(JsonWriter& w, ScalarType t, const std::string& where) {
  enumJson(w, static_cast<int>(t), scalarTypeFromInt(static_cast<int>(t)).has_value(), "dtype", where);
}
void layoutJson(JsonWriter& w, Layout l, const std::string& where) {
  enumJson(w, static_cast<int>(l), layoutFromInt(static_cast<int>(l)).has_value(), "layout", where);
}
void memoryFormatJson(JsonWriter& w, MemoryFormat m, const std::string& where) {
  enumJson(w, static_cast<int>(m), memoryFormatFromInt(static_cast<int>(m)).has_value(), "memory format", where);
}

void deviceJson(JsonWriter& w, const Device& d) {
  w.beginObject();
  w.key("type").string(d.type);
  w.key("index").integerOrNull(d.index);
  w.endObject();
}

void nameObject(JsonWriter& w, const std::string& name) {
  w.beginObject();
  w.key("name").string(name);
  w.endObject();
}

void symExprJson(JsonWriter& w, const SymExpr& e) {
  w.beginObject();
  w.key("expr_str").string(e.expr);
  w.key("hint");
  if (!e.hint) {
    w.null();
  } else if (auto* i = std::get_if<int64_t>(&*e.hint)) {
    oneKey(w, "as_int", [&] { w.integer(*i); });
  } else if (auto* b = std::get_if<bool>(&*e.hint)) {
    oneKey(w, "as_bool", [&] { w.boolean(*b); });
  } else {
    oneKey(w, "as_float", [&] { floatJson(w, std::get<double>(*e.hint)); });
  }
  w.endObject();
}

void symIntJson(JsonWriter& w, const SymIntValue& v) {
  if (v.isConcrete()) return oneKey(w, "as_int", [&] { w.integer(v.concrete()); });
  oneKey(w, "as_expr", [&] { symExprJson(w, v.expr()); });
}

void tensorMetaJson(JsonWriter& w, const TensorMeta& m, const std::string& where) {
  w.beginObject();
  w.key("dtype");
  dtypeJson(w, m.dtype, where);
  w.key("sizes").beginArray();
  for (const auto& s : m.sizes) symIntJson(w, s);
  w.endArray();
  w.key("requires_grad").boolean(m.requires_grad);
  w.key("device");
  deviceJson(w, m.device);
  w.key("strides").beginArray();
  for (const auto& s : m.strides) symIntJson(w, s);
  w.endArray();
  w.key("storage_offset");
  symIntJson(w, m.storage_offset);
  w.key("layout");
  layoutJson(w, m.layout, where);
  w.endObject();
}

// The "epsmith.val" union (docs/json-format.md, "Values").
void valJson(JsonWriter& w, const Val& v, const std::string& where) {
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Val::Missing>) {
          oneKey(w, "as_missing", [&] { w.boolean(true); });
        } else if constexpr (std::is_same_v<X, Val::None>) {
          oneKey(w, "as_none", [&] { w.boolean(true); });
        } else if constexpr (std::is_same_v<X, TensorMeta>) {
          oneKey(w, "as_tensor_meta", [&] { tensorMetaJson(w, x, where); });
        } else if constexpr (std::is_same_v<X, Val::List>) {
          oneKey(w, "as_list", [&] {
            w.beginArray();
            for (const auto& e : x) valJson(w, e, where);
            w.endArray();
          });
        } else if constexpr (std::is_same_v<X, int64_t>) {
          oneKey(w, "as_int", [&] { w.integer(x); });
        } else if constexpr (std::is_same_v<X, double>) {
          oneKey(w, "as_float", [&] { floatJson(w, x); });
        } else if constexpr (std::is_same_v<X, bool>) {
          oneKey(w, "as_bool", [&] { w.boolean(x); });
        } else if constexpr (std::is_same_v<X, std::string>) {
          oneKey(w, "as_string", [&] { w.string(x); });
        } else if constexpr (std::is_same_v<X, ScalarType>) {
          oneKey(w, "as_scalar_type", [&] { dtypeJson(w, x, where); });
        } else if constexpr (std::is_same_v<X, Device>) {
          oneKey(w, "as_device", [&] { deviceJson(w, x); });
        } else if constexpr (std::is_same_v<X, Layout>) {
          oneKey(w, "as_layout", [&] { layoutJson(w, x, where); });
        } else if constexpr (std::is_same_v<X, MemoryFormat>) {
          oneKey(w, "as_memory_format", [&] { memoryFormatJson(w, x, where); });
        } else if constexpr (std::is_same_v<X, Val::SymInt>) {
          oneKey(w, "as_sym_int", [&] { symExprJson(w, x.expr); });
        } else if constexpr (std::is_same_v<X, Val::SymFloat>) {
          oneKey(w, "as_sym_float", [&] { symExprJson(w, x.expr); });
        } else if constexpr (std::is_same_v<X, Val::SymBool>) {
          oneKey(w, "as_sym_bool", [&] { symExprJson(w, x.expr); });
        } else if constexpr (std::is_same_v<X, Val::CustomObj>) {
          oneKey(w, "as_custom_obj", [&] { oneKey(w, "class_fqn", [&] { w.string(x.class_fqn); }); });
        } else {
          static_assert(std::is_same_v<X, Val::Opaque>);
          oneKey(w, "as_opaque", [&] { oneKey(w, "type_name", [&] { w.string(x.type_name); }); });
        }
      },
      v.variant());
}

void constantValueJson(JsonWriter& w, const ConstantValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return oneKey(w, "as_int", [&] { w.integer(*i); });
  if (auto* f = std::get_if<double>(&v)) return oneKey(w, "as_float", [&] { floatJson(w, *f); });
  if (auto* s = std::get_if<std::string>(&v)) return oneKey(w, "as_string", [&] { w.string(*s); });
  if (auto* b = std::get_if<bool>(&v)) return oneKey(w, "as_bool", [&] { w.boolean(*b); });
  oneKey(w, "as_none", [&] { w.boolean(true); });
}

// A signature argument as torch's Argument union where it has a form, else the
// "epsmith.spec_arg" extension.
void specArgJson(JsonWriter& w, const SpecArg& a) {
  using K = SpecArg::Kind;
  if (isClean(a)) {
    switch (a.kind) {
      case K::Tensor: return oneKey(w, "as_tensor", [&] { nameObject(w, a.name); });
      case K::SymInt: return namedSym(w, "as_sym_int", a.name);
      case K::SymFloat: return namedSym(w, "as_sym_float", a.name);
      case K::SymBool: return namedSym(w, "as_sym_bool", a.name);
      case K::CustomObj: return oneKey(w, "as_custom_obj", [&] { customObjArgument(w, a.name, a.class_fqn); });
      case K::Constant:
        if (a.name.empty()) return constantValueJson(w, a.value);
        break;
      case K::Token: break;
    }
  }
  oneKey(w, "epsmith.spec_arg", [&] {
    w.beginObject();
    w.key("kind").string(specArgKindName(a.kind));
    w.key("name").string(a.name);
    w.key("class_fqn").string(a.class_fqn);
    w.key("value");
    constantValueJson(w, a.value);
    w.endObject();
  });
}

void inputSpecJson(JsonWriter& w, const InputSpec& s) {
  const bool plain = !s.persistent;
  // {tag: {"arg": ..., target_field: target, "persistent": ...}}, the arg written by `arg()`.
  auto with = [&](const char* tag, auto&& arg, const char* target_field, bool with_persistent = false) {
    oneKey(w, tag, [&] {
      w.beginObject();
      w.key("arg");
      arg();
      if (target_field) w.key(target_field).string(*s.target);
      if (with_persistent) w.key("persistent").boolean(*s.persistent);
      w.endObject();
    });
  };
  auto name = [&] { nameObject(w, s.arg.name); };
  switch (s.kind) {
    case InputKind::UserInput:
      if (!plain || s.target) break;
      if (s.arg.kind == SpecArg::Kind::Constant && !s.arg.name.empty() && isClean(s.arg)) {
        return oneKey(w, "constant_input", [&] {
          w.beginObject();
          w.key("name").string(s.arg.name);
          w.key("value");
          constantValueJson(w, s.arg.value);
          w.endObject();
        });
      }
      return with(
          "user_input", [&] { specArgJson(w, s.arg); }, nullptr);
    case InputKind::Parameter:
      if (plain && s.target && cleanTensor(s.arg)) return with("parameter", name, "parameter_name");
      break;
    case InputKind::Buffer:
      if (s.persistent && s.target && cleanTensor(s.arg)) {
        return with("buffer", name, "buffer_name", /*with_persistent=*/true);
      }
      break;
    case InputKind::ConstantTensor:
      if (plain && s.target && cleanTensor(s.arg)) return with("tensor_constant", name, "tensor_constant_name");
      break;
    case InputKind::CustomObj:
      if (plain && s.target && s.arg.kind == SpecArg::Kind::CustomObj && isClean(s.arg)) {
        return with(
            "custom_obj", [&] { customObjArgument(w, s.arg.name, s.arg.class_fqn); }, "custom_obj_name");
      }
      break;
    case InputKind::Token:
      if (plain && !s.target && s.arg.kind == SpecArg::Kind::Token && isClean(s.arg)) {
        return with("token", name, nullptr);
      }
      break;
  }
  genericSpec(w, inputKindName(s.kind), s.arg, s.target, &s.persistent);
}

void outputSpecJson(JsonWriter& w, const OutputSpec& s) {
  const char* target_field = nullptr;
  const char* tag = nullptr;
  switch (s.kind) {
    case OutputKind::UserOutput:
      if (!s.target) {
        return oneKey(w, "user_output", [&] { oneKey(w, "arg", [&] { specArgJson(w, s.arg); }); });
      }
      break;
    case OutputKind::LossOutput: tag = "loss_output"; break;
    case OutputKind::BufferMutation:
      tag = "buffer_mutation";
      target_field = "buffer_name";
      break;
    case OutputKind::ParameterMutation:
      tag = "parameter_mutation";
      target_field = "parameter_name";
      break;
    case OutputKind::GradientToParameter:
      tag = "gradient_to_parameter";
      target_field = "parameter_name";
      break;
    case OutputKind::GradientToUserInput:
      tag = "gradient_to_user_input";
      target_field = "user_input_name";
      break;
    case OutputKind::UserInputMutation:
      tag = "user_input_mutation";
      target_field = "user_input_name";
      break;
    case OutputKind::Token:
      if (!s.target && s.arg.kind == SpecArg::Kind::Token && isClean(s.arg)) {
        return oneKey(w, "token", [&] { oneKey(w, "arg", [&] { nameObject(w, s.arg.name); }); });
      }
      break;
  }
  if (tag && cleanTensor(s.arg) && (target_field != nullptr) == s.target.has_value()) {
    return oneKey(w, tag, [&] {
      w.beginObject();
      w.key("arg");
      nameObject(w, s.arg.name);
      if (target_field) w.key(target_field).string(*s.target);
      w.endObject();
    });
  }
  genericSpec(w, outputKindName(s.kind), s.arg, s.target, /*persistent=*/nullptr);
}

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b) {
  return a.stack_trace == b.stack_trace && a.nn_module_stack == b.nn_module_stack && a.torch_fn == b.torch_fn &&
         a.custom == b.custom;
}

bool metaIsEmpty(const NodeMeta& m, bool val_written) {
  return !m.stack_trace && !m.nn_module_stack && !m.torch_fn && m.custom.empty() && val_written;
}

void beginMetaJson(JsonWriter& w, const NodeMeta& m, bool val_written, const std::string& where) {
  w.beginObject();
  if (m.stack_trace) w.key(kStackTrace).string(*m.stack_trace);
  if (m.nn_module_stack) {
    std::string text = encodeModuleStack(*m.nn_module_stack);
    if (decodeModuleStack(text) == m.nn_module_stack) {
      w.key(kModuleStack).string(text);
    } else {
      JsonWriter list;
      list.beginArray();
      for (const auto& e : *m.nn_module_stack) list.strings({e.key, e.path, e.type});
      list.endArray();
      w.key(kExtModuleStack).string(list.compact());
    }
  }
  if (m.torch_fn) {
    std::string text = encodeTorchFn(*m.torch_fn);
    if (decodeTorchFn(text) == m.torch_fn) {
      w.key(kTorchFn).string(text);
    } else {
      JsonWriter pair;
      pair.strings({m.torch_fn->first, m.torch_fn->second});
      w.key(kExtTorchFn).string(pair.compact());
    }
  }
  for (const auto& [key, value] : m.custom) {
    w.stringMember(isReservedMetaKey(key) ? std::string(kExtCustom) + key : key, value);
  }
  if (!val_written) {
    JsonWriter val;
    valJson(val, m.val, where);
    w.key(kExtVal).string(val.compact());
  }
}

}  // namespace epsmith::json_detail
