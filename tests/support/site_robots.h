// The robots.txt of a generated host and the verdict it gives a crawler that is not named in it
// (the `User-agent: *` group). The rules are fixed by the site generator, so the matcher only needs
// RFC 9309 path patterns: `*` wildcards, a trailing `$`, longest match wins, Allow wins a tie.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomcrawl::testweb {

struct RobotsRule {
  bool allow = false;
  std::string pattern;
};

class SiteRobots {
 public:
  // has_robots_txt=false models a host whose /robots.txt is 404: everything allowed.
  explicit SiteRobots(bool has_robots_txt);

  bool has_robots_txt() const { return has_robots_txt_; }
  // The robots.txt body served for the host (empty when there is none).
  std::string text() const;
  // Whether a crawler obeying the `*` group may fetch this canonical path+query.
  bool allowed(std::string_view path_query) const;

 private:
  bool has_robots_txt_;
  std::vector<RobotsRule> rules_;  // the `User-agent: *` group
};

// RFC 9309 pattern match of `pattern` against the start of `path` ('*' any run, final '$' = end).
bool robots_pattern_matches(std::string_view pattern, std::string_view path);

}  // namespace bloomcrawl::testweb
