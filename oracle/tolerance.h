// Tolerances of the comparator (oracle/compare.h), without LibTorch: the fuzz loop's
// root-cause header says what precision a value was computed in, and so includes this
// rather than compare.h, which LibTorch's headers come with.
#pragma once

#include "ir/enums.h"

namespace epsmith {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// torch.testing.assert_close's defaults: exact for integers and bool.
Tolerance defaultTolerance(ScalarType dtype);

// What a value was computed in: the least precise floating dtype its computation read, and
// how many calls rounded a result to it
// (Note [Values compared at the precision they were computed in], oracle/compare.h).
struct ComputedIn {
  ScalarType dtype;
  int roundings = 1;
};
inline constexpr int kMostRoundingsTolerated = 4;
// `dtype`'s tolerance times `roundings`, at most kMostRoundingsTolerated times.
Tolerance toleranceAfter(const ComputedIn& c);

}  // namespace epsmith
