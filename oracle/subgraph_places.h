// The words an error raised inside a subgraph names the subgraph with: "in the map's body,
// %sin: ...". The interpreter writes them (oracle/higher_order_ops.cpp) and root causes take
// them off a message (fuzz/root_cause.cpp's outsideSubgraphs), so both read this one table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace epsmith {

enum class SubgraphPlace : uint8_t {
  Region,
  AutocastRegion,
  TrueBranch,
  FalseBranch,
  LoopBody,
  LoopCondition,
  MapBody,
  ScanCombine,
};

inline constexpr std::string_view kSubgraphPlaces[] = {
    "the region",      "the autocast region",  "the true branch", "the false branch",
    "the loop's body", "the loop's condition", "the map's body",  "the scan's combine function",
};

// How an error raised at node `node` inside subgraph `place` starts: "in the region, %sin".
inline std::string inSubgraph(SubgraphPlace place, std::string_view node) {
  return "in " + std::string(kSubgraphPlaces[static_cast<size_t>(place)]) + ", %" + std::string(node);
}

}  // namespace epsmith
