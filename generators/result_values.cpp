// What the generator keeps of a candidate's result; see result_values.h.
#include "generators/result_values.h"

#include "oracle/aten_bridge.h"

namespace epsmith {

// Note [Integer values kept small]
// Integer results are kept only while every element lies within ±2^20. Larger ones come
// from overflowing chains (cumprod, pow) and wrap to INT_MIN, where LibTorch 1.13 kernels
// trap instead of raising (fmod/remainder of INT_MIN by -1: SIGFPE, which kills the
// process), and values used as counts or positions (one_hot, arange ends, index
// arithmetic) then cost unbounded time or memory. Overflow itself is undefined in C++ and
// differs between kernels legitimately, so a differential tester gains nothing from it.
bool smallIntegers(const at::Tensor& t) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() == 0) return true;
  constexpr int64_t kLimit = int64_t{1} << 20;
  at::NoGradGuard no_grad;
  auto [lo, hi] = at::aminmax(t);
  return lo.item<int64_t>() >= -kLimit && hi.item<int64_t>() <= kLimit;
}

// meta.val for a call's value; false for values a program cannot hold (complex, huge).
bool valOf(const c10::IValue& v, Val* out) {
  auto tensor = [](const at::Tensor& t, Val* o) {
    if (!t.defined() || t.is_complex() || t.numel() > (1 << 16) || !t.is_cpu()) return false;
    // An integer tensor that requires grad (a LibTorch bug when an op makes one) cannot
    // even be cloned: LibTorch asserts.
    if (t.requires_grad() && !at::isFloatingType(t.scalar_type())) return false;
    if (!smallIntegers(t)) return false;
    *o = tensorMetaOf(t);
    return true;
  };
  if (v.isTensor()) return tensor(v.toTensor(), out);
  if (v.isInt()) return *out = v.toInt(), true;
  if (v.isDouble()) return *out = v.toDouble(), true;
  if (v.isBool()) return *out = v.toBool(), true;
  if (v.isTuple() || v.isTensorList()) {
    std::vector<at::Tensor> items;
    if (v.isTensorList()) {
      items = v.toTensorVector();
    } else {
      for (const auto& e : v.toTupleRef().elements()) {
        if (!e.isTensor()) return false;
        items.push_back(e.toTensor());
      }
    }
    Val::List list;
    for (const auto& t : items) {
      Val one;
      if (!tensor(t, &one)) return false;
      list.push_back(std::move(one));
    }
    *out = std::move(list);
    return true;
  }
  return false;
}

namespace {

bool sameTensor(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  at::NoGradGuard no_grad;
  if (at::isFloatingType(a.scalar_type())) {
    return (a.eq(b) | (a.isnan() & b.isnan())).all().item<bool>();
  }
  return at::equal(a, b);
}

bool sameValue(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() && b.isTensor()) return sameTensor(a.toTensor(), b.toTensor());
  if (a.isTuple() && b.isTuple()) {
    const auto& x = a.toTupleRef().elements();
    const auto& y = b.toTupleRef().elements();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!sameValue(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.isTensorList() && b.isTensorList()) {
    const auto x = a.toTensorVector(), y = b.toTensorVector();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!sameTensor(x[i], y[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

bool sameResult(const c10::IValue& first, const Interpreter::Outcome& second) {
  return !second.error && !second.outputs.empty() && sameValue(first, second.outputs[0]);
}

}  // namespace epsmith
