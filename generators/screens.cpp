// See screens.h and node_sources.h: the rows of the generator's two tables.
#include "generators/screens.h"

#include "generators/node_sources.h"

namespace epsmith {

const ScreenInfo& screenInfo(Screen s) {
  static constexpr ScreenInfo kInfo[] = {
#define EPSMITH_SCREEN(ID, NAME, WHAT) {NAME, WHAT},
#include "generators/screens.def"
#undef EPSMITH_SCREEN
  };
  return kInfo[static_cast<size_t>(s)];
}

const NodeSourceInfo& nodeSourceInfo(NodeSource s) {
  static constexpr NodeSourceInfo kInfo[] = {
#define EPSMITH_NODE_SOURCE(ID, NAME, WEIGHT, WHAT) {NAME, WEIGHT, WHAT},
#include "generators/node_sources.def"
#undef EPSMITH_NODE_SOURCE
  };
  return kInfo[static_cast<size_t>(s)];
}

}  // namespace epsmith
