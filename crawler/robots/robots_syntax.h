// Lexical layer of robots.txt (RFC 9309), faithful to Google's reference parser (google/robotstxt):
// splits a body into numbered lines (LF, CR and CRLF endings; a UTF-8 BOM prefix, even a partial
// one, is skipped; bytes of a line past kRobotsMaxLineBytes are dropped; a NUL byte ends a line),
// strips comments and whitespace, splits "key: value" (or "key value" when the colon is missing and
// the line has exactly two words) and classifies the key, accepting the reference's typos.
// Lines that are not directives are skipped silently, as the reference does; it never fails.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace bloomcrawl {

// The reference buffers 8 × 2083 bytes (8 browser URL limits) per line, one of them for the NUL.
inline constexpr std::size_t kRobotsMaxLineBytes = 2083 * 8 - 1;

enum class RobotsKey { kUserAgent, kAllow, kDisallow, kSitemap, kCrawlDelay, kUnknown };

struct RobotsDirective {
  int line = 0;  // 1-based; CRLF counts as one line ending
  RobotsKey key = RobotsKey::kUnknown;
  std::string_view name;   // the key as written, e.g. "Disalow"
  std::string_view value;  // trimmed, not yet percent-normalized
};

// Maps a key to its kind. Like the reference this is a case-insensitive *prefix* test, so
// "user-agents" and "disallowed" count too; "useragent", "user agent", "dissallow", "dissalow",
// "disalow", "diasllow", "disallaw" and "site-map" are accepted typos. "crawl-delay" is ours (the
// reference ignores it).
RobotsKey classify_robots_key(std::string_view name);

// Calls `emit` for each directive line in `body`, in order.
void for_each_robots_directive(std::string_view body, const std::function<void(const RobotsDirective&)>& emit);

// Canonical form of an Allow/Disallow pattern, as the reference computes it: octets >= 0x80 are
// percent-encoded and the hex digits of existing %XX escapes are upper-cased. Nothing is decoded.
std::string normalize_robots_pattern(std::string_view pattern);

// `text` with each %XX escape of an unreserved character (RFC 3986: letters, digits, "-", ".",
// "_", "~") decoded, as URL normalization (RFC 3986 6.2.2.2) and the crawler's canonical URLs do
// ("/%7Ealice" -> "/~alice"); other escapes and octets are kept.
std::string decode_unreserved_escapes(std::string_view text);

}  // namespace bloomcrawl
