// Writes the links of one generated page, each in a randomly chosen form equivalent to the target's
// canonical URL: absolute, uppercase scheme/host, network-path (//host:port/...), path-absolute,
// relative to the page's base ("../sec1/page3.html"), with dot segments ("./", "zz/../"), escaped
// unreserved characters ("%70age"), fragments ("#s2", "#") and surrounding whitespace. A correct
// canonicalizer maps every form back to the target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/site_model.h"
#include "tests/support/site_random.h"

namespace bloomcrawl::testweb {

class LinkWriter {
 public:
  // base_host/base_dir: the URL relative hrefs resolve against (the page's <base href> or itself).
  LinkWriter(const Site& site, size_t base_host, std::string base_dir, uint64_t seed);

  // `copies` links to the canonical path+query on `host`, each in its own random form.
  void add(size_t host, std::string_view path_query, uint32_t copies, bool nofollow = false);
  // A link written exactly as given (mailto:, out-of-scope URLs, fragment-only).
  void add_verbatim(std::string href, std::string target, bool nofollow = false);

  SiteRandom& random() { return random_; }
  std::vector<SiteLink> take() { return std::move(links_); }

 private:
  std::string relative_path(std::string_view path) const;
  std::string mutate_path(std::string path);

  const Site& site_;
  size_t base_host_;
  std::string base_dir_;
  SiteRandom random_;
  std::vector<SiteLink> links_;
};

}  // namespace bloomcrawl::testweb
