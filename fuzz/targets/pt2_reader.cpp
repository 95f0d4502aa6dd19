// libFuzzer target: bytes → the .pt2 archive reader (LibTorch's zip reader and unpickler)
// → a program or a located error; a program read is written and read back equal.
#include "fuzz/targets/target.h"
#include "oracle/pt2_archive.h"

using namespace epsmith;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz_target::readWriteReadBack(
      "pt2_reader", std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view bytes) { return readProgramPt2(std::string(bytes)); },
      [](const ExportedProgram& p) { return writeProgramPt2(p); });
}
