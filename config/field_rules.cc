#include "config/field_rules.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "base/ip_address.h"
#include "config/cluster_address.h"
#include "config/listen_address.h"

namespace bloomcrawl::config_detail {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool has_space_or_control(const std::string& text) {
  return std::ranges::any_of(text, [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; });
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

template <class Rule>
std::optional<Problem> find_element_problem(const std::vector<std::string>& values, Rule rule) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::optional<Problem> problem = find_problem(values[i], rule)) {
      return Problem{"/" + std::to_string(i), problem->text};
    }
  }
  return std::nullopt;
}

// std::regex builds its automaton eagerly and recursively, and libstdc++ parses the numbers of
// back-references and {m,n} bounds into a `long` without overflow checks, so hostile patterns
// could exhaust memory, overflow the stack or hit undefined behaviour while merely loading a
// config. These bounds stay far above real URL filters.
constexpr size_t kMaxRegexLength = 1024;
constexpr size_t kMaxRegexNumberDigits = 5;
constexpr double kMaxRepetitionProduct = 10000;

// The problem with the numbers in `pattern` (back-reference indexes, repetition bounds), if any.
// The product of every {m,n} bound is an upper estimate of how much the pattern expands.
std::optional<std::string> regex_number_problem(const std::string& pattern) {
  double product = 1;
  for (size_t i = 0; i < pattern.size(); ++i) {
    bool backslash = pattern[i] == '\\';
    if (!backslash && pattern[i] != '{') continue;
    size_t j = i + 1;
    double largest = 0;
    double current = 0;
    size_t digits = 0;
    for (; j < pattern.size(); ++j) {
      if (std::isdigit(static_cast<unsigned char>(pattern[j]))) {
        current = current * 10 + (pattern[j] - '0');
        largest = std::max(largest, current);
        if (++digits > kMaxRegexNumberDigits) return "has a number longer than 5 digits";
      } else if (pattern[j] == ',' && !backslash) {
        current = 0;
        digits = 0;
      } else {
        break;
      }
    }
    if (!backslash && j < pattern.size() && pattern[j] == '}') product *= std::max(largest, 1.0);
    if (product > kMaxRepetitionProduct) {
      return "repeats too much ({m,n} bounds multiply past " + number_text(kMaxRepetitionProduct) + ")";
    }
    if (backslash) i = std::max(i + 1, j - 1);  // skip the escaped character or the index
  }
  return std::nullopt;
}

}  // namespace

std::optional<Problem> find_problem(bool, NoRule) { return std::nullopt; }
std::optional<Problem> find_problem(const std::string&, NoRule) { return std::nullopt; }
std::optional<Problem> find_problem(const std::vector<std::string>&, NoRule) { return std::nullopt; }

std::optional<Problem> find_problem(const std::string& value, OneOf rule) {
  for (const std::string& allowed : *rule.allowed) {
    if (value == allowed) return std::nullopt;
  }
  return Problem{"", "must be one of " + join(*rule.allowed) + ", got " + quoted(value)};
}

std::optional<Problem> find_problem(const std::string& value, Text rule) {
  if (std::optional<std::string> problem = rule.check(value)) return Problem{"", *problem};
  return std::nullopt;
}

std::optional<Problem> find_problem(const std::vector<std::string>& value, OneOf rule) {
  return find_element_problem(value, rule);
}

std::optional<Problem> find_problem(const std::vector<std::string>& value, Text rule) {
  return find_element_problem(value, rule);
}

std::optional<Problem> find_problem(double value, RealRange rule) {
  bool below = rule.exclusive_min ? !(value > rule.min) : !(value >= rule.min);
  bool above = rule.exclusive_max ? !(value < rule.max) : !(value <= rule.max);
  if (!below && !above) return std::nullopt;
  return Problem{"", "must be in " + std::string(rule.exclusive_min ? "(" : "[") + number_text(rule.min) + ", " +
                         number_text(rule.max) + (rule.exclusive_max ? ")" : "]") + ", got " + number_text(value)};
}

std::optional<Problem> find_problem(std::int64_t value, IntRange rule, std::int64_t type_min, std::int64_t type_max) {
  std::int64_t min = std::max(rule.min, type_min);
  std::int64_t max = std::min(rule.max, type_max);
  if (value >= min && value <= max) return std::nullopt;
  std::string got = ", got " + std::to_string(value);
  std::string between = "must be between " + std::to_string(min) + " and " + std::to_string(max) + got;
  if (value < min) return Problem{"", max == type_max ? "must be >= " + std::to_string(min) + got : between};
  return Problem{"", min == type_min ? "must be <= " + std::to_string(max) + got : between};
}

