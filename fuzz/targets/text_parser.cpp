// libFuzzer target: bytes → the text form's parser → a program or a located error; a
// program parsed is printed and parsed back equal.
#include "formats/text_format.h"
#include "fuzz/targets/target.h"

using namespace epsmith;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz_target::readWriteReadBack(
      "text_parser", std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view text) { return parseProgramText(text); },
      [](const ExportedProgram& p) { return Expected<std::string>(printProgramText(p)); });
}
