// See programs.h.
#include "fuzz/programs.h"

#include "functionalizer/functionalize.h"
#include "ir/subgraphs.h"

namespace epsmith {

namespace {

// Whether `p` holds a bare _enter_autocast call: what the functionalizer lays a writing
// autocast region out as (Note [Writes inside an autocast region]). Export's ATEN form of
// such a region is its calls with autocast's casts made explicit, and torch's schema has no
// form for the bare calls' context (torch.export.load refuses the .pt2), so no ATEN program
// of the generator's holds one.
bool holdsBareAutocast(const ExportedProgram& p) {
  bool bare = false;
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) {
      bare = bare || (n.target.kind() == Target::Kind::TorchFunction &&
                      n.target.torchFunctionId() == TorchFunction::EnterAutocast);
    }
  });
  return bare;
}

}  // namespace

Expected<ExportedProgram> generateInDialect(const OpCatalog& catalog, const GeneratorConfig& config,
                                            RandomSource& random, GenerationStats* stats) {
  if (config.dialect == IrDialect::Training) return generateProgram(catalog, config, random, stats);
  constexpr int kTries = 16;
  std::string last;
  for (int i = 0; i < kTries; ++i) {
    auto training = generateProgram(catalog, config, random, stats);
    if (!training.ok()) return training.error();
    auto functional = functionalize(training.value());
    if (functional.ok() && !holdsBareAutocast(functional.value())) return std::move(functional.value());
    last =
        functional.ok() ? "an autocast region that writes, laid out as bare autocast calls" : functional.error().str();
  }
  return Diagnostic{"", "no generated program of " + std::to_string(kTries) +
                            " could be functionalized for the ATEN dialect; the last: " + last};
}

}  // namespace epsmith
