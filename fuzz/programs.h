// Generated programs in the dialect a configuration asks for: the generators make TRAINING
// programs, and an ATEN one is such a program functionalized, made here, above both.
#pragma once

#include "generators/graph_generator.h"
#include "generators/random_source.h"

namespace epsmith {

// `config.dialect`'s program from `random`: the generator's TRAINING program, or for ATEN
// that program functionalized; a program the functionalizer refuses (it mutates an input's
// metadata, say), or whose functional form holds an autocast region's bare calls, is
// followed by the next one from the same source, up to 16.
Expected<ExportedProgram> generateInDialect(const OpCatalog& catalog, const GeneratorConfig& config,
                                            RandomSource& random, GenerationStats* stats = nullptr);

}  // namespace epsmith
