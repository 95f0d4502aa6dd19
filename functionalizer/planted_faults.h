// Faults planted in the native functionalizer, for the tests that show a campaign files each
// bug of it as a root cause of its own.
#pragma once

#include <cstdint>

namespace epsmith::functionalizer {

// Note [Planted functionalizer faults]
// EPSMITH_FUNCTIONALIZER_FAULT is a comma-separated list of the faults below. Each makes the
// functionalizer wrong in one way D1 (eager against the functionalized program) sees as a
// value mismatch, so a test can ask whether a campaign keeps three bugs apart without
// depending on bugs of ours still existing. The variable is read once per process, before
// the first functionalization (forked workers inherit it), and every fault planted is
// reported on standard error so that no campaign runs with one unawares. Meant for tests.
enum class PlantedFault : uint8_t {
  AddSubtracts,       // "add-subtracts": add_ is lowered to sub
  MulOutDivides,      // "mul-out-divides": mul.out is lowered to div
  DiagonalWriteLost,  // "diagonal-write-lost": a write through a diagonal view never reaches its base
};

bool faultPlanted(PlantedFault f);

}  // namespace epsmith::functionalizer
