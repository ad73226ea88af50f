// NearDuplicateIndex (crawler/content/near_duplicate_index.h): every fingerprint within 3 bits of
// one added is found, whichever bits differ; none 4 bits or more away.
#include "crawler/content/near_duplicate_index.h"

#include <random>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

TEST(NearDuplicateIndexTest, FindsEveryFingerprintWithinThreeBitsAndNoneFurther) {
  NearDuplicateIndex index;
  std::mt19937_64 random(29);
  std::vector<uint64_t> added;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t fp = random();
    if (!index.find_or_add(fp, "u" + std::to_string(i))) added.push_back(fp);
  }
  EXPECT_EQ(index.size(), added.size());
  for (size_t i = 0; i < 200; ++i) {
    const uint64_t fp = added[i];
    uint64_t near = fp;
    for (int b = 0; b < 3; ++b) near ^= uint64_t{1} << (random() % 64);  // 1 to 3 bits, anywhere
    const std::optional<std::string> found = index.find_or_add(near, "near");
    ASSERT_TRUE(found.has_value()) << i;
  }
  const uint64_t far = added[0] ^ 0x0001000100010001ull;  // 4 bits, one in each block
  const std::optional<std::string> found = index.find_or_add(far, "far");
  EXPECT_TRUE(!found || *found != "u0") << "4 bits away is no near duplicate";
}

}  // namespace
}  // namespace bloomcrawl
