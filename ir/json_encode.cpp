// IR values → JSON: tensor metas, node values, signature specs and node metadata.
#include "ir/json_encode.h"

namespace epsmith::json_detail {
namespace {

JsonOut enumJson(int value, bool known, std::string_view what, const std::string& where) {
  if (!known) fail(where, "unknown " + std::string(what) + " " + std::to_string(value));
  return value;
}

// Fields a SpecArg of its kind does not use are at their defaults.
bool isClean(const SpecArg& a) {
  return (a.kind == SpecArg::Kind::CustomObj || a.class_fqn.empty()) &&
         (a.kind == SpecArg::Kind::Constant || std::holds_alternative<std::monostate>(a.value));
}

bool cleanTensor(const SpecArg& a) { return a.kind == SpecArg::Kind::Tensor && isClean(a); }

}  // namespace

std::string dumpEmbedded(const JsonOut& j) { return j.compact(); }

JsonOut dtypeJson(ScalarType t, const std::string& where) {
  return enumJson(static_cast<int>(t), scalarTypeFromInt(static_cast<int>(t)).has_value(),
                  "dtype", where);
}
JsonOut layoutJson(Layout l, const std::string& where) {
  return enumJson(static_cast<int>(l), layoutFromInt(static_cast<int>(l)).has_value(), "layout",
                  where);
}
JsonOut memoryFormatJson(MemoryFormat m, const std::string& where) {
  return enumJson(static_cast<int>(m), memoryFormatFromInt(static_cast<int>(m)).has_value(),
                  "memory format", where);
}

JsonOut deviceJson(const Device& d) {
  JsonOut o = JsonOut::object();
  o.add("type", d.type);
  o.add("index", d.index ? JsonOut(*d.index) : JsonOut(nullptr));
  return o;
}

JsonOut oneKey(std::string_view tag, JsonOut value) {
  JsonOut o = JsonOut::object();
  o.add(std::string(tag), std::move(value));
  return o;
}

JsonOut nameObject(const std::string& name) { return oneKey("name", name); }

JsonOut symExprJson(const SymExpr& e) {
  JsonOut o = JsonOut::object();
  o.add("expr_str", e.expr);
  if (!e.hint) {
    o.add("hint", nullptr);
  } else if (auto* i = std::get_if<int64_t>(&*e.hint)) {
    o.add("hint", oneKey("as_int", *i));
  } else if (auto* b = std::get_if<bool>(&*e.hint)) {
    o.add("hint", oneKey("as_bool", *b));
  } else {
    o.add("hint", oneKey("as_float", floatJson(std::get<double>(*e.hint))));
  }
  return o;
}

JsonOut symIntJson(const SymIntValue& v) {
  if (v.isConcrete()) return oneKey("as_int", v.concrete());
  return oneKey("as_expr", symExprJson(v.expr()));
}

JsonOut tensorMetaJson(const TensorMeta& m, const std::string& where) {
  JsonOut o = JsonOut::object();
  JsonOut sizes = JsonOut::array(), strides = JsonOut::array();
  for (const auto& s : m.sizes) sizes.push_back(symIntJson(s));
  for (const auto& s : m.strides) strides.push_back(symIntJson(s));
  o.add("dtype", dtypeJson(m.dtype, where));
  o.add("sizes", sizes);
  o.add("requires_grad", m.requires_grad);
  o.add("device", deviceJson(m.device));
  o.add("strides", strides);
  o.add("storage_offset", symIntJson(m.storage_offset));
  o.add("layout", layoutJson(m.layout, where));
  return o;
}

// The "epsmith.val" union (docs/json-format.md, "Values").
JsonOut valJson(const Val& v, const std::string& where) {
  return std::visit(
      [&](const auto& x) -> JsonOut {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Val::Missing>) {
          return oneKey("as_missing", true);
        } else if constexpr (std::is_same_v<X, Val::None>) {
          return oneKey("as_none", true);
        } else if constexpr (std::is_same_v<X, TensorMeta>) {
          return oneKey("as_tensor_meta", tensorMetaJson(x, where));
        } else if constexpr (std::is_same_v<X, Val::List>) {
          JsonOut list = JsonOut::array();
          for (const auto& e : x) list.push_back(valJson(e, where));
          return oneKey("as_list", std::move(list));
        } else if constexpr (std::is_same_v<X, int64_t>) {
          return oneKey("as_int", x);
        } else if constexpr (std::is_same_v<X, double>) {
          return oneKey("as_float", floatJson(x));
        } else if constexpr (std::is_same_v<X, bool>) {
          return oneKey("as_bool", x);
        } else if constexpr (std::is_same_v<X, std::string>) {
          return oneKey("as_string", x);
        } else if constexpr (std::is_same_v<X, ScalarType>) {
          return oneKey("as_scalar_type", dtypeJson(x, where));
        } else if constexpr (std::is_same_v<X, Device>) {
          return oneKey("as_device", deviceJson(x));
        } else if constexpr (std::is_same_v<X, Layout>) {
          return oneKey("as_layout", layoutJson(x, where));
        } else if constexpr (std::is_same_v<X, MemoryFormat>) {
          return oneKey("as_memory_format", memoryFormatJson(x, where));
        } else if constexpr (std::is_same_v<X, Val::SymInt>) {
          return oneKey("as_sym_int", symExprJson(x.expr));
        } else if constexpr (std::is_same_v<X, Val::SymFloat>) {
          return oneKey("as_sym_float", symExprJson(x.expr));
        } else if constexpr (std::is_same_v<X, Val::SymBool>) {
          return oneKey("as_sym_bool", symExprJson(x.expr));
        } else if constexpr (std::is_same_v<X, Val::CustomObj>) {
          return oneKey("as_custom_obj", oneKey("class_fqn", x.class_fqn));
        } else {
          static_assert(std::is_same_v<X, Val::Opaque>);
          return oneKey("as_opaque", oneKey("type_name", x.type_name));
        }
      },
      v.variant());
}

