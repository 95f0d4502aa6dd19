// The campaign's own policies that do not need a campaign to run.
#include <gtest/gtest.h>

#include "fuzz/campaign.h"

namespace epsmith {
namespace {

// Note [Minimizations at a campaign's end]: a minimization begun early in a campaign of
// --time has its usual time; near the end, only what is left of the time and the grace
// (a tenth of --time, 30 s at least), a second at the least; a campaign of --cases (no
// time limit) always the usual.
TEST(Campaign, AMinimizationNearTheEndHasTheTimeLeftAndAGrace) {
  EXPECT_EQ(minimizationSeconds(1800, 10, 300), 300);
  EXPECT_EQ(minimizationSeconds(1800, 1790, 300), 190);  // 10 left, 180 of grace
  EXPECT_EQ(minimizationSeconds(90, 80, 300), 40);       // 10 left, 30 of grace at least
  EXPECT_EQ(minimizationSeconds(90, 125, 300), 1);       // past the grace: a second
  EXPECT_EQ(minimizationSeconds(0, 5000, 300), 300);
}

}  // namespace
}  // namespace epsmith
