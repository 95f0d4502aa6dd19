// D6: each corruption with a place in the program is reported first with its own check id.
#include "fuzz/check_steps.h"

#include <optional>
#include <string>
#include <utility>

#include "generators/corruptions.h"
#include "verifier/verifier.h"

namespace epsmith::check_detail {

namespace {

// Note [Corruptions drawn per case]
// A program of 16 ops has a place for about 30 of the corruptions, and each costs a
// verification and an undo (Note [Corruptions undone]): run them all and D6 alone takes
// longer than everything else a case does. The verifier's answer to a corruption depends on the
// program's shape, not on which other corruptions were tried, so a campaign case tries a
// few (`limit`) in an order drawn from its seed, and over a campaign every corruption is
// still applied to thousands of programs. `epsmith check` tries every corruption with a
// place, in check-id order; minimization and replay try the one the finding names
// (Note [Re-runs focus on the finding]).
CheckOutcome d6(const ExportedProgram& p, uint64_t seed, int limit, std::optional<CheckId> only, PhaseTimes* times) {
  PhaseClock clock(times, Phase::Verify);
  std::string tried;  // the check ids, for the pass's report
  std::optional<CheckOutcome> found;
  const int applied = eachCorruption(p, seed, limit, only, [&](const ExportedProgram& work, const Corruption& c) {
    auto diagnostics = verify(work);
    const std::string want(checkIdName(c.check));
    tried += (tried.empty() ? "" : " ") + want;
    if (diagnostics.empty()) {
      found = finding(DiffCheck::D6, "corruption-unreported:" + want, "",
                      std::string(c.what) + ": the verifier accepts it", want);
    } else if (diagnostics.front().check != c.check) {
      found = finding(DiffCheck::D6, "corruption-misreported:" + want, diagnostics.front().where,
                      std::string(c.what) + ": reported first as " + diagnostics.front().str(), want);
    }
    return !found;
  });
  if (found) return std::move(*found);
  if (applied == 0) return skip(DiffCheck::D6, "no corruption has a place in this program");
  CheckOutcome o = pass(DiffCheck::D6);
  o.report = std::to_string(applied) + " corruptions, each reported first with its own check id: " + tried;
  return o;
}

}  // namespace

CheckOutcome runD6(CheckContext& c) {
  const CheckOptions& o = c.options;
  return d6(c.program, o.case_seed, o.corruptions_per_case, o.corruption, o.times);
}

void focusD6(const CheckOutcome& finding, CheckOptions& options) {
  if (!finding.variant.empty()) options.corruption = checkIdFromName(finding.variant);
}

}  // namespace epsmith::check_detail
