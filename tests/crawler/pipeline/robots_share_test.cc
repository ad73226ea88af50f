// RobotsShare: never more robots.txt fetches out than its slots, and the room page dispatch must
// leave it.
#include "crawler/pipeline/robots_share.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

TEST(RobotsShare, AQuarterOfTheBudgetAtLeastOne) {
  EXPECT_EQ(RobotsShare::slots_for(128), 32u);
  EXPECT_EQ(RobotsShare::slots_for(16), 4u);
  EXPECT_EQ(RobotsShare::slots_for(1), 1u);
}

TEST(RobotsShare, StartsNoMoreThanItsSlotsAndFreesThemAgain) {
  RobotsShare share(2);
  EXPECT_TRUE(share.try_start());
  EXPECT_TRUE(share.try_start());
  EXPECT_FALSE(share.try_start());
  EXPECT_EQ(share.in_flight(), 2u);
  share.finished();
  EXPECT_TRUE(share.try_start());
  share.finished();
  share.finished();
  EXPECT_EQ(share.in_flight(), 0u);
  EXPECT_EQ(share.peak_in_flight(), 2u);
}

TEST(RobotsShare, PagesLeaveRoomForTheSlotsInUseOrWanted) {
  RobotsShare share(4);
  EXPECT_EQ(share.reserve(0), 0u);  // no robots.txt work: pages take the whole budget
  EXPECT_EQ(share.reserve(3), 3u);
  EXPECT_EQ(share.reserve(100), 4u);  // never more than the share
  ASSERT_TRUE(share.try_start());
  EXPECT_EQ(share.reserve(0), 1u);
  EXPECT_EQ(share.reserve(10), 4u);
}

TEST(RobotsShare, CountsPendingWorkApart) {
  RobotsShare share(1);
  share.add_pending();
  share.add_pending();
  share.pending_done();
  EXPECT_EQ(share.pending(), 1u);
}

}  // namespace
}  // namespace bloomcrawl
