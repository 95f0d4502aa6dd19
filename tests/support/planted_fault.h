// Switches on, for the whole test binary that includes it, the planted faults its finding
// tests rely on (Note [Planted faults]): LibTorch's functionalization of logical_not_ raises,
// that of polygamma_ dies of SIGSEGV, polygamma's CPU kernel reads past its input, and
// special_zeta's CUDA kernel is off by one (the generators never call polygamma or
// special_zeta, so generated programs are untouched by the last three).
#pragma once

#include <cstdlib>

namespace epsmith::testing {

inline constexpr const char* kPlantedFaults =
    "aten::logical_not_,crash:aten::polygamma_,overread:aten::polygamma,cuda:aten::special_zeta";
// Set before main(), so before any functionalized run installs the faults.
inline const bool kFaultsPlanted = ::setenv("EPSMITH_PLANTED_FAULT", kPlantedFaults, 1) == 0;

}  // namespace epsmith::testing
