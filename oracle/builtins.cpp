// Python number semantics for builtins and torch.sym_* functions; see builtins.h.
#include "oracle/builtins.h"
#include "oracle/autocast_state.h"
#include "oracle/libtorch_compat.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>

#include <climits>
#include <cmath>
#include <stdexcept>

namespace epsmith {
namespace {

bool isNumber(const c10::IValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }

double asDouble(const c10::IValue& v) {
  if (v.isDouble()) return v.toDouble();
  if (v.isInt()) return static_cast<double>(v.toInt());
  if (v.isBool()) return v.toBool() ? 1.0 : 0.0;
  if (v.isTensor() && v.toTensor().numel() == 1) return v.toTensor().item<double>();
  throw std::invalid_argument("expected a number, got " + v.tagKind());
}

int64_t asInt(const c10::IValue& v) {
  if (v.isInt()) return v.toInt();
  if (v.isBool()) return v.toBool() ? 1 : 0;
  if (v.isTensor() && v.toTensor().numel() == 1) return v.toTensor().item<int64_t>();
  throw std::invalid_argument("expected an int, got " + v.tagKind());
}

bool integral(const c10::IValue& v) { return v.isInt() || v.isBool(); }

const c10::IValue& arg(const std::vector<c10::IValue>& args, size_t i) {
  if (i >= args.size()) throw std::invalid_argument("missing operand " + std::to_string(i));
  return args[i];
}

[[noreturn]] void overflow() { throw std::invalid_argument("integer result does not fit in 64 bits"); }

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
int64_t checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) overflow();
  return r;
}
int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

// Exponentiation by squaring; b >= 0.
int64_t checkedPow(int64_t a, int64_t b) {
  int64_t result = 1;
  while (b > 0) {
    if (b & 1) result = checkedMul(result, a);
    b >>= 1;
    if (b > 0) a = checkedMul(a, a);
  }
  return result;
}

// A float to int as Python's int(): non-finite values raise.
int64_t toIntChecked(double x) {
  if (!std::isfinite(x)) throw std::invalid_argument("cannot convert float " + std::to_string(x) + " to integer");
  if (x >= 9223372036854775808.0 || x < -9223372036854775808.0) overflow();
  return static_cast<int64_t>(x);
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0) throw std::invalid_argument("integer division or modulo by zero");
  if (a == INT64_MIN && b == -1) overflow();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t pyMod(int64_t a, int64_t b) {
  if (b == -1) return 0;  // also avoids INT64_MIN % -1
  return a - floorDiv(a, b) * b;
}

// Python compares ints exactly; only mixed or float operands go through double.
int compareNumbers(const c10::IValue& a, const c10::IValue& b) {
  if (integral(a) && integral(b)) {
    int64_t x = asInt(a), y = asInt(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  double x = asDouble(a), y = asDouble(b);
  if (std::isnan(x) || std::isnan(y)) return 2;  // unordered
  return x < y ? -1 : (x > y ? 1 : 0);
}

double roundHalfEven(double x) { return x - std::remainder(x, 1.0); }

c10::IValue arithmetic(BuiltinOp op, const c10::IValue& a, const c10::IValue& b) {
  if (!isNumber(a) || !isNumber(b))
    throw std::invalid_argument("unsupported operand types " + a.tagKind() + " and " + b.tagKind());
  const bool ints = integral(a) && integral(b);
  switch (op) {
    case BuiltinOp::Add:
      return ints ? c10::IValue(checkedAdd(asInt(a), asInt(b))) : c10::IValue(asDouble(a) + asDouble(b));
    case BuiltinOp::Sub:
      return ints ? c10::IValue(checkedSub(asInt(a), asInt(b))) : c10::IValue(asDouble(a) - asDouble(b));
    case BuiltinOp::Mul:
      return ints ? c10::IValue(checkedMul(asInt(a), asInt(b))) : c10::IValue(asDouble(a) * asDouble(b));
    case BuiltinOp::TrueDiv:
      if (asDouble(b) == 0) throw std::invalid_argument("division by zero");
      return asDouble(a) / asDouble(b);
    case BuiltinOp::FloorDiv:
      if (ints) return floorDiv(asInt(a), asInt(b));
      if (asDouble(b) == 0) throw std::invalid_argument("float floor division by zero");
      return std::floor(asDouble(a) / asDouble(b));
    case BuiltinOp::Mod:
      if (ints) return pyMod(asInt(a), asInt(b));
      if (asDouble(b) == 0) throw std::invalid_argument("float modulo");
      return asDouble(a) - std::floor(asDouble(a) / asDouble(b)) * asDouble(b);
    case BuiltinOp::Pow:
      if (ints && asInt(b) >= 0) return checkedPow(asInt(a), asInt(b));
      return std::pow(asDouble(a), asDouble(b));
    case BuiltinOp::Eq: return compareNumbers(a, b) == 0;
    case BuiltinOp::Ne: return compareNumbers(a, b) != 0;
    case BuiltinOp::Lt: return compareNumbers(a, b) == -1;
    case BuiltinOp::Le: return compareNumbers(a, b) == -1 || compareNumbers(a, b) == 0;
    case BuiltinOp::Gt: return compareNumbers(a, b) == 1;
    case BuiltinOp::Ge: return compareNumbers(a, b) == 1 || compareNumbers(a, b) == 0;
    case BuiltinOp::And:
    case BuiltinOp::Or:
    case BuiltinOp::LShift:
    case BuiltinOp::RShift: {
      if (!ints) throw std::invalid_argument("bitwise operands must be integers");
      int64_t x = asInt(a), y = asInt(b);
      bool both_bool = a.isBool() && b.isBool();
      if (op == BuiltinOp::And) return both_bool ? c10::IValue(static_cast<bool>(x & y)) : c10::IValue(x & y);
      if (op == BuiltinOp::Or) return both_bool ? c10::IValue(static_cast<bool>(x | y)) : c10::IValue(x | y);
      if (y < 0) throw std::invalid_argument("negative shift count");
      if (op == BuiltinOp::RShift) return y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
      if (x == 0) return int64_t{0};
      if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y))) overflow();
      return static_cast<int64_t>(static_cast<uint64_t>(x) << y);
    }
    default: throw std::invalid_argument("not a binary operator");
  }
}

}  // namespace

