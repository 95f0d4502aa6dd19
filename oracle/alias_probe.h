// What an in-place or out= call computes where another of its arguments is the tensor it
// writes, found by running it once on small CPU tensors.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace epsmith {

// Note [In-place calls that read what they write]
// An in-place or out= call may read the tensor it writes through another argument too:
// masked_scatter_(x, mask, x) reads its source while it fills self, so eager's answer
// depends on the order its kernel goes in (an element filled early is read later as
// source), and linalg_solve_triangular.out(a, a, out=a) overwrites its triangle while it
// solves with it, where the functional form, and so a functionalized program, reads every
// argument before anything is written. TensorIterator's kernels take the very tensor they
// write as an input element by element (mul_(x, x) is x * x) and raise on any other
// overlap; masked_scatter_, index_copy_ and the linear algebra kernels read what they have
// written, and no schema says which an op is. So the call is run once with those arguments
// bound to the tensor it writes and once as its functional form on the same values: where
// the answers differ, epsmith's functionalizer refuses the call (D1 is skipped), and D2
// and D3, whose functional programs compute the functional form's answer, skip the
// program (Note [Writes eager leaves undefined]). An argument on the written tensor's
// storage in another layout, with bytes in common, is refused without a probe:
// TensorIterator raises there, so only a kernel that reads what it writes runs it.
//
// Where a tensor argument lies, as the caller tracks it: its storage (null: unknown), its
// metadata, and whether it certainly shares that storage (a maybe-view may be a copy).
struct ArgumentPlace {
  const void* storage = nullptr;
  const TensorMeta* meta = nullptr;
  bool certain = true;
};

// The arguments of in-place or out= `call` (`op`) other than the one it writes, at schema
// index `written`, that lie on the written tensor's storage: `aliased`, those in its very
// layout, for the probe below to decide; `other_layout`, the first in another layout with
// bytes in common, which is refused without a probe (both sure of their storage).
struct ReadsOfAWrite {
  std::vector<int> aliased;
  const Node* other_layout = nullptr;
};
ReadsOfAWrite readsOfAWrite(const Node& call, const OpInfo& op, int written,
                            const std::function<ArgumentPlace(const Node*)>& placeOf);

// Whether in-place or out= `call` (its tensor arguments carrying their metadata at the
// call) writes what its functional form computes when its arguments at the schema indices
// `aliased` are the tensor it writes. nullopt where the probe cannot tell. Cached per op,
// argument dtypes, sizes, literals and `aliased`.
std::optional<bool> probeAliasedWriteAgrees(const Node& call, const std::vector<int>& aliased);

}  // namespace epsmith
