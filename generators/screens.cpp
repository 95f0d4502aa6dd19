// See screens.h.
#include "generators/screens.h"

namespace epsmith {

const ScreenInfo& screenInfo(Screen s) {
  static constexpr ScreenInfo kInfo[] = {
#define EPSMITH_SCREEN(ID, NAME, WHAT) {NAME, WHAT},
#include "generators/screens.def"
#undef EPSMITH_SCREEN
  };
  return kInfo[static_cast<size_t>(s)];
}

}  // namespace epsmith
