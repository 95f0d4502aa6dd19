// Target spellings: the builtin and torch-function tables of verifier.py, and the syntax of
// target names (ops/targets.h parses them, resolving ATen names through the op registry).
#include "ir/target.h"

#include <array>
#include <cctype>

#include "ir/op_info.h"

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

std::optional<BuiltinOp> builtinNamed(std::string_view name) {
  for (const auto& row : builtins()) {
    if (row.text == name || row.export_name == name) return row.op;
  }
  return std::nullopt;
}

std::optional<TorchFunction> torchFunctionNamed(std::string_view name) {
  for (int i = 0; i < kNumTorchFunctions; ++i) {
    if (kTorchFunctions[i] == name) return static_cast<TorchFunction>(i);
  }
  return std::nullopt;
}

const std::vector<std::string_view>& Target::builtinParamNames(BuiltinOp op) {
  return builtins()[static_cast<int>(op)].params;
}

std::string_view builtinTextName(BuiltinOp op) { return builtins()[static_cast<int>(op)].text; }
std::string_view builtinExportName(BuiltinOp op) { return builtins()[static_cast<int>(op)].export_name; }
std::string_view torchFunctionName(TorchFunction fn) { return kTorchFunctions[static_cast<int>(fn)]; }

}  // namespace epsmith
