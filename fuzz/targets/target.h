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

namespace epsmith::fuzz_target {

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
