// parse_w3c_datetime: every form of the W3C Datetime profile a sitemap's <lastmod> may use, and the
// near misses that must be no date rather than a guess.
#include "crawler/recrawl/w3c_datetime.h"

#include <ctime>
#include <string>

#include <gtest/gtest.h>

namespace bloomcrawl::recrawl {
namespace {

// timegm() as the reference for the UTC calendar.
std::int64_t utc(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<std::int64_t>(timegm(&tm));
}

TEST(W3cDatetime, EveryFormOfTheProfile) {
  EXPECT_EQ(parse_w3c_datetime("2026"), utc(2026, 1, 1));
  EXPECT_EQ(parse_w3c_datetime("2026-12"), utc(2026, 12, 1));
  EXPECT_EQ(parse_w3c_datetime("2026-12-05"), utc(2026, 12, 5));
  EXPECT_EQ(parse_w3c_datetime("2026-12-05T11:25Z"), utc(2026, 12, 5, 11, 25));
  EXPECT_EQ(parse_w3c_datetime("2026-12-05T11:25:42Z"), utc(2026, 12, 5, 11, 25, 42));
  EXPECT_EQ(parse_w3c_datetime("2026-12-05T11:25:42.5Z"), utc(2026, 12, 5, 11, 25, 42));
  EXPECT_EQ(parse_w3c_datetime("2026-12-05T12:25:42+01:00"), utc(2026, 12, 5, 11, 25, 42));
  EXPECT_EQ(parse_w3c_datetime("2026-12-04T23:55:00-11:30"), utc(2026, 12, 5, 11, 25));
  EXPECT_EQ(parse_w3c_datetime(" \n2024-02-29\t"), utc(2024, 2, 29));
  EXPECT_EQ(parse_w3c_datetime("1969-12-31T23:59:59Z"), -1);
  EXPECT_EQ(parse_w3c_datetime("2000-02-29"), utc(2000, 2, 29));
  EXPECT_EQ(parse_w3c_datetime("9999-12-31T23:59:59Z"), utc(9999, 12, 31, 23, 59, 59));
}

TEST(W3cDatetime, NearMissesAreNoDate) {
  for (const std::string text : {"",
                                 "   ",
                                 "0000-01-01",
                                 "26-12-05",
                                 "2026-13-01",
                                 "2026-00-10",
                                 "2026-02-29",
                                 "1900-02-29",
                                 "2026-04-31",
                                 "2026-12-05T11:25",
                                 "2026-12-05T24:00Z",
                                 "2026-12-05T11:60Z",
                                 "2026-12-05T11:25:60Z",
                                 "2026-12-05T11:25:42.Z",
                                 "2026-12-05 11:25Z",
                                 "2026-12T11:25Z",
                                 "2026T11:25Z",
                                 "2026-12-05T11:25+0100",
                                 "2026-12-05T11:25+24:00",
                                 "2026-12-05Z",
                                 "2026-12-05T11:25Zjunk",
                                 "Sat, 05 Dec 2026 11:25:00 GMT",
                                 "2026-1-5",
                                 "+2026-12-05"}) {
    EXPECT_EQ(parse_w3c_datetime(text), std::nullopt) << '"' << text << '"';
  }
}

}  // namespace
}  // namespace bloomcrawl::recrawl
