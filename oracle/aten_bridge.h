// Conversions between the IR's LibTorch-free values (TensorValue, ScalarType, Layout,
// MemoryFormat, Device) and ATen's. Tensors that share an IR Storage come out sharing one
// ATen storage, so aliasing in a program file is aliasing at run time.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <memory>
#include <unordered_map>

#include "ir/meta.h"
#include "ir/tensor_data.h"

namespace c10 {
struct IValue;
}

namespace epsmith {

c10::ScalarType toAten(ScalarType t);  // throws std::invalid_argument for dtypes this LibTorch lacks
ScalarType fromAten(c10::ScalarType t);
c10::Layout toAten(Layout l);
c10::MemoryFormat toAten(MemoryFormat m);
c10::Device toAten(const Device& d);

// Materialises IR tensors; one instance per run keeps aliasing between them.
class TensorMaterializer {
 public:
  // Tensors are created on `device` (each storage is copied there once, so aliasing holds).
  explicit TensorMaterializer(c10::Device device = c10::Device(c10::kCPU)) : device_(device) {}
  c10::Device device() const { return device_; }
  // Note [Over-reads see a fill]
  // With a fill byte (0 to 255; -1: none), each CPU storage is allocated with room after
  // its end holding that byte, while the storage keeps its own size: a kernel that reads
  // past the storage (nanmedian.dim of a stride-0 input does in 1.13) reads the fill, so
  // runs with different fills tell such a kernel apart from a deterministic one.
  void setOverreadFill(int fill) { overread_fill_ = fill; }
  // A fresh tensor with the value's bytes, sizes, strides and offset; requires_grad set
  // on it as a leaf. Values sharing a Storage share the ATen storage.
  at::Tensor materialize(const TensorValue& v);

 private:
  c10::Device device_;
  int overread_fill_ = -1;
  std::unordered_map<const Storage*, at::Tensor> bases_;
};

// What t.clone() makes, without the dispatcher where that is a byte copy: a CPU strided
// tensor whose elements fill one block of memory (non-overlapping and dense), that autograd
// does not track and that has no conjugate, negative or zero bit is copied as clone copies
// it (same sizes and strides, into a fresh storage) with one memcpy; anything else goes
// through t.clone(). (The generator copies the arguments a candidate writes, every time.)
at::Tensor cloneOf(const at::Tensor& t);

// A flat user input as a run takes it: a tensor materialized by `m`, or the scalar.
c10::IValue inputIValue(const InputValue& v, TensorMaterializer& m);

// The inverse, for generators and minimizers: a CPU tensor's storage and view.
TensorValue toTensorValue(const at::Tensor& t);
// The same, where tensors sharing an ATen storage must come out sharing one Storage (the
// example inputs of a .pt2): one memo per set of tensors, keyed by the ATen storage.
using StorageMemo = std::unordered_map<const void*, std::shared_ptr<Storage>>;
TensorValue toTensorValue(const at::Tensor& t, StorageMemo& memo);
// The tensor's metadata as meta.val records it (dtype, sizes, strides, offset, requires_grad).
TensorMeta tensorMetaOf(const at::Tensor& t);

// A warning handler that drops everything: candidates and checks provoke LibTorch's
// deprecation warnings (out= resizes, say) by the hundred, and they say nothing about the
// programs. The generator installs it while it runs; campaign workers for good.
c10::WarningHandler* silentWarningHandler();

}  // namespace epsmith
