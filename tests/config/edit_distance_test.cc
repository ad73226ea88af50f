// The "did you mean" machinery behind unknown-key errors.
#include <gtest/gtest.h>

#include "config/edit_distance.h"

namespace bloomcrawl::config_detail {
namespace {

TEST(ConfigEditDistance, CountsEditsAndTranspositions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("threads", "threads"), 0u);
  EXPECT_EQ(edit_distance("thread", "threads"), 1u);
  EXPECT_EQ(edit_distance("thraeds", "threads"), 1u);  // adjacent transposition
  EXPECT_EQ(edit_distance("Threads", "threads"), 0u);  // case is not a typo worth counting
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(ConfigEditDistance, SuggestsOnlyPlausibleTypos) {
  std::vector<std::string> keys = {"threads", "transfers_per_thread", "max_redirects"};
  EXPECT_EQ(nearest_name("thread", keys), "threads");
  EXPECT_EQ(nearest_name("max_redirect", keys), "max_redirects");
  EXPECT_EQ(nearest_name("max_redircts", keys), "max_redirects");
  EXPECT_FALSE(nearest_name("colour", keys).has_value());
  EXPECT_FALSE(nearest_name("x", {}).has_value());
}

}  // namespace
}  // namespace bloomcrawl::config_detail
