#include "tests/support/site_generator.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "tests/support/site_model.h"
#include "tests/support/site_render.h"
#include "tests/support/site_truth.h"
#include "tests/support/test_web_files.h"

namespace bloomcrawl::testweb {
namespace {

void write_file(const std::filesystem::path& path, const std::string& contents) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  if (!out) throw std::runtime_error("static site: cannot write " + path.string());
}

}  // namespace

void generate_static_site(const StaticSiteOptions& options, std::ostream& progress) {
  if (options.directory.empty()) throw std::invalid_argument("static site: no output directory given");
  const Site site(SiteOptions{.hosts = options.hosts,
                              .port = options.port,
                              .pages_per_host = options.pages_per_host,
                              .seed = options.seed,
                              .robots = options.robots,
                              .trap = false,
                              .dynamic = false});
  const std::filesystem::path root(options.directory);
  uint64_t written = 0;
  for (size_t host = 0; host < site.host_count(); ++host) {
    const std::filesystem::path host_root = root / options.hosts[host];
    if (site.robots(host).has_robots_txt())
      write_file(host_root / "robots.txt", render_site_path(site, host, "/robots.txt").body);
    for (const std::string& path : site.static_paths()) {
      const SiteResponse response = render_site_path(site, host, path);
      write_file(host_root / (path == "/" ? "index.html" : path.substr(1)), response.body);
      if (++written % 10000 == 0) progress << "static site: " << written << " files written\n" << std::flush;
    }
  }
  const GroundTruth truth = compute_ground_truth(site, {site.home_url(0)}, std::numeric_limits<uint32_t>::max());
  std::string lines;
  for (const auto& url : truth.urls()) lines += url + "\n";
  if (!options.ground_truth.empty()) write_file_atomically(options.ground_truth, lines);
  progress << "static site: " << written << " files in " << root.string() << ", " << truth.entries.size()
           << " URLs in the ground truth\n";
}

}  // namespace bloomcrawl::testweb
