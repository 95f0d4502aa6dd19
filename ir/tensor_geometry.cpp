// Tensor geometry read from a TensorMeta alone; see tensor_geometry.h.
#include "ir/tensor_geometry.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

namespace epsmith {

namespace {

// Note [Layouts decided at the example]
// Whether a tensor is contiguous, dense, overlaps itself or can be viewed with a shape is
// decided for a symbolic tensor at its example's sizes (each symbolic value's hint), as
// torch.export decides it while tracing and guards the answer: a functionalized reshape
// aliases or copies as it did there. A generated program's range keeps every size that
// follows its symbol at 2 or more (Note [Symbolic sizes of generated programs]), where
// these answers do not change; a value without a hint answers no.
std::optional<int64_t> atExample(const SymIntValue& v) {
  if (!v.hasIntHint()) return std::nullopt;
  return v.atHint();
}

}  // namespace

bool isContiguous(const TensorMeta& m) {
  // As c10's compute_contiguous: a tensor of no element is contiguous whatever its strides
  // (contiguous() of a transposed [2, 0, 2] returns the tensor itself).
  for (const auto& size : m.sizes) {
    if (atExample(size) == 0) return true;
  }
  int64_t expected = 1;
  for (size_t i = m.sizes.size(); i-- > 0;) {
    const auto size = atExample(m.sizes[i]);
    const auto stride = i < m.strides.size() ? atExample(m.strides[i]) : std::nullopt;
    if (!size || !stride) return false;
    if (*size != 1 && *stride != expected) return false;
    expected *= *size;
  }
  return true;
}

bool isNonOverlappingAndDense(const TensorMeta& m) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims larger than 1
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    const auto size = atExample(m.sizes[i]);
    const auto stride = i < m.strides.size() ? atExample(m.strides[i]) : std::nullopt;
    if (!size || !stride) return false;
    if (*size == 0) return true;
    if (*size != 1) dims.emplace_back(*stride, *size);
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

int64_t numelOf(const TensorMeta& m) {
  int64_t n = 1;
  for (const auto& s : m.sizes) {
    if (!s.isConcrete()) return -1;
    n *= s.concrete();
  }
  return n;
}

bool shrinksInPlace(const TensorMeta& before, const TensorMeta& after) {
  // Note [Layouts decided at the example]
  auto numel = [](const TensorMeta& m) -> int64_t {
    int64_t n = 1;
    for (const auto& s : m.sizes) {
      const auto at = atExample(s);
      if (!at) return -1;
      n *= *at;
    }
    return n;
  };
  const int64_t was = numel(before), now = numel(after);
  return was >= 0 && now > 0 && now <= was && isContiguous(before) && atExample(before.storage_offset) == 0;
}

std::optional<std::vector<int64_t>> concreteSizes(const TensorMeta& m) {
  std::vector<int64_t> sizes;
  for (const auto& s : m.sizes) {
    if (!s.isConcrete()) return std::nullopt;
    sizes.push_back(s.concrete());
  }
  return sizes;
}

// Whether some elements of a tensor of `m`'s layout share memory, as LibTorch's
// has_internal_overlap answers Yes: a dimension of more than one element with stride 0,
// in a tensor that has elements at all.
bool overlapsItself(const TensorMeta& m) {
  for (const auto& size : m.sizes) {
    const auto at = atExample(size);
    if (!at || *at == 0) return false;
  }
  for (size_t d = 0; d < m.sizes.size() && d < m.strides.size(); ++d) {
    if (atExample(m.sizes[d]) > 1 && atExample(m.strides[d]) == 0) return true;
  }
  return false;
}

namespace {

// The bytes of the storage that `m`'s elements cover; nullopt where a size, stride or the
// offset is symbolic or a stride negative, or there are too many to count.
std::optional<std::vector<int64_t>> coveredBytes(const TensorMeta& m) {
  constexpr int64_t kMaxBytes = int64_t{1} << 20;
  const int64_t numel = numelOf(m);
  const int64_t size = elementSize(m.dtype);
  if (numel < 0 || numel * size > kMaxBytes || !m.storage_offset.isConcrete()) return std::nullopt;
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < m.sizes.size() && d < m.strides.size(); ++d) {
    if (!m.strides[d].isConcrete() || m.strides[d].concrete() < 0) return std::nullopt;
    sizes.push_back(m.sizes[d].concrete());
    strides.push_back(m.strides[d].concrete());
  }
  std::vector<int64_t> bytes;
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t k = 0; k < numel; ++k) {
    int64_t offset = m.storage_offset.concrete();
    for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
    for (int64_t b = 0; b < size; ++b) bytes.push_back(offset * size + b);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  std::sort(bytes.begin(), bytes.end());
  return bytes;
}

}  // namespace

bool mayShareBytes(const TensorMeta& a, const TensorMeta& b) {
  if (numelOf(a) == 0 || numelOf(b) == 0) return false;
  const auto x = coveredBytes(a), y = coveredBytes(b);
  if (!x || !y) return true;
  for (size_t i = 0, j = 0; i < x->size() && j < y->size();) {
    if ((*x)[i] == (*y)[j]) return true;
    ((*x)[i] < (*y)[j]) ? ++i : ++j;
  }
  return false;
}

// Whether a tensor of `sizes` broadcasts to `to`'s sizes (as copy_ does).
bool broadcastsTo(const std::vector<int64_t>& sizes, const TensorMeta& to) {
  if (sizes.size() > to.sizes.size()) return false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const SymIntValue& want = to.sizes[to.sizes.size() - sizes.size() + i];
    if (sizes[i] != 1 && !(want.isConcrete() && want.concrete() == sizes[i])) return false;
  }
  return true;
}

int64_t elementCount(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool sameSizes(const std::vector<int64_t>& sizes, const TensorMeta& m) {
  if (sizes.size() != m.sizes.size()) return false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!m.sizes[i].isConcrete() || m.sizes[i].concrete() != sizes[i]) return false;
  }
  return true;
}

bool viewable(const TensorMeta& input, const SymIntList& shape) {
  std::optional<std::vector<int64_t>> old_shape = std::vector<int64_t>();
  std::vector<int64_t> new_shape, old_stride;
  for (const auto& [from, to] :
       {std::pair(&shape, &new_shape), std::pair(&input.strides, &old_stride), std::pair(&input.sizes, &*old_shape)}) {
    for (const auto& s : *from) {
      const auto at = atExample(s);  // Note [Layouts decided at the example]
      if (!at) return false;
      to->push_back(*at);
    }
  }
  if (old_stride.size() != old_shape->size()) return false;
  if (old_shape->empty()) return true;
  int64_t numel = 1;
  for (int64_t s : *old_shape) numel *= s;
  if (numel == 0) return true;
  // ATen's computeStride: walk the input's dims from the last, in chunks of dims that are
  // contiguous with each other, and match each chunk with whole dims of the new shape.
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_stride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape->size()) - 1; d >= 0; --d) {
    tensor_numel *= (*old_shape)[d];
    if (d == 0 || ((*old_shape)[d - 1] != 1 && old_stride[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_stride[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace epsmith
