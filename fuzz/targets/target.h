// What epsmith's libFuzzer targets share (fuzz/targets/README.md): a failure that stops
// the fuzzer with the input saved, and the op catalog built once per process.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "generators/op_catalog.h"
#include "ir/program_diff.h"

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
