// The first failure of some checks on a program, minimized out of harm's way
// (Note [Minimizing out of harm's way]): what `epsmith minimize` prints (or files with
// --corpus) and `epsmith import-crash` files as a corpus case.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/case_runner.h"
#include "fuzz/corpus.h"
#include "fuzz/checks.h"
#include "fuzz/failing.h"
#include "fuzz/workers.h"

namespace epsmith::cli {

struct MinimizedFirstFailure {
  Failing failing;             // as first found
  MinimizedFinding minimized;  // through the campaign's driver; its program is set
};

// Finds the first failure of `checks` on `p` in a child and minimizes `p` while it still
// fails so, as a campaign minimizes a finding (CaseRunner::minimizeProgram), at most
// `max_calls` oracle calls; the steps go to `log`. Nothing, with `why` set, when no check
// finds anything (`why` empty), the finding did not come back on its re-runs (flaky) or
// the minimization died.
std::optional<MinimizedFirstFailure> minimizeFirstFailure(const ExportedProgram& p,
                                                          const std::vector<DiffCheck>& checks,
                                                          const WorkerLimits& limits, int max_calls, std::ostream& log,
                                                          std::string* why);

// The case file of a minimized failure, as a campaign files a new root cause
// (Campaign::fileCase), status open, with `note` saying where it came from.
CaseFile caseOfMinimized(MinimizedFirstFailure m, std::string note);

}  // namespace epsmith::cli
