// The libFuzzer targets' inputs as programs; see fuzz_inputs.h.
#include "fuzz/fuzz_inputs.h"

#include "formats/json_format.h"
#include "formats/text_format.h"
#include "generators/graph_generator.h"
#include "generators/random_source.h"
#include "oracle/pt2_archive.h"

namespace epsmith {

std::string_view fuzzTargetName(FuzzTarget t) {
  switch (t) {
    case FuzzTarget::JsonReader: return "json_reader";
    case FuzzTarget::TextParser: return "text_parser";
    case FuzzTarget::Pt2Reader: return "pt2_reader";
    case FuzzTarget::Verifier: return "verifier";
    case FuzzTarget::Functionalizer: return "functionalizer";
    case FuzzTarget::Case: return "case";
  }
  return "?";
}

std::optional<FuzzTarget> fuzzTargetFromName(std::string_view name) {
  for (FuzzTarget t : kAllFuzzTargets) {
    if (fuzzTargetName(t) == name) return t;
  }
  return std::nullopt;
}

bool generatesFromBytes(FuzzTarget t) { return t == FuzzTarget::Functionalizer || t == FuzzTarget::Case; }

Expected<ExportedProgram> fuzzInputProgram(FuzzTarget t, std::string_view bytes, const OpCatalog& catalog) {
  switch (t) {
    case FuzzTarget::JsonReader: return readProgramJson(bytes);
    case FuzzTarget::TextParser: return parseProgramText(bytes);
    case FuzzTarget::Pt2Reader: return readProgramPt2(std::string(bytes));
    case FuzzTarget::Verifier: {
      const size_t first = bytes.find_first_not_of(" \t\r\n");
      return first != std::string_view::npos && bytes[first] == '{' ? readProgramJson(bytes) : parseProgramText(bytes);
    }
    case FuzzTarget::Functionalizer:
    case FuzzTarget::Case: {
      ByteSource random(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      GeneratorConfig config;
      if (t == FuzzTarget::Functionalizer) config.nodes = 8;
      return generateProgram(catalog, config, random);
    }
  }
  return Diagnostic{"", "unknown fuzz target"};
}

std::vector<DiffCheck> checksRun(FuzzTarget t) {
  if (t == FuzzTarget::Functionalizer) return {DiffCheck::D1};
  if (t == FuzzTarget::Case) {
    return {DiffCheck::D1, DiffCheck::D2, DiffCheck::D3, DiffCheck::D4, DiffCheck::D6, DiffCheck::D9};
  }
  return {};
}

std::vector<DiffCheck> checksHeldTo(FuzzTarget t) {
  if (t == FuzzTarget::Functionalizer) return {DiffCheck::D1};
  if (t == FuzzTarget::Case) return {DiffCheck::D1, DiffCheck::D4, DiffCheck::D6};
  return {};
}

}  // namespace epsmith
