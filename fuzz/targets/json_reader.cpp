// libFuzzer target: bytes → torch.export JSON reader → a program or a located error; a
// program read is written and read back equal.
#include "formats/json_format.h"
#include "fuzz/targets/target.h"

using namespace epsmith;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz_target::readWriteReadBack(
      "json_reader", std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view text) { return readProgramJson(text); },
      [](const ExportedProgram& p) { return writeProgramJson(p, JsonLayout::Compact); });
}
