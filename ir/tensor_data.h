// Tensor payloads carried inside a program file (state dict, constants, example inputs):
// a typed storage shared between tensors that alias, and a strided view of it.
// LibTorch-free; ir/aten_bridge.h converts to and from at::Tensor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/enums.h"

namespace epsmith {

// Raw element bytes of one storage, little-endian as in memory. Tensors that alias share a
// Storage (the same shared_ptr), which the file formats preserve.
struct Storage {
  ScalarType dtype = ScalarType::Float;
  std::vector<uint8_t> bytes;
  int64_t numel() const {
    auto size = elementSize(dtype);
    return size ? static_cast<int64_t>(bytes.size()) / size : 0;
  }
};

struct TensorValue {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
  bool requires_grad = false;

  ScalarType dtype() const { return storage ? storage->dtype : ScalarType::Unknown; }
  int64_t numel() const;
  // Elements of the storage this view may touch: 0 when numel() is 0, else
  // 1 + offset + sum((size-1)*stride).
  int64_t requiredStorageElements() const;
  // Why this view does not fit its storage (negative stride or offset, out of bounds,
  // rank mismatch), or nullopt when it does.
  std::optional<std::string> checkBounds() const;
  // A contiguous tensor with a fresh zero-filled storage.
  static TensorValue zeros(ScalarType dtype, std::vector<int64_t> sizes);
};

// A flat user input value: a tensor or a Python scalar.
struct InputValue {
  enum class Kind : uint8_t { Tensor, Int, Float, Bool, None };
  Kind kind = Kind::None;
  TensorValue tensor;
  int64_t i = 0;
  double f = 0;
  bool b = false;
};

}  // namespace epsmith
