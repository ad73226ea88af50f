// URL-shaped test keys: long shared prefixes and keys differing in one character, the worst
// case for a weak hash. Disjoint families (`salt`) give sets known to be absent.
#pragma once

#include <cstdint>
#include <string>

namespace bloomcrawl::testing {

inline std::string url_key(uint64_t i, uint32_t salt = 0) {
  static const char* const kHosts[] = {"https://www.example.com", "http://shop.example.org", "https://news.example.net",
                                       "https://a.b.c.example.co.uk"};
  std::string url = kHosts[i % 4];
  url += "/catalog/products/category-";
  url += std::to_string(salt);
  url += "/item?id=";
  url += std::to_string(i);
  url += "&sort=asc&page=1";
  return url;
}

// Sizes are scaled down under sanitizers, which slow code 5-20x.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr uint64_t kScale = 8;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr uint64_t kScale = 8;
#else
inline constexpr uint64_t kScale = 1;
#endif
#else
inline constexpr uint64_t kScale = 1;
#endif

}  // namespace bloomcrawl::testing
