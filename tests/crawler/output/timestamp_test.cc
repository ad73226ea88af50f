#include "crawler/output/timestamp.h"

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

std::string stamp_of_ms(int64_t ms) {
  return rfc3339_utc_ms(std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)));
}

TEST(Rfc3339UtcMs, WritesUtcWithMilliseconds) {
  EXPECT_EQ(stamp_of_ms(1764633911123), "2025-12-02T00:05:11.123Z");
  EXPECT_EQ(stamp_of_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(stamp_of_ms(951782400007), "2000-02-29T00:00:00.007Z");  // a leap day, padded fields
  EXPECT_EQ(stamp_of_ms(7258118399999), "2199-12-31T23:59:59.999Z");
}

TEST(Rfc3339UtcMs, FloorsInstantsBefore1970) {
  EXPECT_EQ(stamp_of_ms(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(stamp_of_ms(-1000), "1969-12-31T23:59:59.000Z");
}

}  // namespace
}  // namespace bloomcrawl
