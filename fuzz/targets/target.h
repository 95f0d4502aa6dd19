// What epsmith's libFuzzer targets share (fuzz/targets/README.md): a failure that stops
// the fuzzer with the input saved, and the op catalog built once per process.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/case_runner.h"
#include "generators/op_catalog.h"
#include "ir/program_diff.h"
#include "oracle/planted_fault.h"

#if defined(__SANITIZE_ADDRESS__)
#define EPSMITH_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EPSMITH_LSAN 1
#endif
#endif
#if EPSMITH_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace epsmith::fuzz_target {

// Note [Leaks of generated programs not checked]
// The targets that generate programs and run them (functionalizer, case) check memory
// errors and undefined behaviour, not leaks: running generated programs through LibTorch's
// autograd leaks by LibTorch's own reference cycles, which no suppression can name without
// hiding every tensor (LibTorch's frames are too few to match on). Two, met by the
// functionalizer target on 2.13 and reproduced in Python: aten::lift_fresh returns its
// argument and records history on it, so a parameter's grad_fn holds the parameter
// (`torch.ops.aten.lift_fresh(x).grad_fn` is x's own); and an in-place write into a tensor
// that an earlier node saved, with that node in the written value's history
// (`z = x ** y; y.copy_(z)`), leaves y reachable only from its own graph. The readers and
// the verifier keep LeakSanitizer on; the asan preset runs the test suite, the
// functionalizer's and the oracle's included, under ASan and UBSan (its leak checking off
// for the same reason).
class LeaksNotChecked {
#if EPSMITH_LSAN
  __lsan::ScopedDisabler disabled_;
#endif
};

// A property of the target does not hold: said on stderr, then abort(), which libFuzzer
// (and the standalone driver) report as a crash with the input that caused it.
[[noreturn]] inline void fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "epsmith %s: %s\n", target, what.c_str());
  std::abort();
}

// The catalog of the LibTorch at hand, built on first use (a second or so).
inline const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

// Sets the process up once as a campaign's worker is (prepareCaseProcess: one intra-op
// thread, so that no result depends on the machine's cores, and the allocator the re-runs
// fill through), with the faults that tests plant (Note [Planted faults]).
inline void prepareCaseProcessOnce() {
  static const bool prepared = (prepareCaseProcess(), installPlantedFaults(), true);
  (void)prepared;
}

// Note [Targets stop only on findings that come back]
// A generated program may call a kernel that reads memory it never wrote, and then a check
// that compares two runs reports a difference that is no bug of the check's
// (Note [Re-runs on a perturbed heap]). The functionalizer target stopped at such a D1
// mismatch (median.dim's indices over an input expanded along the reduced dimension, 2.13)
// that neither the saved program nor the same input run again showed. So a target, as a
// campaign does, stops on a finding only when it comes back every time (comesBackEveryTime)
// and says on standard error, and goes on, when it does not.
inline bool comesBack(const char* target, const ExportedProgram& p, const CheckOutcome& o) {
  if (comesBackEveryTime(p, {o.check}, Failing::of(o), Device{})) return true;
  std::fprintf(stderr, "epsmith %s: %s %s %s did not come back on every re-run (flaky): not a stop\n", target,
               std::string(diffCheckName(o.check)).c_str(), o.kind.c_str(), o.where.c_str());
  return false;
}

// The readers' property: `bytes` make a program or an error with a message, and a program
// read is written (`write`: program → Expected<std::string>) and read back equal.
template <typename Read, typename Write>
int readWriteReadBack(const char* target, std::string_view bytes, Read read, Write write) {
  auto p = read(bytes);
  if (!p.ok()) {
    if (p.error().message.empty()) fail(target, "an error with no message");
    return 0;
  }
  auto written = write(p.value());
  if (!written.ok()) fail(target, "read, but cannot be written: " + written.error().str());
  auto back = read(written.value());
  if (!back.ok()) fail(target, "written, but cannot be read back: " + back.error().str());
  if (auto d = programDiff(p.value(), back.value()); !d.empty()) fail(target, "read back differs: " + d);
  return 0;
}

}  // namespace epsmith::fuzz_target

// The libFuzzer entry point every target defines.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
