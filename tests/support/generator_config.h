// Test helper: a generator config that draws from the given node sources alone, so a test
// of one source holds whatever weights the defaults give the others.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "generators/graph_generator.h"

namespace epsmith::test {

inline GeneratorConfig withSources(std::initializer_list<std::pair<NodeSource, uint32_t>> weights) {
  GeneratorConfig c;
  c.source_weights.fill(0);
  for (const auto& [source, weight] : weights) c.source_weights[static_cast<size_t>(source)] = weight;
  return c;
}

}  // namespace epsmith::test
