// Target spellings: the builtin and torch-function tables of verifier.py, and parsing of
// every accepted target name.
#include "ir/target.h"

#include <array>
#include <cctype>

#include "ir/op_registry.h"

namespace epsmith {
namespace {

struct BuiltinRow {
  BuiltinOp op;
  std::string_view text;
  std::string_view export_name;
  std::vector<std::string_view> params;
};

const std::array<BuiltinRow, kNumBuiltinOps>& builtins() {
  static const std::array<BuiltinRow, kNumBuiltinOps> rows{{
      {BuiltinOp::GetItem, "operator.getitem", "_operator.getitem", {"a", "b"}},
      {BuiltinOp::Add, "operator.add", "_operator.add", {"a", "b"}},
      {BuiltinOp::Mul, "operator.mul", "_operator.mul", {"a", "b"}},
      {BuiltinOp::Sub, "operator.sub", "_operator.sub", {"a", "b"}},
      {BuiltinOp::TrueDiv, "operator.truediv", "_operator.truediv", {"a", "b"}},
      {BuiltinOp::Ge, "operator.ge", "_operator.ge", {"a", "b"}},
      {BuiltinOp::Le, "operator.le", "_operator.le", {"a", "b"}},
      {BuiltinOp::Gt, "operator.gt", "_operator.gt", {"a", "b"}},
      {BuiltinOp::Lt, "operator.lt", "_operator.lt", {"a", "b"}},
      {BuiltinOp::Eq, "operator.eq", "_operator.eq", {"a", "b"}},
      {BuiltinOp::Ne, "operator.ne", "_operator.ne", {"a", "b"}},
      {BuiltinOp::FloorDiv, "operator.floordiv", "_operator.floordiv", {"a", "b"}},
      {BuiltinOp::Mod, "operator.mod", "_operator.mod", {"a", "b"}},
      {BuiltinOp::And, "operator.and_", "_operator.and_", {"a", "b"}},
      {BuiltinOp::Or, "operator.or_", "_operator.or_", {"a", "b"}},
      {BuiltinOp::Not, "operator.not_", "_operator.not_", {"a"}},
      {BuiltinOp::Pow, "operator.pow", "_operator.pow", {"a", "b"}},
      {BuiltinOp::Neg, "operator.neg", "_operator.neg", {"a"}},
      {BuiltinOp::Abs, "operator.abs", "_operator.abs", {"a"}},
      {BuiltinOp::LShift, "operator.lshift", "_operator.lshift", {"a", "b"}},
      {BuiltinOp::RShift, "operator.rshift", "_operator.rshift", {"a", "b"}},
      {BuiltinOp::Ceil, "math.ceil", "math.ceil", {"x"}},
      {BuiltinOp::Floor, "math.floor", "math.floor", {"x"}},
      {BuiltinOp::Trunc, "math.trunc", "math.trunc", {"x"}},
      {BuiltinOp::Round, "round", "builtins.round", {"number", "ndigits"}},
  }};
  return rows;
}

constexpr std::array<std::string_view, kNumTorchFunctions> kTorchFunctions{{
    "torch.autograd.grad_mode.set_grad_enabled",
    "torch.sym_int",
    "torch.sym_float",
    "torch.sym_ite",
    "torch.sym_max",
    "torch.sym_min",
    "torch.sym_not",
    "torch.sym_sqrt",
    "torch.sym_sum",
    "torch._C._set_grad_enabled",
    "torch.amp.autocast_mode._enter_autocast",
    "torch.amp.autocast_mode._exit_autocast",
    "torch.fx.experimental.symbolic_shapes.cast_symbool_to_symint_guardless",
}};

// [A-Za-z_][A-Za-z0-9_]*, as the "C" locale's isalnum has it.
bool isIdentifier(std::string_view s) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !letter(s[0])) return false;
  for (char c : s) {
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// "a.b.c" with every part an identifier.
bool isDottedPath(std::string_view s) {
  size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    if (!isIdentifier(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::optional<Target> resolveAten(std::string_view ns_name, std::string_view overload,
                                  std::string* error) {
  if (const OpInfo* op = findOp(ns_name, overload)) return Target::aten(op);
  std::string known;
  for (const OpInfo* op : allOps()) {
    if (op->qualified_name == ns_name) {
      known += known.empty() ? "" : ", ";
      known += op->overload.empty() ? "default" : op->overload;
    }
  }
  if (known.empty()) {
    *error = "unknown operator " + std::string(ns_name);
  } else {
    *error = "unknown overload '" + std::string(overload.empty() ? "default" : overload) +
             "' of " + std::string(ns_name) + " (known: " + known + ")";
  }
  return std::nullopt;
}

}  // namespace

Target Target::aten(const OpInfo* op) {
  Target t;
  t.kind_ = Kind::Aten;
  t.op_ = op;
  return t;
}

Target Target::builtin(BuiltinOp op) {
  Target t;
  t.kind_ = Kind::Builtin;
  t.builtin_ = op;
  return t;
}

Target Target::torchFunction(TorchFunction fn) {
  Target t;
  t.kind_ = Kind::TorchFunction;
  t.torch_fn_ = fn;
  return t;
}

Target Target::higherOrder(std::string name) {
  Target t;
  t.kind_ = Kind::HigherOrder;
  t.name_ = std::move(name);
  return t;
}

Target Target::other(std::string python_path) {
  Target t;
  t.kind_ = Kind::Other;
  t.name_ = std::move(python_path);
  return t;
}

std::optional<Target> Target::parse(std::string_view text, std::string* error) {
  if (const OpInfo* op = findResolvedOp(text)) return aten(op);
  std::string ignored;
  if (!error) error = &ignored;
  // aten::add.Tensor, aten::relu
  if (auto sep = text.find("::"); sep != std::string_view::npos) {
    auto dot = text.find('.', sep + 2);
    auto ns_name = text.substr(0, dot);
    auto overload = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    if (!isIdentifier(text.substr(0, sep)) || !isIdentifier(ns_name.substr(sep + 2)) ||
        (dot != std::string_view::npos && !isIdentifier(overload))) {
      *error = "malformed operator name '" + std::string(text) + "'";
      return std::nullopt;
    }
    return resolveAten(ns_name, overload, error);
  }
  if (!isDottedPath(text)) {
    *error = "malformed target '" + std::string(text) + "'";
    return std::nullopt;
  }
  // torch.ops.<ns>.<name>.<overload>, torch.ops.higher_order.<name>
  constexpr std::string_view kOps = "torch.ops.";
  if (text.substr(0, kOps.size()) == kOps) {
    auto rest = text.substr(kOps.size());
    auto dot1 = rest.find('.');
    if (dot1 == std::string_view::npos) {
      *error = "malformed operator name '" + std::string(text) + "'";
      return std::nullopt;
    }
    auto ns = rest.substr(0, dot1);
    auto after = rest.substr(dot1 + 1);
    if (ns == "higher_order") return higherOrder(std::string(after));
    auto dot2 = after.find('.');
    if (dot2 == std::string_view::npos || after.find('.', dot2 + 1) != std::string_view::npos) {
      *error = "operator '" + std::string(text) + "' must be torch.ops.<namespace>.<name>.<overload>";
      return std::nullopt;
    }
    return resolveAten(std::string(ns) + "::" + std::string(after.substr(0, dot2)),
                       after.substr(dot2 + 1), error);
  }
  constexpr std::string_view kHop = "higher_order.";
  if (text.substr(0, kHop.size()) == kHop) return higherOrder(std::string(text.substr(kHop.size())));
  for (const auto& row : builtins()) {
    if (row.text == text || row.export_name == text) return builtin(row.op);
  }
  for (int i = 0; i < kNumTorchFunctions; ++i) {
    if (kTorchFunctions[i] == text) return torchFunction(static_cast<TorchFunction>(i));
  }
  return other(std::string(text));
}

std::string Target::textName() const {
  switch (kind_) {
    case Kind::None: return "<none>";
    case Kind::Aten: return op_->name();
    case Kind::Builtin: return std::string(builtinTextName(builtin_));
    case Kind::TorchFunction: return std::string(torchFunctionName(torch_fn_));
    case Kind::HigherOrder: return "higher_order." + name_;
    case Kind::Other: return name_;
  }
  return "<none>";
}

std::string Target::exportName() const {
  switch (kind_) {
    case Kind::Aten: return op_->exportName();
    case Kind::Builtin: return std::string(builtinExportName(builtin_));
    case Kind::HigherOrder: return "torch.ops.higher_order." + name_;
    default: return textName();
  }
}

const std::vector<std::string_view>& Target::builtinParamNames(BuiltinOp op) {
  return builtins()[static_cast<int>(op)].params;
}

std::string_view builtinTextName(BuiltinOp op) { return builtins()[static_cast<int>(op)].text; }
std::string_view builtinExportName(BuiltinOp op) {
  return builtins()[static_cast<int>(op)].export_name;
}
std::string_view torchFunctionName(TorchFunction fn) {
  return kTorchFunctions[static_cast<int>(fn)];
}

}  // namespace epsmith
