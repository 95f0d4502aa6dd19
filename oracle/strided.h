// Walking the elements of strided tensors in index (row-major) order, by their element
// offsets, with no dispatched op: the comparator and the generator's screens read small
// results where a loop costs less than the few dispatched ops (and copies) it replaces.
#pragma once

#include <c10/util/ArrayRef.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace epsmith {

// Calls f(offsets) for every index of `sizes` in row-major order, where offsets[k] is the
// element offset of that index under strides[k] (one stride list per tensor, each as long
// as `sizes`); stops early when f returns false. Returns whether it went through.
template <size_t N, typename F>
bool forEachElementOffset(c10::IntArrayRef sizes, const std::array<c10::IntArrayRef, N>& strides, F&& f) {
  const size_t rank = sizes.size();
  for (int64_t s : sizes) {
    if (s == 0) return true;
  }
  constexpr size_t kInlineRank = 8;
  int64_t inline_index[kInlineRank] = {};
  std::unique_ptr<int64_t[]> heap_index;
  int64_t* index = inline_index;
  if (rank > kInlineRank) {
    heap_index.reset(new int64_t[rank]());
    index = heap_index.get();
  }
  std::array<int64_t, N> offsets{};
  for (;;) {
    if (!f(static_cast<const std::array<int64_t, N>&>(offsets))) return false;
    size_t d = rank;
    for (; d > 0; --d) {
      const size_t k = d - 1;
      if (++index[k] < sizes[k]) {
        for (size_t t = 0; t < N; ++t) offsets[t] += strides[t][k];
        break;
      }
      for (size_t t = 0; t < N; ++t) offsets[t] -= strides[t][k] * (sizes[k] - 1);
      index[k] = 0;
    }
    if (d == 0) return true;
  }
}

// Calls f(offset) with the element offset of every element of a strided tensor's sizes and
// strides, in index order, and stops early when f returns false; returns whether it went
// through (a candidate's small result is read by a loop that costs less than the few
// dispatched ops it replaces).
template <typename Tensor, typename F>
bool everyElement(const Tensor& t, F&& f) {
  return forEachElementOffset<1>(t.sizes(), {t.strides()}, [&](const std::array<int64_t, 1>& at) { return f(at[0]); });
}

}  // namespace epsmith
