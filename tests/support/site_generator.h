// Writes a static copy of a generated site (no redirects, 500s, query pages or trap: those need a
// live server) for a web server such as nginx to serve in the crawl benchmark, plus its ground
// truth. Layout: <directory>/<host>/<path>, "/" stored as index.html; robots.txt where the host
// has one. The ground truth file lists one canonical URL a line, sorted, for unlimited depth.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace bloomcrawl::testweb {

struct StaticSiteOptions {
  std::string directory;
  std::vector<std::string> hosts{"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  uint16_t port = 8080;
  uint32_t pages_per_host = 20000;
  uint64_t seed = 1;
  bool robots = true;
  std::string ground_truth;  // path of the ground truth file
};

// Throws std::runtime_error naming the file that could not be written. Reports progress to
// `progress` every 10,000 files.
void generate_static_site(const StaticSiteOptions& options, std::ostream& progress);

}  // namespace bloomcrawl::testweb
