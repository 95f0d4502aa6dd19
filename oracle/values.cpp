// See values.h.
#include "oracle/values.h"

#include <ATen/Dispatch.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/aminmax.h>

#include <array>
#include <vector>

#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "oracle/strided.h"

namespace epsmith {

// Note [Integer values kept small]
// Integer results are kept only while every element lies within ±2^20. Larger ones come
// from overflowing chains (cumprod, pow) and wrap to INT_MIN, where LibTorch 1.13 kernels
// trap instead of raising (fmod/remainder of INT_MIN by -1: SIGFPE, which kills the
// process; 2.13's fmod returns 0 there, and the bound stays for the other reasons), and values used as counts or positions (one_hot, arange ends, index
// arithmetic) then cost unbounded time or memory. Overflow itself is undefined in C++ and
// differs between kernels legitimately, so a differential tester gains nothing from it.
bool smallIntegers(const at::Tensor& t) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() == 0) return true;
  // 2.x's UInt16/32/64 have few kernels (no aminmax, no integral dispatch): a value of
  // theirs is not taken, as if it were large.
  if (compat::laterDtype(t.scalar_type())) return false;
  constexpr int64_t kLimit = int64_t{1} << 20;
  if (t.is_cpu() && t.layout() == at::kStrided) {
    bool small = true;
    AT_DISPATCH_INTEGRAL_TYPES(t.scalar_type(), "smallIntegers", [&] {
      const scalar_t* data = t.data_ptr<scalar_t>();
      small = everyElement(t, [&](int64_t at) {
        const auto v = static_cast<int64_t>(data[at]);
        return v >= -kLimit && v <= kLimit;
      });
    });
    return small;
  }
  at::NoGradGuard no_grad;
  auto [lo, hi] = at::aminmax(t);
  return lo.item<int64_t>() >= -kLimit && hi.item<int64_t>() <= kLimit;
}

// meta.val for a call's value; false for values a program cannot hold (complex, huge).
bool valOf(const c10::IValue& v, Val* out) {
  auto tensor = [](const at::Tensor& t, Val* o) {
    if (!t.defined() || t.is_complex() || t.numel() > (1 << 16) || !t.is_cpu()) return false;
    // LibTorch 1.13's set_ can leave a tensor of elements on a storage it never allocated
    // (reading it raises "data is not allocated yet"): a value no program can hold.
    if (t.numel() > 0 && (!t.has_storage() || t.storage().data() == nullptr)) return false;
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
    // A list's length can follow a tensor's value (tensor_split by a computed 0-d tensor
    // made 14 400 pieces, each a getitem node of the program); past this many, the program
    // is no longer the few dozen nodes the generators aim at.
    constexpr size_t kMaxListItems = 256;
    if (items.size() > kMaxListItems) return false;
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

}  // namespace epsmith
