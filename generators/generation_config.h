// Generation config files: the knobs of GeneratorConfig and the catalog's filters, read
// from one file (`epsmith generate --config FILE`).
#pragma once

#include <string>
#include <string_view>

#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "ir/diagnostic.h"

namespace epsmith {

// What `epsmith generate --config FILE` reads: the catalog's directives (allow, deny,
// enable, disable) and the generator's (docs/generators.md lists them). Errors name file:line.
struct GenerationConfig {
  CatalogConfig catalog;
  GeneratorConfig generator;
};
Expected<GenerationConfig> parseGenerationConfig(std::string_view text, const std::string& where);
Expected<GenerationConfig> loadGenerationConfig(const std::string& path);

}  // namespace epsmith
