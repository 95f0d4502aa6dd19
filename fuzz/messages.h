// The one schema of what crosses a process boundary: a worker's requests and replies in a
// campaign, a forked child's answer (a check's outcome) in `epsmith check`, `minimize` and
// forked minimization steps, and a minimized finding (a campaign's worker's, `minimize`'s
// child's). Each record is a JSON object whose members are its own fields, so a finding's
// fields reach the parent as the check made them and nothing is read back out of a report.
// Strings that are not UTF-8 (a kernel's message may hold any bytes) are replaced, not
// refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/case_runner.h"
#include "fuzz/checks.h"
#include "fuzz/failing.h"
#include "ir/diagnostic.h"
#include "minimizer/minimize.h"

namespace epsmith {

// What a campaign asks a worker: run the case of `seed`, or minimize `failing`, found in it.
struct WorkRequest {
  enum class Type : uint8_t { Case, Minimize };
  Type type = Type::Case;
  uint64_t seed = 0;
  std::optional<Failing> failing;  // Minimize
  bool fork_steps = false;         // Minimize: Note [Minimizing in forked steps]
};

std::string writeRequest(const WorkRequest& r);
std::string writeCaseReply(const CaseResult& r);
std::string writeMinimizeReply(const MinimizedFinding& m);
std::string writeOutcome(const CheckOutcome& o);

// The minimizer's eager steps each in a forked child under `limits`, the candidate coming
// back as JSON (Note [Minimizing in forked steps]).
StepRunner eagerStepsInChildren(const WorkerLimits& limits);

// The readers take what the writers above wrote (both ends are this binary); anything else
// is a Diagnostic at the member's JSON path.
Expected<WorkRequest> readRequest(std::string_view text);
Expected<CaseResult> readCaseReply(std::string_view text);
Expected<MinimizedFinding> readMinimizeReply(std::string_view text);
Expected<CheckOutcome> readOutcome(std::string_view text);

}  // namespace epsmith