std::optional<std::string> check_regex(const std::string& pattern) {
  if (pattern.size() > kMaxRegexLength) {
    return "regex " + quoted(pattern.substr(0, 40)) + "... is longer than " + std::to_string(kMaxRegexLength) +
           " characters";
  }
  if (std::optional<std::string> problem = regex_number_problem(pattern)) {
    return "regex " + quoted(pattern) + " " + *problem;
  }
  try {
    std::regex compiled(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return "invalid regex " + quoted(pattern) + ": " + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> check_cidr(const std::string& cidr) {
  std::string error;
  if (parse_cidr(cidr, &error)) return std::nullopt;
  return "invalid CIDR " + quoted(cidr) + ": " + error;
}

std::optional<std::string> check_resolve_entry(const std::string& entry) {
  const std::string expected = "expected HOST:PORT:ADDRESS such as *:8080:127.0.0.1 or example.test:80:[::1], got ";
  const size_t first = entry.find(':');
  const size_t second = first == std::string::npos ? first : entry.find(':', first + 1);
  if (second == std::string::npos || first == 0 || has_space_or_control(entry)) return expected + quoted(entry);
  const std::string host = entry.substr(0, first);
  if (host != "*" && check_host_name(host)) return expected + quoted(entry);
  const std::string port = entry.substr(first + 1, second - first - 1);
  const bool port_ok =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
      std::stoi(port) >= 1 && std::stoi(port) <= 65535;
  std::string address = entry.substr(second + 1);
  if (address.size() > 2 && address.front() == '[' && address.back() == ']')
    address = address.substr(1, address.size() - 2);
  std::string error;
  if (!port_ok || address.find('/') != std::string::npos || !parse_cidr(address, &error))
    return expected + quoted(entry);
  return std::nullopt;
}

std::optional<std::string> check_seed_url(const std::string& url) {
  if (url.empty()) return "empty URL";
  if (has_space_or_control(url)) return "URL " + quoted(url) + " contains whitespace or a control character";
  std::string lower;
  for (char c : url.substr(0, 8)) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t scheme_end = lower.rfind("http://", 0) == 0 ? 7 : lower.rfind("https://", 0) == 0 ? 8 : 0;
  if (scheme_end == 0) return "not an absolute http(s) URL: " + quoted(url);
  std::string authority = url.substr(scheme_end, url.find_first_of("/?#", scheme_end) - scheme_end);
  std::string host = authority.substr(authority.find('@') == std::string::npos ? 0 : authority.rfind('@') + 1);
  if (host.empty() || host[0] == ':') return "URL " + quoted(url) + " has no host";
  return std::nullopt;
}

std::optional<std::string> check_host_name(const std::string& host) {
  if (host.find('*') != std::string::npos) {
    return "host " + quoted(host) + " has a wildcard; list the domain itself in allowed_domains (it covers subdomains)";
  }
  bool bad = host.empty() || has_space_or_control(host) || host.find_first_of("/?#@") != std::string::npos ||
             host.front() == '.' || host.find("..") != std::string::npos;
  bool colon_outside_brackets = host.find(':') != std::string::npos && host.front() != '[';
  if (bad || colon_outside_brackets)
    return "expected a host name such as example.com (no scheme, port or path), got " + quoted(host);
  return std::nullopt;
}

std::optional<std::string> check_content_type(const std::string& type) {
  size_t slash = type.find('/');
  bool ok = slash != std::string::npos && slash > 0 && slash + 1 < type.size() &&
            type.find('/', slash + 1) == std::string::npos;
  for (char c : type) {
    ok = ok && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
                std::string_view("/!#$&^_.+-").find(c) != std::string_view::npos);
  }
  if (!ok) return "expected a lowercase media type such as text/html (no parameters), got " + quoted(type);
  return std::nullopt;
}

std::optional<std::string> check_robots_token(const std::string& token) {
  // RFC 9309 section 2.2.1: the product token robots.txt groups are matched against.
  bool ok = !token.empty();
  for (char c : token) ok = ok && (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  if (!ok) return "robots token must be letters, '_' and '-' only (RFC 9309), got " + quoted(token);
  return std::nullopt;
}

std::optional<std::string> check_header_value(const std::string& value) {
  bool ok = !value.empty();
  for (char c : value) ok = ok && !(static_cast<unsigned char>(c) < 0x20 || c == 0x7f);
  if (!ok) return "must be non-empty without control characters, got " + quoted(value);
  return std::nullopt;
}

std::optional<std::string> check_param_name(const std::string& name) {
  if (name.empty() || has_space_or_control(name) || name.find_first_of("&=#") != std::string::npos) {
    return "expected a query parameter name (no '&', '=', '#' or spaces), got " + quoted(name);
  }
  return std::nullopt;
}

std::optional<std::string> check_redis_address(const std::string& address) {
  if (address.empty()) return std::nullopt;
  try {
    const ClusterAddress parsed = parse_cluster_address(address, false);
    // A config is copied into report.json and every checkpoint: no secret may sit in it.
    if (!parsed.password.empty() || !parsed.user.empty()) {
      return "no credentials here (they would be copied into report.json and checkpoints): set "
             "/cluster/user and /cluster/password_file or /cluster/password_env";
    }
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return std::nullopt;
}

std::optional<std::string> check_cluster_name(const std::string& name) {
  if (name.empty()) return std::nullopt;
  return cluster_name_problem(name);
}

std::optional<std::string> check_listen_address(const std::string& address) {
  if (address.empty()) return std::nullopt;
  try {
    parse_listen_address(address);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace bloomcrawl::config_detail
