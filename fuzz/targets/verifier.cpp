// libFuzzer target: bytes → a program (JSON when the first significant byte is '{', else
// the text form) → verified in both dialects; never a crash, and the first violation of
// a full run is the one a first-only run reports.
#include "fuzz/fuzz_inputs.h"
#include "fuzz/targets/target.h"
#include "verifier/verifier.h"

using namespace epsmith;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto p = fuzzInputProgram(FuzzTarget::Verifier, bytes, fuzz_target::catalog());
  if (!p.ok()) return 0;
  for (const char* name : {"TRAINING", "ATEN"}) {
    const auto all = verify(p.value(), *findDialect(name));
    VerifyOptions first_only;
    first_only.first_only = true;
    const auto one = verify(p.value(), *findDialect(name), first_only);
    if (all.empty() != one.empty() || (!all.empty() && all.front().str() != one.front().str())) {
      fuzz_target::fail("verifier", std::string(name) + ": the first violation depends on first_only");
    }
  }
  return 0;
}
