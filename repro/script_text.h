// The fixed parts of a reproducer script: how each path runs the module, and PyTorch's fp64
// rule for telling a real numeric difference from rounding.
#pragma once

#include <string>
#include <string_view>

#include "repro/python_repro.h"

namespace epsmith::repro_text {

// The `make()` helpers that build tensors from values written inline: `tensor(values, dtype,
// size, stride, ...)`, or with `shared`, `storage(values, dtype)` and `view(s, size, stride,
// ...)`; with `ref`, they widen floating tensors to float64 for the fp64 rule.
std::string tensorHelpers(bool ref, bool shared);
// `run()`, `same()` and `show()`: running a path, comparing with the fp64 rule.
extern const std::string_view kCompare;
// `run()` of a script that looks for an exception: what the path raised, or None.
extern const std::string_view kRunForAnException;
// The function `path(m, args)` of each path: (outputs, state after), or with
// `an_exception` the outputs alone (Note [Scripts name the step that raised]); and the guard
// that says the path cannot run here ("" when it always can).
// `preserved`: the submodule whose call signature the export preserves ("" for none);
// `dims`: the lines that make the export's Dims and `dynamic_shapes`, the Python of that
// argument ("" for none; Note [Symbolic sizes in scripts]).
struct ExportArguments {
  std::string preserved;
  std::string dims;
  std::string dynamic_shapes;
};
std::string pathFunction(ReproPath path, bool an_exception, const ExportArguments& export_arguments);
std::string_view pathGuard(ReproPath path);
// After eager's run: a release without an op the program calls cannot run the script
// (Note [A script on a release without its op]).
extern const std::string_view kOpGuard;
// The end of `main()`, after the runs, and the entry point.
extern const std::string_view kMain;
// `name_step`: say which line of a path of several steps raised.
// Note [Scripts name the step that raised]
std::string mainForAnException(bool name_step);
// Whether a path runs in several steps a script names (torch.export.export, then ...).
bool pathHasSteps(ReproPath path);

}  // namespace epsmith::repro_text
