// The first failure of some checks on a program, minimized out of harm's way
// (Note [Minimizing out of harm's way]): what `epsmith minimize` prints and
// `epsmith import-crash` files as a corpus case.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/checks.h"
#include "fuzz/failing.h"
#include "fuzz/workers.h"
#include "minimizer/minimize.h"

namespace epsmith::cli {

struct MinimizedFailure {
  Failing failing;
  MinimizeResult result;
};

// Finds the first failure of `checks` on `p` in a child and minimizes `p` while it still
// fails so, each step asking its check alone; the steps go to `log`. Nothing, with `why`
// set, when no check finds anything (`why` empty) or the minimization died.
std::optional<MinimizedFailure> minimizeFirstFailure(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                                     const WorkerLimits& limits, int max_calls, std::ostream& log,
                                                     std::string* why);

}  // namespace epsmith::cli
