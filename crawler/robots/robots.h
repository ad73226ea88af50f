// robots.txt rules for one crawler (RFC 9309), decided exactly as Google's reference library
// (google/robotstxt) decides them, quirks included (see docs/robots.md):
//   - groups are selected by product token, case-insensitively: the token of a "User-agent:"
//     value is its leading [a-zA-Z_-] run ("FooBot/2.1" -> "FooBot"); "*" (alone or followed by
//     whitespace) names the global group, used only when no group names our agent;
//     groups for the same agent are merged;
//   - the longest matching pattern wins, Allow wins a tie; '*' and a final '$' are wildcards;
//     "Allow: /dir/index.htm[l]" also allows "/dir/"; an empty Disallow allows everything;
//   - Crawl-delay is taken from our group (decimals allowed), Sitemap lines from anywhere.
// Only the first kRobotsMaxBytes of a file are parsed. Parsing never fails. A parsed
// RobotsRules is immutable, so it is safe to share between threads without a lock.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl {

inline constexpr std::size_t kRobotsMaxBytes = std::size_t{500} * 1024;  // RFC 9309 section 2.5 minimum

struct RobotsDecision {
  bool allowed = true;
  int line = 0;  // line of the deciding rule in robots.txt; 0 = no rule matched
  // The deciding rule, e.g. "Disallow: /private"; empty when no rule matched. For
  // disallow_all() it says why, with line 0.
  std::string rule;
};

class RobotsRules {
 public:
  // `user_agent` may be a product token ("bloomcrawl") or a whole User-Agent header value
  // ("bloomcrawl/1.0 (+https://example.org/bot)"): its leading [a-zA-Z_-] run is the token.
  static RobotsRules parse(std::string_view robots_txt, std::string_view user_agent);
  // What an unavailable robots.txt (4xx) means: everything may be crawled.
  static RobotsRules allow_all();
  // What an unreachable robots.txt (5xx, network error) means: nothing may be crawled.
  static RobotsRules disallow_all();

  // `url_or_path` is a full URL or a path with query; it must already be percent-encoded
  // (the crawler passes canonical URLs). The fragment is ignored.
  RobotsDecision check(std::string_view url_or_path) const;
  bool allowed(std::string_view url_or_path) const;

  std::optional<double> crawl_delay_seconds() const { return crawl_delay_seconds_; }
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }
  // True when some group names our agent (so the "*" group is ignored).
  bool has_group_for_agent() const { return has_group_for_agent_; }
  // Heap and object bytes these rules hold (an estimate, for the robots cache's bound).
  std::size_t memory_bytes() const;

 private:
  struct Rule {
    bool allow = false;
    int line = 0;
    std::string pattern;        // normalized, see normalize_robots_pattern
    std::string decoded;        // Disallow only: pattern with unreserved escapes decoded, if that differs
    std::string index_pattern;  // for "Allow: /d/index.html": "/d/$"; else empty
    std::string value;          // as written, for reporting
  };
  struct Best;  // best Allow and Disallow match among a rule list

  static Best best_match(const std::vector<Rule>& rules, std::string_view path, std::string_view decoded_path);
  static RobotsDecision decision_from(bool allowed, const Rule* rule);

  std::vector<Rule> agent_rules_;   // groups naming our agent
  std::vector<Rule> global_rules_;  // "*" groups
  bool has_group_for_agent_ = false;
  bool disallow_everything_ = false;
  std::optional<double> crawl_delay_seconds_;
  std::vector<std::string> sitemaps_;
};

}  // namespace bloomcrawl
