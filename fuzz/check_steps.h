// The steps the differential checks share (checks.cpp, torch_checks.cpp): outcomes made
// from a verdict, runs and comparisons timed in their phase. Internal to fuzz/.
#pragma once

#include <string>

#include "fuzz/checks.h"
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

}  // namespace epsmith::check_detail
