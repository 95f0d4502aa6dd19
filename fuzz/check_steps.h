// What the differential checks share (checks.cpp, fuzz/checks/*.cpp): the context a check
// runs in, outcomes made from a verdict, runs and comparisons timed in their phase.
// Internal to fuzz/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/checks.h"
#include "fuzz/torch_checks.h"
#include "oracle/compare.h"
#include "oracle/run.h"

namespace epsmith::check_detail {

using Status = CheckOutcome::Status;

CheckOutcome pass(DiffCheck c);
CheckOutcome skip(DiffCheck c, std::string why);
CheckOutcome finding(DiffCheck c, std::string kind, std::string where, std::string report, std::string variant = "");
CheckOutcome fromVerdict(DiffCheck c, const Verdict& v);

// A run of `p`, timed as execution.
RunResult run(const ExportedProgram& p, const RunOptions& options, PhaseTimes* times);
// `expected` against `actual`, timed as comparison.
CheckOutcome compare(DiffCheck c, const RunResult& expected, const RunResult& actual, PhaseTimes* times,
                     const CompareOptions& options = {});
// `message` with the words that name nodes of `p` replaced by "NODE" (not the ops it calls),
// so that a root cause's template does not split by node name.
std::string withoutNodeNames(const std::string& message, const ExportedProgram& p);
// Run options of `mode` on `device`, with a plan the runs of one program share (or null).
RunOptions runOf(RunMode mode, const Device& device, const Interpreter* plan);

// D4's forms, in the order `epsmith check` tries them.
inline constexpr RoundTripForm kRoundTripForms[] = {RoundTripForm::Text, RoundTripForm::Json, RoundTripForm::Pt2};
// A D4 finding's variant ("text", "json", "pt2"), and with a dash its kind's first word
// ("text-unreadable", "json-round-trip-differs").
std::string_view roundTripVariant(RoundTripForm f);
std::string kindPrefix(RoundTripForm f);
// D1 and D2 compare a program's values with another computation of them
// (Note [Values compared at the precision they were computed in]).
CompareOptions atComputedPrecision(const ExportedProgram& p);

// What one check of a runChecks call runs with.
struct CheckContext {
  const ExportedProgram& program;
  const RunResult& eager;  // the program's eager run
  const CheckOptions& options;
  const Interpreter* plan;               // a plan the runs of the program share, or null
  const std::vector<DiffCheck>& checks;  // every check of the call
  std::optional<TorchAnswer> torch;      // asked at the first check that asks torch, for all
};
// The torch peer's answer for every check of the call, asked on first use.
const TorchAnswer& torchAnswer(CheckContext& context);

// Each row of fuzz/checks.def runs as runID, in fuzz/checks/ID.cpp, and focusID there sets
// the options that re-run only the variant of the check `finding` came from (a finding
// with a variant only; Note [Re-runs focus on the finding]).
#define EPSMITH_CHECK(ID, ...)                 \
  CheckOutcome run##ID(CheckContext& context); \
  void focus##ID(const CheckOutcome& finding, CheckOptions& options);
#include "fuzz/checks.def"

}  // namespace epsmith::check_detail
