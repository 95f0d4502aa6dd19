// The fixed parts of a reproducer script: how each path runs the module, and PyTorch's fp64
// rule for telling a real numeric difference from rounding.
#pragma once

#include <string_view>

#include "repro/python_repro.h"

namespace epsmith::repro_text {

// The `make()` helpers that build tensors from values written inline; with `ref`, the
// helper widens floating tensors to float64 for the fp64 rule.
extern const std::string_view kTensorHelpers;
extern const std::string_view kTensorHelpersWithoutRef;
// `run()`, `same()` and `show()`: running a path, comparing with the fp64 rule.
extern const std::string_view kCompare;
// `run()` of a script that looks for an exception: what the path raised, or None.
extern const std::string_view kRunForAnException;
// The function `path(m, args)` of each path: (outputs, state after), and the guard that
// says the path cannot run here ("" when it always can).
std::string_view pathFunction(ReproPath path);
std::string_view pathGuard(ReproPath path);
// The end of `main()`, after the runs, and the entry point.
extern const std::string_view kMain;
extern const std::string_view kMainForAnException;

}  // namespace epsmith::repro_text
