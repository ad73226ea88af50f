// A tiny seeded generator (splitmix64) for the site generator. std::uniform_int_distribution is
// not specified bit-for-bit across standard libraries, so the site would not be reproducible
// from its seed everywhere; this is.
#pragma once

#include <cstdint>
#include <string_view>

namespace bloomcrawl::testweb {

class SiteRandom {
 public:
  explicit SiteRandom(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for n far below 2^64; n must be > 0.
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
  // True with probability 1/n.
  bool one_in(uint32_t n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

// A stable seed for one page: FNV-1a over the text mixed with the site seed and a salt.
inline uint64_t page_seed(uint64_t site_seed, uint64_t salt, std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL ^ site_seed ^ (salt * 0x9e3779b97f4a7c15ULL);
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace bloomcrawl::testweb
