// libFuzzer target: fuzzer bytes → one campaign case with every check that runs in the
// process (D1, D2, D4, D6; D3 and D9 where CUDA and NativeRT are). A finding of a check that
// tests epsmith itself (D1, D4, D6), a check that fails to check (an exception escaping it,
// a generated program that does not verify) stops the fuzzer; D2's, D3's and D9's findings
// are LibTorch's and counted by campaigns, not here. A finding stops it only when it comes
// back on every re-run.
#include <algorithm>

#include "fuzz/checks.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/targets/target.h"

using namespace epsmith;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_target::prepareCaseProcessOnce();
  [[maybe_unused]] const fuzz_target::LeaksNotChecked leaks;  // Note [Leaks of generated programs not checked]
  auto p = fuzzInputProgram(FuzzTarget::Case, std::string_view(reinterpret_cast<const char*>(data), size),
                            fuzz_target::catalog());
  if (!p.ok()) return 0;
  CheckOptions options;
  options.case_seed = size;  // D4's form and D6's corruptions, drawn from it
  options.corruptions_per_case = 4;
  const std::vector<DiffCheck> ours = checksHeldTo(FuzzTarget::Case);
  for (const CheckOutcome& o : runChecks(p.value(), checksRun(FuzzTarget::Case), options)) {
    if (o.status != CheckOutcome::Status::Finding) continue;
    const bool held = std::find(ours.begin(), ours.end(), o.check) != ours.end();
    if (!held && o.kind != "escaped-exception" && o.kind != "invalid-program") continue;
    // Note [Targets stop only on findings that come back]
    if (fuzz_target::comesBack("case", p.value(), o)) {
      fuzz_target::fail("case", std::string(diffCheckName(o.check)) + " " + o.kind + " " + o.where + ": " + o.report);
    }
  }
  return 0;
}
