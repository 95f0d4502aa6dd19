// What the generator keeps of a candidate's result; see result_values.h.
#include "generators/result_values.h"

#include <ATen/Dispatch.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "oracle/aten_bridge.h"

namespace epsmith {

// Note [Integer values kept small]
// Integer results are kept only while every element lies within ±2^20. Larger ones come
// from overflowing chains (cumprod, pow) and wrap to INT_MIN, where LibTorch 1.13 kernels
// trap instead of raising (fmod/remainder of INT_MIN by -1: SIGFPE, which kills the
// process), and values used as counts or positions (one_hot, arange ends, index
// arithmetic) then cost unbounded time or memory. Overflow itself is undefined in C++ and
// differs between kernels legitimately, so a differential tester gains nothing from it.
namespace {

// Calls f(offset) with the element offset of every element of a strided CPU tensor, in
// index order, and stops early when f returns false; returns whether it went through.
// (The generator looks at each candidate's small result: a loop here costs less than the
// few dispatched ops it would take.)
template <typename F>
bool everyElement(const at::Tensor& t, F&& f) {
  const int64_t rank = t.dim();
  if (t.numel() == 0) return true;
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t offset = 0;
  for (;;) {
    if (!f(offset)) return false;
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      const auto k = static_cast<size_t>(d);
      if (++index[k] < sizes[k]) {
        offset += strides[k];
        break;
      }
      offset -= strides[k] * (sizes[k] - 1);
      index[k] = 0;
    }
    if (d < 0) return true;
  }
}

}  // namespace

bool smallIntegers(const at::Tensor& t) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() == 0) return true;
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
  if (a.is_cpu() && b.is_cpu() && a.layout() == at::kStrided && b.layout() == at::kStrided &&
      !a.is_complex() && a.scalar_type() != at::kBool) {
    // Equal elements, or NaN in both (the loop walks a's offsets; b's come from its strides).
    bool same = true;
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "sameTensor", [&] {
      const scalar_t* x = a.data_ptr<scalar_t>();
      const scalar_t* y = b.data_ptr<scalar_t>();
      std::vector<int64_t> b_offsets;
      b_offsets.reserve(static_cast<size_t>(b.numel()));
      everyElement(b, [&](int64_t at) { return b_offsets.push_back(at), true; });
      size_t i = 0;
      same = everyElement(a, [&](int64_t at) {
        const scalar_t u = x[at], v = y[b_offsets[i++]];
        return u == v || (u != u && v != v);
      });
    });
    return same;
  }
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

bool factorizesMatrix(const OpInfo& op) {
  static constexpr std::string_view kWords[] = {
      "svd", "eig", "eigh", "eigvals", "eigvalsh", "symeig", "lstsq", "pinv", "pinverse", "rank", "nuclear",
      "det", "logdet", "slogdet", "inverse", "qr", "lu", "cholesky", "solve", "geqrf", "orgqr", "ormqr",
      "householder", "cond", "power", "exp",
  };
  thread_local std::unordered_map<const OpInfo*, bool> known;
  auto it = known.find(&op);
  if (it != known.end()) return it->second;
  std::string_view name = op.localName();
  while (!name.empty() && name.front() == '_') name.remove_prefix(1);
  bool found = name.rfind("linalg_", 0) == 0;
  bool after_matrix = false;  // "power" and "exp" count only as matrix_power, matrix_exp
  for (size_t at = 0; !found && at <= name.size();) {
    const size_t end = std::min(name.find('_', at), name.size());
    const std::string_view word = name.substr(at, end - at);
    for (auto w : kWords) {
      if (word == w && ((w != "power" && w != "exp") || after_matrix)) found = true;
    }
    after_matrix = word == "matrix";
    at = end + 1;
  }
  return known.emplace(&op, found).first->second;
}

TensorState::TensorState(const at::Tensor& t)
    : tensor_(t),
      sizes_(t.sizes().vec()),
      strides_(t.strides().vec()),
      offset_(t.storage_offset()),
      data_(t.storage().data()),
      bytes_(static_cast<const uint8_t*>(t.storage().data()),
             static_cast<const uint8_t*>(t.storage().data()) + t.storage().nbytes()) {}

bool TensorState::unchanged() const {
  return tensor_.sizes() == sizes_ && tensor_.strides() == strides_ && tensor_.storage_offset() == offset_ &&
         tensor_.storage().data() == data_ && tensor_.storage().nbytes() == bytes_.size() &&
         (bytes_.empty() || std::memcmp(data_, bytes_.data(), bytes_.size()) == 0);
}

}  // namespace epsmith
