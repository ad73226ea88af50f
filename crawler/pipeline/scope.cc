#include "crawler/pipeline/scope.h"

#include <algorithm>
#include <stdexcept>

#include "crawler/url/canonical.h"

namespace bloomcrawl {
namespace {

std::string_view strip_port(std::string_view host) {
  if (!host.empty() && host.front() == '[') {  // IPv6 literal: "[::1]:8080"
    size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  size_t colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

// A configured host or domain as canonical URLs spell hosts: lowercase, Punycode for a name that
// is not ASCII ("BÜCHER.example" -> "xn--bcher-kva.example"), so the config's spelling does not
// decide (config/README.md: case-insensitive). A name the URL parser refuses is kept lowercased.
std::string host_key(const std::string& name) {
  const CanonicalUrl c = canonicalize("http://" + name + "/", nullptr, CanonicalizeOptions{});
  if (c.ok()) return c.host;
  std::string lower = name;
  std::ranges::transform(lower, lower.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return lower;
}

std::vector<std::regex> compile(const std::vector<std::string>& patterns, const char* field) {
  std::vector<std::regex> out;
  for (const std::string& p : patterns) {
    try {
      out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument(std::string("scope.") + field + ": invalid regex '" + p + "': " + e.what());
    }
  }
  return out;
}

}  // namespace

const char* scope_verdict_name(ScopeVerdict verdict) {
  switch (verdict) {
    case ScopeVerdict::kInScope: return "in_scope";
    case ScopeVerdict::kHostNotAllowed: return "host_not_allowed";
    case ScopeVerdict::kNotIncluded: return "not_included";
    case ScopeVerdict::kExcluded: return "excluded";
  }
  return "unknown";
}

Scope::Scope(const ScopeOptions& options, const std::vector<std::string>& seed_hosts)
    : include_(compile(options.include, "include")), exclude_(compile(options.exclude, "exclude")) {
  for (const std::string& h : options.allowed_hosts) hosts_.insert(host_key(h));
  // A seed's host name on any port, as for allowed_hosts (which take no port).
  if (options.same_host) {
    for (const std::string& h : seed_hosts) hosts_.insert(std::string(strip_port(h)));
  }
  for (const std::string& d : options.allowed_domains) domains_.push_back(host_key(d));
  // config/README.md, scope: "With same_host off and both lists empty, every host is in scope".
  any_host_ = !options.same_host && options.allowed_hosts.empty() && options.allowed_domains.empty();
}

bool Scope::host_allowed(std::string_view host) const {
  if (any_host_) return true;
  std::string_view bare = strip_port(host);
  if (hosts_.contains(std::string(bare))) return true;
  return std::ranges::any_of(domains_, [bare](const std::string& d) {
    if (bare == d) return true;
    return bare.size() > d.size() && bare.substr(bare.size() - d.size()) == d &&
           bare[bare.size() - d.size() - 1] == '.';
  });
}

ScopeVerdict Scope::check(std::string_view url, std::string_view host) const {
  if (!host_allowed(host)) return ScopeVerdict::kHostNotAllowed;
  if (!include_.empty() || !exclude_.empty()) {
    std::string s(url);
    if (!include_.empty()) {
      bool any = false;
      for (const std::regex& re : include_) {
        if (std::regex_search(s, re)) {
          any = true;
          break;
        }
      }
      if (!any) return ScopeVerdict::kNotIncluded;
    }
    for (const std::regex& re : exclude_) {
      if (std::regex_search(s, re)) return ScopeVerdict::kExcluded;
    }
  }
  return ScopeVerdict::kInScope;
}

}  // namespace bloomcrawl
