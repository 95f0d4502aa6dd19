// Tensor geometry read from a TensorMeta alone, as ATen computes it: contiguity, element
// counts, self-overlap, bytes two layouts may share. What the functionalizer plans views
// with and the harness reads a program's aliasing with (fuzz/aliases.h), so that neither
// judges with the other's internals. No LibTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/meta.h"

namespace epsmith {

// Whether a tensor of these sizes/strides can be viewed with `shape` without a copy
// (ATen's computeStride), i.e. whether reshape would alias.
bool viewable(const TensorMeta& input, const SymIntList& shape);
// is_contiguous for the contiguous memory format.
bool isContiguous(const TensorMeta& m);
// ATen's is_non_overlapping_and_dense: contiguous up to a permutation of the dims.
bool isNonOverlappingAndDense(const TensorMeta& m);
// Element count, -1 when a size is symbolic.
int64_t numelOf(const TensorMeta& m);
// Whether an out= resize from `before` to `after` keeps the storage (eager reallocates only
// to grow) and lands in a contiguous prefix of it.
bool shrinksInPlace(const TensorMeta& before, const TensorMeta& after);
bool sameSizes(const std::vector<int64_t>& sizes, const TensorMeta& m);
// The sizes, nullopt when one is symbolic.
std::optional<std::vector<int64_t>> concreteSizes(const TensorMeta& m);
// Whether some elements share memory, as ATen's has_internal_overlap answers Yes.
bool overlapsItself(const TensorMeta& m);
// Whether two tensors on one storage may have bytes in common: counted exactly where both
// layouts are concrete and small, true otherwise.
bool mayShareBytes(const TensorMeta& a, const TensorMeta& b);

// Whether a tensor of `sizes` broadcasts to `to`'s sizes (as copy_ does).
bool broadcastsTo(const std::vector<int64_t>& sizes, const TensorMeta& to);
int64_t elementCount(const std::vector<int64_t>& sizes);

}  // namespace epsmith
