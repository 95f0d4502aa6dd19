// IR values → JSON: tensor metas, node values, signature specs and node metadata.
#include "ir/json_encode.h"

namespace epsmith::json_detail {
namespace {

OJson enumJson(int value, bool known, std::string_view what, const std::string& where) {
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

std::string dumpEmbedded(const OJson& j, const std::string& where) {
  try {
    return j.dump();
  } catch (const OJson::exception&) {
    fail(where, "a string in this value is not valid UTF-8");
  }
}

OJson dtypeJson(ScalarType t, const std::string& where) {
  return enumJson(static_cast<int>(t), scalarTypeFromInt(static_cast<int>(t)).has_value(),
                  "dtype", where);
}
OJson layoutJson(Layout l, const std::string& where) {
  return enumJson(static_cast<int>(l), layoutFromInt(static_cast<int>(l)).has_value(), "layout",
                  where);
}
OJson memoryFormatJson(MemoryFormat m, const std::string& where) {
  return enumJson(static_cast<int>(m), memoryFormatFromInt(static_cast<int>(m)).has_value(),
                  "memory format", where);
}

OJson deviceJson(const Device& d) {
  OJson o = objectWithRoom(2);
  o["type"] = d.type;
  o["index"] = d.index ? OJson(*d.index) : OJson(nullptr);
  return o;
}

OJson oneKey(std::string_view tag, OJson value) {
  OJson o = objectWithRoom(1);
  o[std::string(tag)] = std::move(value);
  return o;
}

OJson nameObject(const std::string& name) { return oneKey("name", name); }

OJson symExprJson(const SymExpr& e) {
  OJson o = objectWithRoom(8);
  o["expr_str"] = e.expr;
  if (!e.hint) {
    o["hint"] = nullptr;
  } else if (auto* i = std::get_if<int64_t>(&*e.hint)) {
    o["hint"] = oneKey("as_int", *i);
  } else if (auto* b = std::get_if<bool>(&*e.hint)) {
    o["hint"] = oneKey("as_bool", *b);
  } else {
    o["hint"] = oneKey("as_float", floatJson(std::get<double>(*e.hint)));
  }
  return o;
}

OJson symIntJson(const SymIntValue& v) {
  if (v.isConcrete()) return oneKey("as_int", v.concrete());
  return oneKey("as_expr", symExprJson(v.expr()));
}

OJson tensorMetaJson(const TensorMeta& m, const std::string& where) {
  OJson o = objectWithRoom(8);
  o["dtype"] = dtypeJson(m.dtype, where);
  o["sizes"] = OJson::array();
  for (const auto& s : m.sizes) o["sizes"].push_back(symIntJson(s));
  o["requires_grad"] = m.requires_grad;
  o["device"] = deviceJson(m.device);
  o["strides"] = OJson::array();
  for (const auto& s : m.strides) o["strides"].push_back(symIntJson(s));
  o["storage_offset"] = symIntJson(m.storage_offset);
  o["layout"] = layoutJson(m.layout, where);
  return o;
}

// The "epsmith.val" union (docs/json-format.md, "Values").
OJson valJson(const Val& v, const std::string& where) {
  return std::visit(
      [&](const auto& x) -> OJson {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Val::Missing>) {
          return oneKey("as_missing", true);
        } else if constexpr (std::is_same_v<X, Val::None>) {
          return oneKey("as_none", true);
        } else if constexpr (std::is_same_v<X, TensorMeta>) {
          return oneKey("as_tensor_meta", tensorMetaJson(x, where));
        } else if constexpr (std::is_same_v<X, Val::List>) {
          OJson list = OJson::array();
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

OJson constantValueJson(const ConstantValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return oneKey("as_int", *i);
  if (auto* f = std::get_if<double>(&v)) return oneKey("as_float", floatJson(*f));
  if (auto* s = std::get_if<std::string>(&v)) return oneKey("as_string", *s);
  if (auto* b = std::get_if<bool>(&v)) return oneKey("as_bool", *b);
  return oneKey("as_none", true);
}

// A signature argument as torch's Argument union where it has a form, else the
// "epsmith.spec_arg" extension.
OJson specArgJson(const SpecArg& a) {
  using K = SpecArg::Kind;
  if (isClean(a)) {
    switch (a.kind) {
      case K::Tensor: return oneKey("as_tensor", nameObject(a.name));
      case K::SymInt: return oneKey("as_sym_int", oneKey("as_name", a.name));
      case K::SymFloat: return oneKey("as_sym_float", oneKey("as_name", a.name));
      case K::SymBool: return oneKey("as_sym_bool", oneKey("as_name", a.name));
      case K::CustomObj: {
        OJson o = nameObject(a.name);
        o["class_fqn"] = a.class_fqn;
        return oneKey("as_custom_obj", std::move(o));
      }
      case K::Constant:
        if (a.name.empty()) return constantValueJson(a.value);
        break;
      case K::Token: break;
    }
  }
  OJson o = objectWithRoom(8);
  o["kind"] = std::string(specArgKindName(a.kind));
  o["name"] = a.name;
  o["class_fqn"] = a.class_fqn;
  o["value"] = constantValueJson(a.value);
  return oneKey("epsmith.spec_arg", std::move(o));
}

OJson inputSpecJson(const InputSpec& s) {
  const bool plain = !s.persistent;
  auto with = [&](const char* tag, OJson arg, const char* target_field) {
    OJson o = objectWithRoom(8);
    o["arg"] = std::move(arg);
    if (target_field) o[target_field] = *s.target;
    return oneKey(tag, std::move(o));
  };
  switch (s.kind) {
    case InputKind::UserInput:
      if (!plain || s.target) break;
      if (s.arg.kind == SpecArg::Kind::Constant && !s.arg.name.empty() && isClean(s.arg)) {
        OJson o = objectWithRoom(8);
        o["name"] = s.arg.name;
        o["value"] = constantValueJson(s.arg.value);
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
        OJson o = with("buffer", nameObject(s.arg.name), "buffer_name");
        o["buffer"]["persistent"] = *s.persistent;
        return o;
      }
      break;
    case InputKind::ConstantTensor:
      if (plain && s.target && cleanTensor(s.arg)) {
        return with("tensor_constant", nameObject(s.arg.name), "tensor_constant_name");
      }
      break;
    case InputKind::CustomObj:
      if (plain && s.target && s.arg.kind == SpecArg::Kind::CustomObj && isClean(s.arg)) {
        OJson arg = nameObject(s.arg.name);
        arg["class_fqn"] = s.arg.class_fqn;
        return with("custom_obj", std::move(arg), "custom_obj_name");
      }
      break;
    case InputKind::Token:
      if (plain && !s.target && s.arg.kind == SpecArg::Kind::Token && isClean(s.arg)) {
        return with("token", nameObject(s.arg.name), nullptr);
      }
      break;
  }
  OJson o = objectWithRoom(8);
  o["kind"] = std::string(inputKindName(s.kind));
  o["arg"] = specArgJson(s.arg);
  o["target"] = s.target ? OJson(*s.target) : OJson(nullptr);
  o["persistent"] = s.persistent ? OJson(*s.persistent) : OJson(nullptr);
  return oneKey("epsmith.spec", std::move(o));
}

OJson outputSpecJson(const OutputSpec& s) {
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
    OJson o = objectWithRoom(8);
    o["arg"] = nameObject(s.arg.name);
    if (target_field) o[target_field] = *s.target;
    return oneKey(tag, std::move(o));
  }
  OJson o = objectWithRoom(8);
  o["kind"] = std::string(outputKindName(s.kind));
  o["arg"] = specArgJson(s.arg);
  o["target"] = s.target ? OJson(*s.target) : OJson(nullptr);
  return oneKey("epsmith.spec", std::move(o));
}

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b) {
  return a.stack_trace == b.stack_trace && a.nn_module_stack == b.nn_module_stack &&
         a.torch_fn == b.torch_fn && a.custom == b.custom;
}

OJson metaJson(const NodeMeta& m, bool val_written, const std::string& where) {
  OJson md = objectWithRoom(8);
  if (m.stack_trace) md[std::string(kStackTrace)] = *m.stack_trace;
  if (m.nn_module_stack) {
    std::string text = encodeModuleStack(*m.nn_module_stack);
    if (decodeModuleStack(text) == m.nn_module_stack) {
      md[std::string(kModuleStack)] = text;
    } else {
      OJson list = OJson::array();
      for (const auto& e : *m.nn_module_stack) list.push_back({e.key, e.path, e.type});
      md[std::string(kExtModuleStack)] = dumpEmbedded(list, where);
    }
  }
  if (m.torch_fn) {
    std::string text = encodeTorchFn(*m.torch_fn);
    if (decodeTorchFn(text) == m.torch_fn) {
      md[std::string(kTorchFn)] = text;
    } else {
      md[std::string(kExtTorchFn)] =
          dumpEmbedded(OJson::array({m.torch_fn->first, m.torch_fn->second}), where);
    }
  }
  for (const auto& [key, value] : m.custom) {
    md[isReservedMetaKey(key) ? std::string(kExtCustom) + key : key] = value;
  }
  if (!val_written) md[std::string(kExtVal)] = dumpEmbedded(valJson(m.val, where), where);
  return md;
}

}  // namespace epsmith::json_detail