c10::IValue callBuiltin(BuiltinOp op, const std::vector<c10::IValue>& args) {
  switch (op) {
    case BuiltinOp::GetItem: {
      const auto& seq = arg(args, 0);
      int64_t i = asInt(arg(args, 1));
      if (seq.isTuple()) {
        const auto& items = seq.toTupleRef().elements();
        int64_t n = static_cast<int64_t>(items.size());
        if (i < -n || i >= n) throw std::invalid_argument("tuple index out of range");
        return items[static_cast<size_t>(i < 0 ? i + n : i)];
      }
      if (seq.isList()) {
        auto items = seq.toListRef();
        int64_t n = static_cast<int64_t>(items.size());
        if (i < -n || i >= n) throw std::invalid_argument("list index out of range");
        return items[static_cast<size_t>(i < 0 ? i + n : i)];
      }
      throw std::invalid_argument("operator.getitem needs a tuple or list, got " + seq.tagKind());
    }
    case BuiltinOp::Not: return !static_cast<bool>(asDouble(arg(args, 0)));
    case BuiltinOp::Neg: {
      const auto& a = arg(args, 0);
      return integral(a) ? c10::IValue(checkedSub(0, asInt(a))) : c10::IValue(-asDouble(a));
    }
    case BuiltinOp::Abs: {
      const auto& a = arg(args, 0);
      if (integral(a)) return asInt(a) < 0 ? checkedSub(0, asInt(a)) : asInt(a);
      return std::fabs(asDouble(a));
    }
    case BuiltinOp::Ceil:
    case BuiltinOp::Floor:
    case BuiltinOp::Trunc: {
      const auto& x = arg(args, 0);
      if (integral(x)) return asInt(x);
      double v = asDouble(x);
      return toIntChecked(op == BuiltinOp::Ceil    ? std::ceil(v)
                          : op == BuiltinOp::Floor ? std::floor(v)
                                                   : std::trunc(v));
    }
    case BuiltinOp::Round: {
      const auto& x = arg(args, 0);
      if (args.size() < 2 || args[1].isNone()) {
        return integral(x) ? asInt(x) : toIntChecked(roundHalfEven(asDouble(x)));
      }
      if (integral(x) && asInt(args[1]) >= 0) return asInt(x);  // round(int, n>=0) is the int
      double scale = std::pow(10.0, static_cast<double>(asInt(args[1])));
      return roundHalfEven(asDouble(x) * scale) / scale;
    }
    default: return arithmetic(op, arg(args, 0), arg(args, 1));
  }
}

c10::IValue callTorchFunction(TorchFunction fn, const std::vector<c10::IValue>& args) {
  switch (fn) {
    case TorchFunction::SetGradEnabled:
    case TorchFunction::CSetGradEnabled: at::GradMode::set_enabled(arg(args, 0).toBool()); return c10::IValue();
    case TorchFunction::SymInt: {
      const auto& x = arg(args, 0);
      return integral(x) ? asInt(x) : toIntChecked(std::trunc(asDouble(x)));
    }
    case TorchFunction::SymFloat: return asDouble(arg(args, 0));
    case TorchFunction::SymNot: return !static_cast<bool>(asDouble(arg(args, 0)));
    case TorchFunction::SymSqrt: return std::sqrt(asDouble(arg(args, 0)));
    case TorchFunction::SymMax:
    case TorchFunction::SymMin: {
      const auto& a = arg(args, 0);
      const auto& b = arg(args, 1);
      bool take_a = fn == TorchFunction::SymMax ? asDouble(a) >= asDouble(b) : asDouble(a) <= asDouble(b);
      return take_a ? a : b;
    }
    case TorchFunction::SymIte: return asDouble(arg(args, 0)) != 0 ? arg(args, 1) : arg(args, 2);
    case TorchFunction::SymSum: {
      const auto& l = arg(args, 0);
      if (!l.isList() && !l.isIntList()) throw std::invalid_argument("torch.sym_sum needs a list");
      bool ints = true;
      for (const auto& v : l.toListRef()) ints = ints && integral(v);
      if (ints) {
        int64_t s = 0;
        for (const auto& v : l.toListRef()) s += asInt(v);
        return s;
      }
      double s = 0;
      for (const auto& v : l.toListRef()) s += asDouble(v);
      return s;
    }
    case TorchFunction::CastSymboolToSymintGuardless: return asInt(arg(args, 0));
    case TorchFunction::EnterAutocast: return autocast_state::enterAutocast(args);
    case TorchFunction::ExitAutocast: autocast_state::exitAutocast(args); return c10::IValue();
  }
  return c10::IValue();
}

}  // namespace epsmith