JsonOut constantValueJson(const ConstantValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return oneKey("as_int", *i);
  if (auto* f = std::get_if<double>(&v)) return oneKey("as_float", floatJson(*f));
  if (auto* s = std::get_if<std::string>(&v)) return oneKey("as_string", *s);
  if (auto* b = std::get_if<bool>(&v)) return oneKey("as_bool", *b);
  return oneKey("as_none", true);
}

// A signature argument as torch's Argument union where it has a form, else the
// "epsmith.spec_arg" extension.
JsonOut specArgJson(const SpecArg& a) {
  using K = SpecArg::Kind;
  if (isClean(a)) {
    switch (a.kind) {
      case K::Tensor: return oneKey("as_tensor", nameObject(a.name));
      case K::SymInt: return oneKey("as_sym_int", oneKey("as_name", a.name));
      case K::SymFloat: return oneKey("as_sym_float", oneKey("as_name", a.name));
      case K::SymBool: return oneKey("as_sym_bool", oneKey("as_name", a.name));
      case K::CustomObj: {
        JsonOut o = nameObject(a.name);
        o.add("class_fqn", a.class_fqn);
        return oneKey("as_custom_obj", std::move(o));
      }
      case K::Constant:
        if (a.name.empty()) return constantValueJson(a.value);
        break;
      case K::Token: break;
    }
  }
  JsonOut o = JsonOut::object();
  o.add("kind", std::string(specArgKindName(a.kind)));
  o.add("name", a.name);
  o.add("class_fqn", a.class_fqn);
  o.add("value", constantValueJson(a.value));
  return oneKey("epsmith.spec_arg", std::move(o));
}

