// What a call_function node calls: an ATen overload, one of the verifier's builtin Python
// operators, an allowed torch function, a higher-order op, or any other Python callable
// (representable so that the verifier can reject it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace epsmith {

struct OpInfo;

// The Python builtins verifier.py allows (allowed_builtin_ops), in its order.
// clang-format off
enum class BuiltinOp : uint8_t {
  GetItem, Add, Mul, Sub, TrueDiv, Ge, Le, Gt, Lt, Eq, Ne, FloorDiv, Mod, And, Or, Not, Pow,
  Neg, Abs, LShift, RShift, Ceil, Floor, Trunc, Round,
};
// clang-format on
constexpr int kNumBuiltinOps = static_cast<int>(BuiltinOp::Round) + 1;

// The torch functions verifier.py allows (_allowed_torch_functions), in its order.
enum class TorchFunction : uint8_t {
  SetGradEnabled,
  SymInt,
  SymFloat,
  SymIte,
  SymMax,
  SymMin,
  SymNot,
  SymSqrt,
  SymSum,
  CSetGradEnabled,
  EnterAutocast,
  ExitAutocast,
  CastSymboolToSymintGuardless,
};
constexpr int kNumTorchFunctions = static_cast<int>(TorchFunction::CastSymboolToSymintGuardless) + 1;

class Target {
 public:
  enum class Kind : uint8_t { None, Aten, Builtin, TorchFunction, HigherOrder, Other };

  Target() = default;
  static Target aten(const OpInfo* op);
  static Target builtin(BuiltinOp op);
  static Target torchFunction(TorchFunction fn);
  static Target higherOrder(std::string name);   // "cond"
  static Target other(std::string python_path);  // "operator.matmul"

  Kind kind() const { return kind_; }
  const OpInfo* op() const { return op_; }
  BuiltinOp builtinOp() const { return builtin_; }
  TorchFunction torchFunctionId() const { return torch_fn_; }
  const std::string& name() const { return name_; }  // HigherOrder / Other

  // The text form's spelling ("aten::add.Tensor", "operator.add", "higher_order.cond").
  std::string textName() const;
  // torch.export's target string ("torch.ops.aten.add.Tensor", "_operator.add").
  std::string exportName() const;
  // Positional parameter names of a builtin or torch function, as inspect.signature gives.
  static const std::vector<std::string_view>& builtinParamNames(BuiltinOp op);

  friend bool operator==(const Target& a, const Target& b) {
    return a.kind_ == b.kind_ && a.op_ == b.op_ && a.builtin_ == b.builtin_ && a.torch_fn_ == b.torch_fn_ &&
           a.name_ == b.name_;
  }
  friend bool operator!=(const Target& a, const Target& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::None;
  const OpInfo* op_ = nullptr;
  BuiltinOp builtin_ = BuiltinOp::GetItem;
  TorchFunction torch_fn_ = TorchFunction::SetGradEnabled;
  std::string name_;
};

// The builtin spelled `name` in the text form or in torch.export's ("operator.add",
// "_operator.add"), and the torch function so spelled; nullopt for any other name.
std::optional<BuiltinOp> builtinNamed(std::string_view name);
std::optional<TorchFunction> torchFunctionNamed(std::string_view name);
// [A-Za-z_][A-Za-z0-9_]*, as the "C" locale's isalnum has it; and "a.b.c" of such parts.
bool isIdentifier(std::string_view s);
bool isDottedPath(std::string_view s);

std::string_view builtinTextName(BuiltinOp op);        // "operator.add", "math.ceil", "round"
std::string_view builtinExportName(BuiltinOp op);      // "_operator.add", "math.ceil", "builtins.round"
std::string_view torchFunctionName(TorchFunction fn);  // "torch.sym_int"

}  // namespace epsmith
