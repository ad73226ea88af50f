// The synthetic crawl the frontier benchmarks push: URL i of a reproducible sequence, its host
// chosen at random among `hosts`, realistic shapes (www.siteN.example.com/section/number...),
// 70% at depth 1 and 30% at depth 2, two depths alive per host as in a breadth-first crawl.
// With `with_parent`, the URL is packed as the crawler packs it (crawler/pipeline/queued_url.h:
// "URL PARENT"), the parent being another page of the same host.
#pragma once

#include <cstdint>
#include <string>

namespace bloomcrawl::bench {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Rebuilds host and URL into reused buffers so the generator allocates nothing while memory is
// measured.
struct Workload {
  uint64_t hosts;
  bool with_parent = false;
  uint64_t seed = 1;
  std::string host;
  std::string url;
  uint32_t depth = 0;

  void next() {
    const uint64_t r = splitmix64(seed);
    const uint64_t host_id = r % hosts;
    host.assign("www.site");
    host.append(std::to_string(host_id)).append(".example.com");
    url.clear();
    append_page(r);
    if (with_parent) {
      url.push_back(' ');
      append_page(splitmix64(seed) ^ (r & 0xfffff));
    }
    depth = (r >> 56) % 10 < 7 ? 1 : 2;
  }

 private:
  void append_page(uint64_t r) {
    static const char* const kSections[] = {"/news/", "/blog/2024/",    "/products/category-",
                                            "/wiki/", "/forum/thread-", "/"};
    url.append("https://").append(host);
    url.append(kSections[(r >> 20) % 6]);
    url.append(std::to_string((r >> 24) % 100000));
    if ((r >> 40) % 3 == 0) url.append("/article-title-with-words");
    url.append((r >> 44) % 2 == 0 ? ".html" : "?page=").append(std::to_string((r >> 48) % 50));
  }
};

}  // namespace bloomcrawl::bench
