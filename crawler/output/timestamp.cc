#include "crawler/output/timestamp.h"

#include <cstdio>
#include <ctime>

namespace bloomcrawl {

std::string rfc3339_utc_ms(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::time_point_cast<std::chrono::milliseconds>(t).time_since_epoch().count();
  auto seconds = std::time_t(ms / 1000);
  int millis = int(ms % 1000);
  if (millis < 0) {  // before 1970: floor, not truncation
    millis += 1000;
    --seconds;
  }
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];  // room for any int year, so the compiler sees no truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

}  // namespace bloomcrawl
