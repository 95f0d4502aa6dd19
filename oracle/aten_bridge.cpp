// IR ⇄ ATen value conversions; see aten_bridge.h.
#include "oracle/aten_bridge.h"

#include "oracle/libtorch_compat.h"

#include <ATen/core/Tensor.h>
#include <ATen/EmptyTensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/empty.h>
#include <ATen/EmptyTensor.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace epsmith {

c10::ScalarType toAten(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return c10::kByte;
    case ScalarType::Char: return c10::kChar;
    case ScalarType::Short: return c10::kShort;
    case ScalarType::Int: return c10::kInt;
    case ScalarType::Long: return c10::kLong;
    case ScalarType::Half: return c10::kHalf;
    case ScalarType::Float: return c10::kFloat;
    case ScalarType::Double: return c10::kDouble;
    case ScalarType::ComplexHalf: return c10::kComplexHalf;
    case ScalarType::ComplexFloat: return c10::kComplexFloat;
    case ScalarType::ComplexDouble: return c10::kComplexDouble;
    case ScalarType::Bool: return c10::kBool;
    case ScalarType::BFloat16: return c10::kBFloat16;
    default:
      if (auto later = compat::laterDtype(t)) return *later;
      throw std::invalid_argument("dtype " + std::string(torchName(t)) + " does not exist in this LibTorch build");
  }
}

ScalarType fromAten(c10::ScalarType t) {
  switch (t) {
    case c10::kByte: return ScalarType::Byte;
    case c10::kChar: return ScalarType::Char;
    case c10::kShort: return ScalarType::Short;
    case c10::kInt: return ScalarType::Int;
    case c10::kLong: return ScalarType::Long;
    case c10::kHalf: return ScalarType::Half;
    case c10::kFloat: return ScalarType::Float;
    case c10::kDouble: return ScalarType::Double;
    case c10::kComplexHalf: return ScalarType::ComplexHalf;
    case c10::kComplexFloat: return ScalarType::ComplexFloat;
    case c10::kComplexDouble: return ScalarType::ComplexDouble;
    case c10::kBool: return ScalarType::Bool;
    case c10::kBFloat16: return ScalarType::BFloat16;
    default: return compat::laterDtype(t).value_or(ScalarType::Unknown);
  }
}

c10::Layout toAten(Layout l) {
  switch (l) {
    case Layout::Strided: return c10::kStrided;
    case Layout::SparseCoo: return c10::kSparse;
    case Layout::SparseCsr: return c10::kSparseCsr;
    case Layout::SparseCsc: return c10::kSparseCsc;
    case Layout::SparseBsr: return c10::kSparseBsr;
    case Layout::SparseBsc: return c10::kSparseBsc;
    case Layout::Mkldnn: return c10::kMkldnn;
    default: throw std::invalid_argument("unknown layout");
  }
}

c10::MemoryFormat toAten(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::Contiguous: return c10::MemoryFormat::Contiguous;
    case MemoryFormat::ChannelsLast: return c10::MemoryFormat::ChannelsLast;
    case MemoryFormat::ChannelsLast3d: return c10::MemoryFormat::ChannelsLast3d;
    case MemoryFormat::Preserve: return c10::MemoryFormat::Preserve;
    default: throw std::invalid_argument("unknown memory format");
  }
}

c10::Device toAten(const Device& d) { return c10::Device(d.str()); }

at::Tensor TensorMaterializer::materialize(const TensorValue& v) {
  if (!v.storage) throw std::invalid_argument("tensor without storage");
  if (auto problem = v.checkBounds()) throw std::invalid_argument(*problem);
  auto it = bases_.find(v.storage.get());
  if (it == bases_.end()) {
    const auto options = at::TensorOptions().dtype(toAten(v.dtype()));
    at::Tensor base;
    if (overread_fill_ >= 0 && device_.is_cpu()) {
      const int64_t pad = std::max<int64_t>(1, 256 / std::max<int64_t>(1, elementSize(v.dtype())));
      base = at::empty({v.storage->numel() + pad}, options);
      std::memset(static_cast<char*>(base.data_ptr()) + v.storage->bytes.size(), overread_fill_,
                  static_cast<size_t>(base.nbytes()) - v.storage->bytes.size());
      base.storage().set_nbytes(v.storage->bytes.size());  // the fill lies past the storage's end
      base = base.as_strided({v.storage->numel()}, {1}, 0);
    } else {
      // Undispatched: the base is never seen, only views of it, and this is all at::empty
      // does on CPU (the registered CPU allocator included).
      base = at::detail::empty_cpu({v.storage->numel()}, toAten(v.dtype()), /*pin_memory=*/false, c10::nullopt);
    }
    if (!v.storage->bytes.empty()) std::memcpy(base.data_ptr(), v.storage->bytes.data(), v.storage->bytes.size());
    if (!device_.is_cpu()) base = base.to(device_);
    it = bases_.emplace(v.storage.get(), base).first;
  }
  // detach(): a leaf sharing the storage, so requires_grad marks it as a parameter would be.
  at::Tensor t = it->second.as_strided(v.sizes, v.strides, v.storage_offset).detach();
  if (v.requires_grad) t.requires_grad_(true);
  return t;
}

