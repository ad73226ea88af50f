#include "crawler/recrawl/w3c_datetime.h"

namespace bloomcrawl::recrawl {
namespace {

// Reads exactly `digits` decimal digits at `*pos`.
std::optional<int> read_number(std::string_view text, std::size_t* pos, int digits) {
  if (text.size() - *pos < static_cast<std::size_t>(digits)) {
    return std::nullopt;
  }
  int value = 0;
  for (int i = 0; i < digits; ++i) {
    char c = text[*pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  *pos += static_cast<std::size_t>(digits);
  return value;
}

bool take(std::string_view text, std::size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

int days_in_month(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(int year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int era = year / 400;
  const int year_of_era = year - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return static_cast<std::int64_t>(era) * 146097 + day_of_era - 719468;
}

// The zone designator at `*pos`: seconds east of UTC.
std::optional<int> read_zone(std::string_view text, std::size_t* pos) {
  if (take(text, pos, 'Z')) {
    return 0;
  }
  int sign = 0;
  if (take(text, pos, '+')) {
    sign = 1;
  } else if (take(text, pos, '-')) {
    sign = -1;
  } else {
    return std::nullopt;
  }
  std::optional<int> hours = read_number(text, pos, 2);
  if (!hours || *hours > 23 || !take(text, pos, ':')) {
    return std::nullopt;
  }
  std::optional<int> minutes = read_number(text, pos, 2);
  if (!minutes || *minutes > 59) {
    return std::nullopt;
  }
  return sign * (*hours * 3600 + *minutes * 60);
}

}  // namespace

std::optional<std::int64_t> parse_w3c_datetime(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) {
    return std::nullopt;
  }
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  std::size_t pos = 0;
  std::optional<int> year = read_number(text, &pos, 4);
  if (!year || *year == 0) {
    return std::nullopt;
  }
  int month = 1;
  int day = 1;
  bool full_date = false;
  if (take(text, &pos, '-')) {
    std::optional<int> m = read_number(text, &pos, 2);
    if (!m || *m < 1 || *m > 12) {
      return std::nullopt;
    }
    month = *m;
    if (take(text, &pos, '-')) {
      std::optional<int> d = read_number(text, &pos, 2);
      if (!d || *d < 1 || *d > days_in_month(*year, month)) {
        return std::nullopt;
      }
      day = *d;
      full_date = true;
    }
  }
  std::int64_t seconds = days_from_civil(*year, month, day) * 86400;
  if (pos == text.size()) {
    return seconds;
  }
  // A time needs a full date before it and a zone after it.
  if (!full_date || !take(text, &pos, 'T')) {
    return std::nullopt;
  }
  std::optional<int> hour = read_number(text, &pos, 2);
  if (!hour || *hour > 23 || !take(text, &pos, ':')) {
    return std::nullopt;
  }
  std::optional<int> minute = read_number(text, &pos, 2);
  if (!minute || *minute > 59) {
    return std::nullopt;
  }
  int second = 0;
  if (take(text, &pos, ':')) {
    std::optional<int> s = read_number(text, &pos, 2);
    if (!s || *s > 59) {
      return std::nullopt;
    }
    second = *s;
    if (take(text, &pos, '.')) {
      const std::size_t fraction = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        ++pos;
      }
      if (pos == fraction) {
        return std::nullopt;  // fractions of a second are read and dropped
      }
    }
  }
  std::optional<int> zone = read_zone(text, &pos);
  if (!zone || pos != text.size()) {
    return std::nullopt;
  }
  return seconds + std::int64_t{*hour} * 3600 + std::int64_t{*minute} * 60 + second - *zone;
}

}  // namespace bloomcrawl::recrawl
