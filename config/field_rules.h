// The rules a config field's value must satisfy, checked the same way whether the value came from
// JSON (the reader) or was set in code (validate_config). A rule reports the problem as text for
// the error message ("must be >= 1, got 0"), or nothing when the value is fine.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace bloomcrawl::config_detail {

struct NoRule {};

struct IntRange {
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

struct RealRange {
  double min;
  double max;
  bool exclusive_min = false;
  bool exclusive_max = false;
};

// A string (or each string of a list) must be one of `allowed`.
struct OneOf {
  const std::vector<std::string>* allowed;
};

// A string (or each string of a list) must pass `check`, which returns the problem if any.
using TextCheck = std::optional<std::string> (*)(const std::string&);
struct Text {
  TextCheck check;
};

// A problem found in a value; `sub_path` is "/3" when it is about element 3 of a list.
struct Problem {
  std::string sub_path;
  std::string text;
};

std::optional<Problem> find_problem(bool value, NoRule rule);
std::optional<Problem> find_problem(const std::string& value, NoRule rule);
std::optional<Problem> find_problem(const std::string& value, OneOf rule);
std::optional<Problem> find_problem(const std::string& value, Text rule);
std::optional<Problem> find_problem(const std::vector<std::string>& value, NoRule rule);
std::optional<Problem> find_problem(const std::vector<std::string>& value, OneOf rule);
std::optional<Problem> find_problem(const std::vector<std::string>& value, Text rule);
std::optional<Problem> find_problem(double value, RealRange rule);
// `type_min`/`type_max` are the limits of the C++ field, which narrow the rule's range.
std::optional<Problem> find_problem(std::int64_t value, IntRange rule, std::int64_t type_min, std::int64_t type_max);

template <class Int>
std::optional<Problem> find_int_problem(std::int64_t value, IntRange rule) {
  constexpr std::uint64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  constexpr std::uint64_t kTypeMax = std::numeric_limits<Int>::max();
  return find_problem(value, rule, static_cast<std::int64_t>(std::numeric_limits<Int>::min()),
                      static_cast<std::int64_t>(kTypeMax < kInt64Max ? kTypeMax : kInt64Max));
}

// The problem with a member's current value under `rule`, whatever the member's type.
template <class T, class Rule>
std::optional<Problem> check_member(const T& value, Rule rule) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if constexpr (std::is_unsigned_v<T>) {
      if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return Problem{"", "must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max())};
      }
    }
    return find_int_problem<T>(static_cast<std::int64_t>(value), rule);
  } else {
    return find_problem(value, rule);
  }
}

// Text checks for the config's string fields.
std::optional<std::string> check_regex(const std::string& pattern);
std::optional<std::string> check_cidr(const std::string& cidr);
// fetch.resolve: "HOST:PORT:ADDRESS", HOST a host name or "*", ADDRESS one IP (IPv6 may be bracketed).
std::optional<std::string> check_resolve_entry(const std::string& entry);
std::optional<std::string> check_seed_url(const std::string& url);
std::optional<std::string> check_host_name(const std::string& host);
std::optional<std::string> check_content_type(const std::string& type);
std::optional<std::string> check_robots_token(const std::string& token);
std::optional<std::string> check_header_value(const std::string& value);
std::optional<std::string> check_param_name(const std::string& name);
// Empty (cluster mode off) or redis://HOST:PORT; empty or a valid crawl name (config/cluster_address.h).
std::optional<std::string> check_redis_address(const std::string& address);
std::optional<std::string> check_cluster_name(const std::string& name);
// Empty (off) or HOST:PORT (config/listen_address.h).
std::optional<std::string> check_listen_address(const std::string& address);

}  // namespace bloomcrawl::config_detail
