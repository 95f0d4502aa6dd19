// Names and help lines of the verifier's check ids, from the one table in check_ids.h.
#include "verifier/check_ids.h"

#include <array>

namespace epsmith {
namespace {

struct Row {
  std::string_view name;
  std::string_view help;
};

constexpr std::array<Row, kNumCheckIds> kRows{{
#define EPSMITH_CHECK_ROW(id, name, help) {name, help},
    EPSMITH_CHECK_IDS(EPSMITH_CHECK_ROW)
#undef EPSMITH_CHECK_ROW
}};

}  // namespace

std::string_view checkIdName(CheckId id) { return kRows[static_cast<size_t>(id)].name; }
std::string_view checkIdHelp(CheckId id) { return kRows[static_cast<size_t>(id)].help; }

std::optional<CheckId> checkIdFromName(std::string_view name) {
  for (size_t i = 0; i < kRows.size(); ++i) {
    if (kRows[i].name == name) return static_cast<CheckId>(i);
  }
  return std::nullopt;
}

}  // namespace epsmith
