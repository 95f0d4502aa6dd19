// The one table of checks (fuzz/checks.def): what is derived from its rows, and the docs
// that must say what they say.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "fuzz/checks.h"

namespace epsmith {
namespace {

TEST(Checks, CheckListsParse) {
  EXPECT_EQ(allDiffCheckNames(), "D1,D2,D3,D4,D5,D6,D7,D8,D9");
  auto all = parseDiffChecks(allDiffCheckNames());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 9u);
  auto d10 = parseDiffChecks("D1,D10");
  ASSERT_FALSE(d10.ok());
  EXPECT_EQ(d10.error().message, "unknown check 'D10' (D1 to D9)");
  EXPECT_FALSE(parseDiffChecks("").ok());
}

// docs/design.md's table of checks says what each row of fuzz/checks.def says.
TEST(Checks, DesignDocListsEveryRow) {
  std::ifstream in(std::string(EPSMITH_SOURCE_DIR) + "/docs/design.md");
  ASSERT_TRUE(in) << "docs/design.md";
  std::map<std::string, std::string> rows;  // "D1" -> the line
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("### ", 0) == 0) in_table = line == "### The checks";
    if (in_table && line.rfind("| D", 0) == 0) rows[line.substr(2, line.find(' ', 2) - 2)] = line;
  }
  const auto needs = [](CheckNeeds n) -> std::string {
    switch (n) {
      case CheckNeeds::Nothing: return "—";
      case CheckNeeds::Cuda: return "CUDA";
      case CheckNeeds::TorchPeer: return "a torch peer";
      case CheckNeeds::NativeRt: return "NativeRT";
    }
    return "?";
  };
  for (DiffCheck c : kAllDiffChecks) {
    const CheckInfo& info = checkInfo(c);
    const CheckDrawInfo& draw = checkDrawInfo(info.draw);
    const std::string sampled = draw.flag.empty() ? "every case" : "one case in `" + std::string(draw.flag) + "`";
    const std::string want = "| " + std::string(info.name) + " | " + std::string(info.summary) + " | " +
                             needs(info.needs) + " | " + sampled + " |";
    EXPECT_EQ(rows[std::string(info.name)], want);
    rows.erase(std::string(info.name));
  }
  EXPECT_TRUE(rows.empty()) << "a row for a check the table lacks: " << rows.begin()->second;
}

TEST(Checks, HelpAndAvailabilityComeFromTheTable) {
  EXPECT_EQ(checksHelp(),
            "comma-separated subset of D1-D9 (D5,D7,D8 ask PyTorch; D9 runs NativeRT; D3 needs CUDA: docs/design.md)");
  EXPECT_EQ(checkDrawHelp(CheckDraw::Torch), "run D5,D7,D8 on one case in N, drawn from its seed");
  for (DiffCheck c : kAllDiffChecks) {
    EXPECT_EQ(asksTorch(c), checkInfo(c).needs == CheckNeeds::TorchPeer) << diffCheckName(c);
    if (checkInfo(c).needs == CheckNeeds::Nothing) {
      EXPECT_FALSE(checkUnavailable(c)) << diffCheckName(c);
    }
  }
  // Every draw but Every samples: 1 in N for some N > 1, its own salt.
  std::set<uint64_t> salts;
  for (CheckDraw d : kAllCheckDraws) {
    if (d == CheckDraw::Every) continue;
    EXPECT_GT(checkDrawInfo(d).default_every, 1);
    EXPECT_TRUE(salts.insert(checkDrawInfo(d).salt).second);
  }
}

}  // namespace
}  // namespace epsmith
