// Scope: which canonical URLs a crawl may fetch. A URL is in scope when its host is allowed (an
// allowed host, a subdomain of an allowed domain, or a seed's host when same_host is on; every
// host when same_host is off and both lists are empty: a whole-web crawl), it matches an include
// pattern (when any are given) and no exclude pattern.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace bloomcrawl {

struct ScopeOptions {
  std::vector<std::string> allowed_hosts;    // host names, any case or script, any port
  std::vector<std::string> allowed_domains;  // the domain itself and every subdomain
  bool same_host = true;                     // the seeds' host names are allowed, on any port
  std::vector<std::string> include;          // ECMAScript regexes searched in the URL
  std::vector<std::string> exclude;
};

enum class ScopeVerdict { kInScope, kHostNotAllowed, kNotIncluded, kExcluded };
const char* scope_verdict_name(ScopeVerdict verdict);

class Scope {
 public:
  // `seed_hosts` are the canonical host[:port] keys of the seeds. Hosts and domains are compared
  // by name, whatever the port; the configured ones are lowercased and Punycode-encoded first. Throws
  // std::invalid_argument naming a pattern that is not a valid regex.
  Scope(const ScopeOptions& options, const std::vector<std::string>& seed_hosts);

  // `url` is canonical; `host` is its host[:port] key.
  ScopeVerdict check(std::string_view url, std::string_view host) const;

 private:
  bool host_allowed(std::string_view host) const;

  std::unordered_set<std::string> hosts_;  // host names, without port
  std::vector<std::string> domains_;
  bool any_host_ = false;
  std::vector<std::regex> include_;
  std::vector<std::regex> exclude_;
};

}  // namespace bloomcrawl
