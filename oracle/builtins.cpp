// Python number semantics for builtins and torch.sym_* functions; see builtins.h.
#include "oracle/builtins.h"

#include <ATen/ATen.h>

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

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0) throw std::invalid_argument("integer division or modulo by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t pyMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

double roundHalfEven(double x) { return x - std::remainder(x, 1.0); }

c10::IValue arithmetic(BuiltinOp op, const c10::IValue& a, const c10::IValue& b) {
  if (!isNumber(a) || !isNumber(b)) throw std::invalid_argument("unsupported operand types " + a.tagKind() + " and " + b.tagKind());
  const bool ints = integral(a) && integral(b);
  switch (op) {
    case BuiltinOp::Add: return ints ? c10::IValue(asInt(a) + asInt(b)) : c10::IValue(asDouble(a) + asDouble(b));
    case BuiltinOp::Sub: return ints ? c10::IValue(asInt(a) - asInt(b)) : c10::IValue(asDouble(a) - asDouble(b));
    case BuiltinOp::Mul: return ints ? c10::IValue(asInt(a) * asInt(b)) : c10::IValue(asDouble(a) * asDouble(b));
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
      if (ints && asInt(b) >= 0) {
        int64_t r = 1;
        for (int64_t i = 0; i < asInt(b); ++i) r *= asInt(a);
        return r;
      }
      return std::pow(asDouble(a), asDouble(b));
    case BuiltinOp::Eq: return asDouble(a) == asDouble(b);
    case BuiltinOp::Ne: return asDouble(a) != asDouble(b);
    case BuiltinOp::Lt: return asDouble(a) < asDouble(b);
    case BuiltinOp::Le: return asDouble(a) <= asDouble(b);
    case BuiltinOp::Gt: return asDouble(a) > asDouble(b);
    case BuiltinOp::Ge: return asDouble(a) >= asDouble(b);
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
      return op == BuiltinOp::LShift ? x << y : x >> y;
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
      return integral(a) ? c10::IValue(-asInt(a)) : c10::IValue(-asDouble(a));
    }
    case BuiltinOp::Abs: {
      const auto& a = arg(args, 0);
      return integral(a) ? c10::IValue(std::abs(asInt(a))) : c10::IValue(std::fabs(asDouble(a)));
    }
    case BuiltinOp::Ceil: return static_cast<int64_t>(std::ceil(asDouble(arg(args, 0))));
    case BuiltinOp::Floor: return static_cast<int64_t>(std::floor(asDouble(arg(args, 0))));
    case BuiltinOp::Trunc: return static_cast<int64_t>(std::trunc(asDouble(arg(args, 0))));
    case BuiltinOp::Round: {
      const auto& x = arg(args, 0);
      if (args.size() < 2 || args[1].isNone()) {
        return integral(x) ? asInt(x) : static_cast<int64_t>(roundHalfEven(asDouble(x)));
      }
      double scale = std::pow(10.0, static_cast<double>(asInt(args[1])));
      return roundHalfEven(asDouble(x) * scale) / scale;
    }
    default: return arithmetic(op, arg(args, 0), arg(args, 1));
  }
}

c10::IValue callTorchFunction(TorchFunction fn, const std::vector<c10::IValue>& args) {
  switch (fn) {
    case TorchFunction::SetGradEnabled:
    case TorchFunction::CSetGradEnabled:
      at::GradMode::set_enabled(arg(args, 0).toBool());
      return c10::IValue();
    case TorchFunction::SymInt: return static_cast<int64_t>(std::trunc(asDouble(arg(args, 0))));
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
    case TorchFunction::EnterAutocast:
    case TorchFunction::ExitAutocast:
      throw std::invalid_argument("autocast regions are not supported by the eager oracle");
  }
  return c10::IValue();
}

}  // namespace epsmith
