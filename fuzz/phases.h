// Where a campaign's time goes: the phases of a case (docs/design.md's data flow) and a clock
// that charges a scope to one of them.
#pragma once

#include <array>
#include <string_view>

#include "oracle/op_time.h"

namespace epsmith {

// Torch: waiting on the torch peer (D5, D7, D8). Minimize stays last: the others are a case's.
enum class Phase : uint8_t { Generate, Verify, Functionalize, Execute, Compare, Torch, Minimize };
constexpr int kNumPhases = 7;
constexpr std::string_view kPhaseNames[kNumPhases] = {"generate", "verify", "functionalize", "execute",
                                                      "compare",  "torch",  "minimize"};

struct PhaseTimes {
  std::array<double, kNumPhases> seconds{};
  // Of that time, the part spent inside ATen kernels, in whichever phase (oracle/op_time.h).
  double in_ops = 0;
  double& operator[](Phase p) { return seconds[static_cast<size_t>(p)]; }
  double total() const {
    double t = 0;
    for (double s : seconds) t += s;
    return t;
  }
  void add(const PhaseTimes& o) {
    for (size_t i = 0; i < seconds.size(); ++i) seconds[i] += o.seconds[i];
    in_ops += o.in_ops;
  }
};

// Charges the time until the end of the scope to `phase` (nothing when `times` is null).
class PhaseClock : public ScopedSeconds {
 public:
  PhaseClock(PhaseTimes* times, Phase phase) : ScopedSeconds(times ? &(*times)[phase] : nullptr) {}
};

}  // namespace epsmith
