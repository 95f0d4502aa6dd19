// The generator's node sources as one table (generators/node_sources.def): their names,
// default weights and what each makes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace epsmith {

enum class NodeSource : uint8_t {
#define EPSMITH_NODE_SOURCE(ID, NAME, WEIGHT, WHAT) ID,
#include "generators/node_sources.def"
#undef EPSMITH_NODE_SOURCE
};

inline constexpr size_t kNodeSourceCount = 0
#define EPSMITH_NODE_SOURCE(ID, NAME, WEIGHT, WHAT) +1
#include "generators/node_sources.def"
#undef EPSMITH_NODE_SOURCE
    ;

struct NodeSourceInfo {
  std::string_view name;  // "view-chain", as a config names it
  uint32_t default_weight;
  std::string_view what;  // what it makes, for people
};
const NodeSourceInfo& nodeSourceInfo(NodeSource s);

using NodeSourceWeights = std::array<uint32_t, kNodeSourceCount>;
constexpr NodeSourceWeights defaultNodeSourceWeights() {
  NodeSourceWeights w{};
  size_t i = 0;
#define EPSMITH_NODE_SOURCE(ID, NAME, WEIGHT, WHAT) w[i++] = WEIGHT;
#include "generators/node_sources.def"
#undef EPSMITH_NODE_SOURCE
  return w;
}

}  // namespace epsmith
