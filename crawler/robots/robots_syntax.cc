#include "crawler/robots/robots_syntax.h"

#include <algorithm>
#include <array>

namespace bloomcrawl {
namespace {

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

char to_lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
char to_upper_ascii(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with_ignore_case(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (to_lower_ascii(s[i]) != prefix[i]) return false;  // prefixes are lower case
  }
  return true;
}

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::ranges::any_of(prefixes, [&](std::string_view p) { return starts_with_ignore_case(s, p); });
}

// One raw line -> directive, or false when the line holds none. Mirrors the reference's
// GetKeyAndValueFrom, including its missing-colon rule.
bool split_directive(std::string_view line, std::string_view& name, std::string_view& value) {
  if (std::size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);
  if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  line = strip(line);

  std::size_t sep = line.find(':');
  if (sep == std::string_view::npos) {
    // "disallow /" is obviously meant; accept whitespace instead of the colon, but only when
    // the line is exactly two words.
    sep = line.find_first_of(" \t");
    if (sep == std::string_view::npos) return false;
    std::size_t word2 = line.find_first_not_of(" \t", sep);
    if (word2 != std::string_view::npos && line.find_first_of(" \t", word2) != std::string_view::npos) {
      return false;
    }
  }
  name = strip(line.substr(0, sep));
  if (name.empty()) return false;
  value = strip(line.substr(sep + 1));
  return true;
}

}  // namespace

RobotsKey classify_robots_key(std::string_view name) {
  if (starts_with_any(name, {"user-agent", "useragent", "user agent"})) return RobotsKey::kUserAgent;
  if (starts_with_ignore_case(name, "allow")) return RobotsKey::kAllow;
  if (starts_with_any(name, {"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})) {
    return RobotsKey::kDisallow;
  }
  if (starts_with_any(name, {"sitemap", "site-map"})) return RobotsKey::kSitemap;
  if (starts_with_any(name, {"crawl-delay", "crawldelay", "crawl delay"})) return RobotsKey::kCrawlDelay;
  return RobotsKey::kUnknown;
}

void for_each_robots_directive(std::string_view body, const std::function<void(const RobotsDirective&)>& emit) {
  static constexpr std::array<unsigned char, 3> kBom = {0xEF, 0xBB, 0xBF};
  std::size_t pos = 0;
  while (pos < kBom.size() && pos < body.size() && static_cast<unsigned char>(body[pos]) == kBom[pos]) {
    ++pos;
  }
  body.remove_prefix(pos);

  int line_number = 0;
  auto emit_line = [&](std::string_view line) {
    ++line_number;
    RobotsDirective directive;
    if (!split_directive(line.substr(0, kRobotsMaxLineBytes), directive.name, directive.value)) return;
    directive.line = line_number;
    directive.key = classify_robots_key(directive.name);
    emit(directive);
  };

  std::size_t line_start = 0;
  bool last_was_cr = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\n' && c != '\r') continue;
    // The LF of a CRLF ends no second (empty) line.
    const bool crlf_continuation = (i == line_start) && last_was_cr && c == '\n';
    if (!crlf_continuation) emit_line(body.substr(line_start, i - line_start));
    line_start = i + 1;
    last_was_cr = (c == '\r');
  }
  emit_line(body.substr(line_start));  // the last line, even when empty or unterminated
}

std::string normalize_robots_pattern(std::string_view pattern) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '%' && i + 2 < pattern.size() && is_hex_digit(pattern[i + 1]) && is_hex_digit(pattern[i + 2])) {
      out += '%';
      out += to_upper_ascii(pattern[i + 1]);
      out += to_upper_ascii(pattern[i + 2]);
      i += 2;
    } else if (static_cast<unsigned char>(c) & 0x80) {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

std::string decode_unreserved_escapes(std::string_view text) {
  auto hex_value = [](char c) { return c <= '9' ? c - '0' : to_upper_ascii(c) - 'A' + 10; };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && is_hex_digit(text[i + 1]) && is_hex_digit(text[i + 2])) {
      const char decoded = static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      const bool unreserved = (decoded >= 'a' && decoded <= 'z') || (decoded >= 'A' && decoded <= 'Z') ||
                              (decoded >= '0' && decoded <= '9') || decoded == '-' || decoded == '.' ||
                              decoded == '_' || decoded == '~';
      if (unreserved) {
        out += decoded;
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

}  // namespace bloomcrawl