at::Tensor cloneOf(const at::Tensor& t) {
  if (!t.defined() || !t.is_cpu() || t.layout() != at::kStrided || t.requires_grad() || t.is_conj() || t.is_neg() ||
      t._is_zerotensor() || t.is_quantized() || !t.is_non_overlapping_and_dense()) {
    return t.clone();
  }
  // As at::native::clone does for such a tensor: empty_strided with its sizes and strides,
  // then its elements, which here are one block starting at element 0 (strides are not
  // negative), copied as bytes.
  at::Tensor copy = at::detail::empty_strided_cpu(t.sizes(), t.strides(), t.scalar_type());
  if (t.numel() > 0) std::memcpy(copy.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()) * t.element_size());
  return copy;
}

TensorMeta tensorMetaOf(const at::Tensor& t) {
  TensorMeta m;
  m.dtype = fromAten(t.scalar_type());
  for (int64_t s : t.sizes()) m.sizes.emplace_back(s);
  for (int64_t s : t.strides()) m.strides.emplace_back(s);
  m.storage_offset = t.storage_offset();
  m.requires_grad = t.requires_grad();
  return m;
}

namespace {

// `t` as a view of `storage` (a copy of its own), with `requires_grad`.
TensorValue viewOf(const at::Tensor& t, std::shared_ptr<Storage> storage, bool requires_grad) {
  TensorValue v;
  v.storage = std::move(storage);
  v.sizes = t.sizes().vec();
  v.strides = t.strides().vec();
  v.storage_offset = t.storage_offset();
  v.requires_grad = requires_grad;
  return v;
}

std::shared_ptr<Storage> storageOf(const at::Tensor& t) {
  auto s = std::make_shared<Storage>();
  s->dtype = fromAten(t.scalar_type());
  const auto itemsize = static_cast<int64_t>(t.element_size());
  const int64_t numel = static_cast<int64_t>(t.storage().nbytes()) / itemsize;
  s->bytes.resize(static_cast<size_t>(numel * itemsize));
  if (numel > 0) std::memcpy(s->bytes.data(), static_cast<const char*>(t.storage().data()), s->bytes.size());
  return s;
}

}  // namespace

TensorValue toTensorValue(const at::Tensor& input, StorageMemo& memo) {
  at::Tensor t = input.detach().cpu();
  auto [it, fresh] = memo.emplace(t.storage().unsafeGetStorageImpl(), nullptr);
  if (fresh) it->second = storageOf(t);
  if (it->second->dtype != fromAten(t.scalar_type())) {
    throw std::invalid_argument("one storage viewed as two dtypes cannot be stored");
  }
  return viewOf(t, it->second, input.requires_grad());
}

TensorValue toTensorValue(const at::Tensor& input) {
  at::Tensor t = input.detach().cpu();
  return viewOf(t, storageOf(t), input.requires_grad());
}

c10::WarningHandler* silentWarningHandler() {
  static compat::DroppingWarningHandler silent;
  return &silent;
}

c10::IValue inputIValue(const InputValue& v, TensorMaterializer& m) {
  switch (v.kind) {
    case InputValue::Kind::Tensor: return m.materialize(v.tensor);
    case InputValue::Kind::Int: return v.i;
    case InputValue::Kind::Float: return v.f;
    case InputValue::Kind::Bool: return v.b;
    case InputValue::Kind::None: return c10::IValue();
  }
  return c10::IValue();
}

}  // namespace epsmith