JsonOut inputSpecJson(const InputSpec& s) {
  const bool plain = !s.persistent;
  auto with = [&](const char* tag, JsonOut arg, const char* target_field, bool with_persistent = false) {
    JsonOut o = JsonOut::object();
    o.add("arg", std::move(arg));
    if (target_field) o.add(target_field, *s.target);
    if (with_persistent) o.add("persistent", *s.persistent);
    return oneKey(tag, std::move(o));
  };
  switch (s.kind) {
    case InputKind::UserInput:
      if (!plain || s.target) break;
      if (s.arg.kind == SpecArg::Kind::Constant && !s.arg.name.empty() && isClean(s.arg)) {
        JsonOut o = JsonOut::object();
        o.add("name", s.arg.name);
        o.add("value", constantValueJson(s.arg.value));
        return oneKey("constant_input", std::move(o));
      }
      return with("user_input", specArgJson(s.arg), nullptr);
    case InputKind::Parameter:
      if (plain && s.target && cleanTensor(s.arg)) {
        return with("parameter", nameObject(s.arg.name), "parameter_name");
      }
      break;
    case InputKind::Buffer:
      if (s.persistent && s.target && cleanTensor(s.arg)) {
        return with("buffer", nameObject(s.arg.name), "buffer_name", /*with_persistent=*/true);
      }
      break;
    case InputKind::ConstantTensor:
      if (plain && s.target && cleanTensor(s.arg)) {
        return with("tensor_constant", nameObject(s.arg.name), "tensor_constant_name");
      }
      break;
    case InputKind::CustomObj:
      if (plain && s.target && s.arg.kind == SpecArg::Kind::CustomObj && isClean(s.arg)) {
        JsonOut arg = nameObject(s.arg.name);
        arg.add("class_fqn", s.arg.class_fqn);
        return with("custom_obj", std::move(arg), "custom_obj_name");
      }
      break;
    case InputKind::Token:
      if (plain && !s.target && s.arg.kind == SpecArg::Kind::Token && isClean(s.arg)) {
        return with("token", nameObject(s.arg.name), nullptr);
      }
      break;
  }
  JsonOut o = JsonOut::object();
  o.add("kind", std::string(inputKindName(s.kind)));
  o.add("arg", specArgJson(s.arg));
  o.add("target", s.target ? JsonOut(*s.target) : JsonOut(nullptr));
  o.add("persistent", s.persistent ? JsonOut(*s.persistent) : JsonOut(nullptr));
  return oneKey("epsmith.spec", std::move(o));
}

JsonOut outputSpecJson(const OutputSpec& s) {
  const char* target_field = nullptr;
  const char* tag = nullptr;
  switch (s.kind) {
    case OutputKind::UserOutput:
      if (!s.target) return oneKey("user_output", oneKey("arg", specArgJson(s.arg)));
      break;
    case OutputKind::LossOutput: tag = "loss_output"; break;
    case OutputKind::BufferMutation: tag = "buffer_mutation"; target_field = "buffer_name"; break;
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
        return oneKey("token", oneKey("arg", nameObject(s.arg.name)));
      }
      break;
  }
  if (tag && cleanTensor(s.arg) && (target_field != nullptr) == s.target.has_value()) {
    JsonOut o = JsonOut::object();
    o.add("arg", nameObject(s.arg.name));
    if (target_field) o.add(target_field, *s.target);
    return oneKey(tag, std::move(o));
  }
  JsonOut o = JsonOut::object();
  o.add("kind", std::string(outputKindName(s.kind)));
  o.add("arg", specArgJson(s.arg));
  o.add("target", s.target ? JsonOut(*s.target) : JsonOut(nullptr));
  return oneKey("epsmith.spec", std::move(o));
}

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b) {
  return a.stack_trace == b.stack_trace && a.nn_module_stack == b.nn_module_stack &&
         a.torch_fn == b.torch_fn && a.custom == b.custom;
}

JsonOut metaJson(const NodeMeta& m, bool val_written, const std::string& where) {
  JsonOut md = JsonOut::object();
  if (m.stack_trace) md.add(kStackTrace, *m.stack_trace);
  if (m.nn_module_stack) {
    std::string text = encodeModuleStack(*m.nn_module_stack);
    if (decodeModuleStack(text) == m.nn_module_stack) {
      md.add(kModuleStack, text);
    } else {
      JsonOut list = JsonOut::array();
      for (const auto& e : *m.nn_module_stack) list.push_back(std::vector<std::string>{e.key, e.path, e.type});
      md.add(kExtModuleStack, dumpEmbedded(list));
    }
  }
  if (m.torch_fn) {
    std::string text = encodeTorchFn(*m.torch_fn);
    if (decodeTorchFn(text) == m.torch_fn) {
      md.add(kTorchFn, text);
    } else {
      md.add(kExtTorchFn,
             dumpEmbedded(std::vector<std::string>{m.torch_fn->first, m.torch_fn->second}));
    }
  }
  for (const auto& [key, value] : m.custom) {
    md.add(isReservedMetaKey(key) ? std::string(kExtCustom) + key : key, value);
  }
  if (!val_written) md.add(kExtVal, dumpEmbedded(valJson(m.val, where)));
  return md;
}

}  // namespace epsmith::json_detail
