// The generator's screens as one table (generators/screens.def): their names, what each
// keeps out, and the counts of the candidates each refused (their logic:
// generators/screen_tables.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace epsmith {

enum class Screen : uint8_t {
#define EPSMITH_SCREEN(ID, NAME, WHAT) ID,
#include "generators/screens.def"
#undef EPSMITH_SCREEN
};

inline constexpr size_t kScreenCount = 0
#define EPSMITH_SCREEN(ID, NAME, WHAT) +1
#include "generators/screens.def"
#undef EPSMITH_SCREEN
    ;

struct ScreenInfo {
  std::string_view name;  // "out-aliases-an-input"
  std::string_view what;  // what it keeps out, for people
};
const ScreenInfo& screenInfo(Screen s);

// The candidates each screen refused, indexed by Screen.
using ScreenCounts = std::array<int64_t, kScreenCount>;
}  // namespace epsmith
