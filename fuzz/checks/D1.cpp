// D1: eager(original) vs the native functionalizer's ATEN program, run in the exported
// calling convention.
#include "fuzz/check_steps.h"

#include <optional>

#include "functionalizer/functionalize.h"
#include "verifier/verifier.h"

namespace epsmith::check_detail {

namespace {

CheckOutcome d1(const ExportedProgram& p, const RunResult& eager, const Device& device, PhaseTimes* times) {
  std::optional<Expected<ExportedProgram>> f;
  {
    PhaseClock clock(times, Phase::Functionalize);
    FunctionalizeOptions options;
    // runChecks verified it in its own dialect before any check ran.
    options.verified_as_training = p.verifiers.size() == 1 && p.verifiers[0] == "TRAINING";
    f = functionalize(p, options);
  }
  if (!f->ok()) return skip(DiffCheck::D1, "the functionalizer refuses it: " + f->error().str());
  std::vector<Violation> diagnostics;
  {
    PhaseClock clock(times, Phase::Verify);
    diagnostics = verify(f->value(), *findDialect("ATEN"));
  }
  if (!diagnostics.empty()) {
    CheckOutcome o = finding(DiffCheck::D1, "invalid-functional-program", diagnostics.front().where,
                             "the functionalized program does not verify as ATEN: " + diagnostics.front().str());
    o.message = std::string(checkIdName(diagnostics.front().check));
    return o;
  }
  return compare(DiffCheck::D1, eager, run(f->value(), RunOptions(RunMode::Exported, device), times), times,
                 atComputedPrecision(p));
}

}  // namespace

CheckOutcome runD1(CheckContext& c) { return d1(c.program, c.eager, c.options.device, c.options.times); }

void focusD1(const CheckOutcome&, CheckOptions&) {}  // it has no variants

}  // namespace epsmith::check_detail
