// What a minimization, replay or a re-run keeps failing, as typed fields (written and read
// by fuzz/messages.h).
#pragma once

#include <optional>
#include <string>

#include "fuzz/checks.h"
#include "fuzz/workers.h"

namespace epsmith {

// What a minimization keeps failing: a check's finding, or what killed a worker.
struct Failing {
  std::string check;                    // "D2"; for a death outside every check, its phase ("generate")
  std::string signature;                // what must stay the same: failureSignature or deathSignature
  std::optional<CheckOutcome> finding;  // a check's finding: its variant focuses the re-runs
  std::optional<WorkerDeath> crash;     // a death's kind and op
  // The message template that must stay the same too (Note [Root causes]); "" for a
  // failure recorded without one (a case file's), which any message matches.
  std::string message;

  static Failing of(const CheckOutcome& finding);
  static Failing of(const WorkerDeath& death);
  // Whether a check's finding `now` is this failure: its signature and its template.
  bool matches(const CheckOutcome& now) const;
};

// Options that re-run the checks the way `f` was found (Note [Re-runs focus on the finding]).
CheckOptions focusedOn(const Failing& f);

// The signature of a failure that killed a worker: "D2 crash-SIGSEGV aten::foo.default".
std::string deathSignature(const WorkerDeath& d);

}  // namespace epsmith
