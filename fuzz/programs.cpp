// See programs.h.
#include "fuzz/programs.h"

#include "functionalizer/functionalize.h"

namespace epsmith {

Expected<ExportedProgram> generateInDialect(const OpCatalog& catalog, const GeneratorConfig& config,
                                            RandomSource& random, GenerationStats* stats) {
  if (config.dialect == IrDialect::Training) return generateProgram(catalog, config, random, stats);
  constexpr int kTries = 16;
  std::string last;
  for (int i = 0; i < kTries; ++i) {
    auto training = generateProgram(catalog, config, random, stats);
    if (!training.ok()) return training.error();
    auto functional = functionalize(training.value());
    if (functional.ok()) return std::move(functional.value());
    last = functional.error().str();
  }
  return Diagnostic{"", "no generated program of " + std::to_string(kTries) +
                            " could be functionalized for the ATEN dialect; the last: " + last};
}

}  // namespace epsmith
