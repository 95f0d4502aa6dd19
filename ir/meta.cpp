// TensorMeta helpers and structural equality of node values.
#include "ir/meta.h"

namespace epsmith {

std::vector<SymIntValue> TensorMeta::contiguousStrides(const std::vector<SymIntValue>& sizes) {
  std::vector<SymIntValue> strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    if (sizes[i].isConcrete() && sizes[i].concrete() > 1) running *= sizes[i].concrete();
  }
  return strides;
}

TensorMeta TensorMeta::contiguous(ScalarType dtype, std::vector<int64_t> sizes) {
  TensorMeta m;
  m.dtype = dtype;
  m.sizes.assign(sizes.begin(), sizes.end());
  m.strides = contiguousStrides(m.sizes);
  return m;
}

bool TensorMeta::hasContiguousStrides() const { return strides == contiguousStrides(sizes); }

bool operator==(const TensorMeta& a, const TensorMeta& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides &&
         a.storage_offset == b.storage_offset && a.device == b.device &&
         a.requires_grad == b.requires_grad && a.layout == b.layout;
}

namespace {
template <typename T>
bool sameExpr(const T& a, const T& b) { return a.expr == b.expr; }
}  // namespace

bool operator==(const Val& a, const Val& b) {
  if (a.v_.index() != b.v_.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        const auto& y = std::get<X>(b.v_);
        if constexpr (std::is_same_v<X, Val::Missing> || std::is_same_v<X, Val::None>) {
          return true;
        } else if constexpr (std::is_same_v<X, Val::SymInt> || std::is_same_v<X, Val::SymFloat> ||
                             std::is_same_v<X, Val::SymBool>) {
          return sameExpr(x, y);
        } else if constexpr (std::is_same_v<X, Val::CustomObj>) {
          return x.class_fqn == y.class_fqn;
        } else if constexpr (std::is_same_v<X, Val::Opaque>) {
          return x.type_name == y.type_name;
        } else if constexpr (std::is_same_v<X, double>) {
          return x == y || (x != x && y != y);  // NaN equals NaN structurally
        } else {
          return x == y;
        }
      },
      a.v_);
}

}  // namespace epsmith
