// The dtypes a call returns, found by running it once on meta tensors (no data, no kernels):
// what the functionalizer needs to know whether an in-place or out= op's functional variant
// must be cast back to the written tensor's dtype (eager casts on write; `add` of float32 and
// float64 gives float64, `add_` into float32 stays float32).
#pragma once

#include <optional>
#include <vector>

#include "ir/enums.h"
#include "ir/graph.h"

namespace epsmith {

// The dtype of each return of `call` (an ATen call_function node whose tensor arguments all
// carry tensor `meta.val`), or nullopt when the call cannot be probed (symbolic sizes, a
// kernel without a meta implementation that also fails on empty CPU tensors). Results are
// cached per op and argument dtypes/literals, so repeated shapes of calls cost one lookup.
std::optional<std::vector<ScalarType>> probeReturnDtypes(const Node& call);

// Dtype and sizes of each return, cached per op, argument dtypes, sizes and literals: for
// out= calls, whose functional form may make a shape that eager broadcasts into `out`
// (slice_copy.out in 1.13) rather than resizing it.
struct ProbedReturn {
  ScalarType dtype;
  std::vector<int64_t> sizes;
};
std::optional<std::vector<ProbedReturn>> probeReturns(const Node& call);

}  // namespace epsmith
