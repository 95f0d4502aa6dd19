// Bounds arithmetic for tensor payloads.
#include "ir/tensor_data.h"

#include <cstdint>

namespace epsmith {

// Both saturate at INT64_MAX instead of overflowing, so hostile sizes read as "too large".
int64_t TensorValue::numel() const {
  __int128 n = 1;
  for (auto s : sizes) {
    n *= s;
    if (n > INT64_MAX || n < 0) return n < 0 ? 0 : INT64_MAX;
  }
  return static_cast<int64_t>(n);
}

int64_t TensorValue::requiredStorageElements() const {
  __int128 extent = storage_offset;
  for (size_t i = 0; i < sizes.size() && i < strides.size(); ++i) {
    if (sizes[i] == 0) return 0;
    extent += static_cast<__int128>(sizes[i] - 1) * strides[i];
    if (extent > INT64_MAX - 1) return INT64_MAX;
  }
  return static_cast<int64_t>(extent + 1);
}

std::optional<std::string> TensorValue::checkBounds() const {
  if (!storage) return "tensor has no storage";
  if (sizes.size() != strides.size()) {
    return "tensor has " + std::to_string(sizes.size()) + " sizes but " + std::to_string(strides.size()) + " strides";
  }
  if (storage_offset < 0) return "negative storage offset " + std::to_string(storage_offset);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) return "negative size " + std::to_string(sizes[i]) + " in dim " + std::to_string(i);
    if (strides[i] < 0) return "negative stride " + std::to_string(strides[i]) + " in dim " + std::to_string(i);
    if (sizes[i] > (int64_t{1} << 40))
      return "size " + std::to_string(sizes[i]) + " too large in dim " + std::to_string(i);
  }
  auto need = requiredStorageElements();
  if (need > storage->numel()) {
    return "view needs " + std::to_string(need) + " storage elements but the storage has " +
           std::to_string(storage->numel());
  }
  return std::nullopt;
}

TensorValue TensorValue::zeros(ScalarType dtype, std::vector<int64_t> sizes) {
  TensorValue t;
  t.sizes = std::move(sizes);
  t.strides.resize(t.sizes.size());
  int64_t running = 1;
  for (size_t i = t.sizes.size(); i-- > 0;) {
    t.strides[i] = running;
    running *= std::max<int64_t>(t.sizes[i], 1);
  }
  t.storage = std::make_shared<Storage>();
  t.storage->dtype = dtype;
  t.storage->bytes.assign(static_cast<size_t>(t.numel() * elementSize(dtype)), 0);
  return t;
}

}  // namespace epsmith
