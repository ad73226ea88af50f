#include "crawler/output/timestamp.h"

#include <ctime>

namespace bloomcrawl {
namespace {

// `digits` decimal digits of `value` at `out`: the fixed fields of the form, without printf's
// format parsing, which showed in profiles of WARC crawls (three stamps per page).
char* put_digits(char* out, int value, int digits) {
  for (int i = digits - 1; i >= 0; --i) {
    out[i] = char('0' + value % 10);
    value /= 10;
  }
  return out + digits;
}

}  // namespace

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
  char buf[24];
  // system_clock counts nanoseconds in 64 bits: its years (1677-2262) always take four digits.
  char* p = put_digits(buf, tm.tm_year + 1900, 4);
  *p++ = '-';
  p = put_digits(p, tm.tm_mon + 1, 2);
  *p++ = '-';
  p = put_digits(p, tm.tm_mday, 2);
  *p++ = 'T';
  p = put_digits(p, tm.tm_hour, 2);
  *p++ = ':';
  p = put_digits(p, tm.tm_min, 2);
  *p++ = ':';
  p = put_digits(p, tm.tm_sec, 2);
  *p++ = '.';
  p = put_digits(p, millis, 3);
  *p++ = 'Z';
  return {buf, size_t(p - buf)};
}

}  // namespace bloomcrawl
