// libFuzzer target: fuzzer bytes drive the generator (a ByteSource) → a TRAINING program of
// up to 8 calls → D1: the native functionalizer's result verifies as ATEN and runs like
// eager (a refusal is a skip). A program whose D1 finding comes back on every re-run is
// written to the working directory as `epsmith-functionalizer-<pid>.json`, which `epsmith
// check` reads, before the abort.
#include <unistd.h>

#include "fuzz/checks.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/targets/target.h"
#include "oracle/program_io.h"

using namespace epsmith;

namespace {

[[noreturn]] void failWith(const ExportedProgram& p, const std::string& what) {
  const std::string path = "epsmith-functionalizer-" + std::to_string(::getpid()) + ".json";
  const auto error = saveProgram(path, p);
  fuzz_target::fail("functionalizer",
                    what + (error ? " (not saved: " + error->str() + ")" : " (saved as " + path + ")"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz_target::prepareCaseProcessOnce();
  [[maybe_unused]] const fuzz_target::LeaksNotChecked leaks;  // Note [Leaks of generated programs not checked]
  auto p = fuzzInputProgram(FuzzTarget::Functionalizer, bytes, fuzz_target::catalog());
  if (!p.ok()) return 0;
  const auto outcomes = runChecks(p.value(), checksRun(FuzzTarget::Functionalizer));
  const CheckOutcome* o = firstFinding(outcomes);
  // Note [Targets stop only on findings that come back]
  if (o && fuzz_target::comesBack("functionalizer", p.value(), *o)) {
    failWith(p.value(), "D1 " + o->kind + " " + o->where + ": " + o->report);
  }
  return 0;
}
