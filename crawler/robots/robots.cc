#include "crawler/robots/robots.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "crawler/robots/robots_pattern.h"
#include "crawler/robots/robots_syntax.h"

namespace bloomcrawl {
namespace {

bool is_token_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_'; }

// The leading [a-zA-Z_-] run: "FooBot/2.1" -> "FooBot", "Foo Bar" -> "Foo".
std::string_view product_token(std::string_view user_agent) {
  std::size_t n = 0;
  while (n < user_agent.size() && is_token_char(user_agent[n])) ++n;
  return user_agent.substr(0, n);
}

// Our own agent as robots.txt groups are matched against it. A plain token ("FooBot") is used as
// given; a User-Agent header whose first product has a version ("FooBot/2.1 (+https://...)")
// gives its token. Anything else ("Foo Bar", "123bot", "") is compared whole, as the reference
// compares every agent, so "Foo Bar" names no group (a "User-agent: Foo Bar" line means "Foo").
std::string_view own_agent(std::string_view user_agent) {
  const std::string_view token = product_token(user_agent);
  const bool versioned = !token.empty() && token.size() < user_agent.size() && user_agent[token.size()] == '/';
  return versioned ? token : user_agent;
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// "*" alone, or "*" followed by whitespace and anything ("* # all bots" after comment removal,
// "* foo"), names the global group.
bool names_global_group(std::string_view value) {
  return !value.empty() && value[0] == '*' && (value.size() == 1 || is_ascii_space(value[1]));
}

std::optional<double> parse_crawl_delay(std::string_view value) {
  double seconds = 0;
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
  if (!std::isfinite(seconds) || seconds < 0) return std::nullopt;
  return seconds;
}

// For "Allow: /d/index.htm..." the reference also allows "/d/" itself: it retries a
// non-matching Allow as "/d/$".
std::string index_alternative(std::string_view pattern) {
  std::size_t slash = pattern.rfind('/');
  if (slash == std::string_view::npos || pattern.substr(slash).rfind("/index.htm", 0) != 0) return {};
  return std::string(pattern.substr(0, slash + 1)) + "$";
}

}  // namespace

struct RobotsRules::Best {
  const Rule* allow = nullptr;
  int allow_priority = -1;  // length of the longest matching pattern; -1: none matched
  const Rule* disallow = nullptr;
  int disallow_priority = -1;
};

RobotsRules RobotsRules::parse(std::string_view robots_txt, std::string_view user_agent) {
  RobotsRules rules;
  const std::string_view agent = own_agent(user_agent);

  // The reference's group state machine: consecutive User-agent lines form one group; a rule
  // inside a group that concerns us ends the run, so the next User-agent line starts a new group.
  // Other lines (Sitemap, unknown keys, Crawl-delay) do not end a group.
  bool in_agent_group = false;
  bool in_global_group = false;
  bool saw_rule = false;
  std::optional<double> agent_delay;
  std::optional<double> global_delay;

  for_each_robots_directive(robots_txt.substr(0, kRobotsMaxBytes), [&](const RobotsDirective& d) {
    switch (d.key) {
      case RobotsKey::kUserAgent:
        if (saw_rule) in_agent_group = in_global_group = saw_rule = false;
        if (names_global_group(d.value)) {
          in_global_group = true;
        } else if (equals_ignore_case(product_token(d.value), agent)) {
          in_agent_group = rules.has_group_for_agent_ = true;
        }
        break;
      case RobotsKey::kAllow:
      case RobotsKey::kDisallow: {
        if (!in_agent_group && !in_global_group) break;  // rules outside our groups are ignored
        saw_rule = true;
        Rule rule;
        rule.allow = d.key == RobotsKey::kAllow;
        rule.line = d.line;
        rule.pattern = normalize_robots_pattern(d.value);
        if (rule.allow) rule.index_pattern = index_alternative(rule.pattern);
        if (!rule.allow) {
          std::string decoded = decode_unreserved_escapes(rule.pattern);
          if (decoded != rule.pattern) rule.decoded = std::move(decoded);
        }
        rule.value = std::string(d.value);
        // A group naming both "*" and us is ours only.
        (in_agent_group ? rules.agent_rules_ : rules.global_rules_).push_back(std::move(rule));
        break;
      }
      case RobotsKey::kCrawlDelay: {
        std::optional<double>& delay = in_agent_group ? agent_delay : global_delay;
        if ((in_agent_group || in_global_group) && !delay) delay = parse_crawl_delay(d.value);
        break;
      }
      case RobotsKey::kSitemap:
        if (!d.value.empty() &&
            std::find(rules.sitemaps_.begin(), rules.sitemaps_.end(), d.value) == rules.sitemaps_.end()) {
          rules.sitemaps_.emplace_back(d.value);
        }
        break;
      case RobotsKey::kUnknown: break;
    }
  });
  rules.crawl_delay_seconds_ = rules.has_group_for_agent_ ? agent_delay : global_delay;
  return rules;
}

RobotsRules RobotsRules::allow_all() { return {}; }

std::size_t RobotsRules::memory_bytes() const {
  std::size_t bytes = sizeof(RobotsRules);
  for (const std::vector<Rule>* rules : {&agent_rules_, &global_rules_}) {
    bytes += rules->capacity() * sizeof(Rule);
    for (const Rule& r : *rules) {
      bytes += r.pattern.capacity() + r.decoded.capacity() + r.index_pattern.capacity() + r.value.capacity();
    }
  }
  bytes += sitemaps_.capacity() * sizeof(std::string);
  for (const std::string& s : sitemaps_) bytes += s.capacity();
  return bytes;
}

RobotsRules RobotsRules::disallow_all() {
  RobotsRules rules;
  rules.disallow_everything_ = true;
  return rules;
}

// A Disallow also matches when the path and the pattern agree once unreserved escapes are
// decoded on both sides: the crawler's canonical URLs decode them ("/%7Ealice/" is fetched as
// "/~alice/"), and RFC 9309 2.2.2 compares decoded text, so "Disallow: /%7Ealice/" must stop it.
// Allow rules match exactly as the reference's do (a decoded Allow could permit a URL the
// reference disallows); so the difference only ever disallows more.
RobotsRules::Best RobotsRules::best_match(const std::vector<Rule>& rules, std::string_view path,
                                          std::string_view decoded_path) {
  Best best;
  std::vector<std::size_t> scratch;
  const bool path_has_escapes = decoded_path.size() != path.size();
  for (const Rule& rule : rules) {
    int priority = -1;
    const std::string& decoded = rule.decoded.empty() ? rule.pattern : rule.decoded;
    if (robots_pattern_matches(path, rule.pattern, scratch)) {
      priority = static_cast<int>(rule.pattern.size());
    } else if (!rule.allow && (path_has_escapes || !rule.decoded.empty()) &&
               robots_pattern_matches(decoded_path, decoded, scratch)) {
      priority = static_cast<int>(decoded.size());  // its length as RFC 9309 compares it
    } else if (!rule.index_pattern.empty() && robots_pattern_matches(path, rule.index_pattern, scratch)) {
      priority = static_cast<int>(rule.index_pattern.size());
    }
    // Strictly greater: among equally long matches the first in the file is reported.
    int& best_priority = rule.allow ? best.allow_priority : best.disallow_priority;
    if (priority > best_priority) {
      best_priority = priority;
      (rule.allow ? best.allow : best.disallow) = &rule;
    }
  }
  return best;
}

RobotsDecision RobotsRules::decision_from(bool allowed, const Rule* rule) {
  if (rule == nullptr) return RobotsDecision{allowed, 0, {}};
  return RobotsDecision{allowed, rule->line, (rule->allow ? "Allow: " : "Disallow: ") + rule->value};
}

RobotsDecision RobotsRules::check(std::string_view url_or_path) const {
  if (disallow_everything_) return RobotsDecision{false, 0, "robots.txt unreachable: disallow all"};
  std::string path = robots_match_path(url_or_path);
  path.resize(std::min(path.size(), path.find('\0')));  // the reference matches a C string
  // Our own group decides whenever it exists, even when none of its rules match; an empty
  // pattern (priority 0) never disallows.
  // Most paths have no escapes: then the decoded path is the path itself, not a copy.
  const std::string decoded_storage =
      path.find('%') == std::string::npos ? std::string() : decode_unreserved_escapes(path);
  const std::string_view decoded_path = decoded_storage.empty() ? std::string_view(path) : decoded_storage;
  const Best best = best_match(has_group_for_agent_ ? agent_rules_ : global_rules_, path, decoded_path);
  const bool disallowed = best.disallow_priority > 0 && best.disallow_priority > best.allow_priority;
  // The reported rule is the higher-priority match, Allow on a tie: with "Disallow:" alone it is
  // that empty Disallow, which is what allowed the URL.
  const Rule* decider = best.disallow_priority > best.allow_priority ? best.disallow : best.allow;
  return decision_from(!disallowed, decider);
}

bool RobotsRules::allowed(std::string_view url_or_path) const { return check(url_or_path).allowed; }

}  // namespace bloomcrawl
