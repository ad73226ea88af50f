// URL-shaped benchmark keys generated from an index, so 100M keys need no 6 GB of memory and
// every structure in a run sees exactly the same keys.
//
// Key (index, family) = <prefix of index/16> + "id=" + <family digit> + <decimal index>. The
// prefix (scheme, host among 50,000 per name, deep path, item number, query string) depends only
// on index/16, so 16 consecutive keys share a ~60-120 byte prefix and differ in their last one or
// two characters, and the key of family 1 differs from that of family 0 in exactly one
// character: the worst case for a weak hash. The suffix after the last '=' decodes back to
// (family, index), so keys are unique and families are disjoint: family 1 is "known absent".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace bloomcrawl::bench {

inline constexpr size_t kMaxUrlKeyBytes = 256;

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class UrlKeyWriter {
 public:
  // Writes key (index, family) at `out` (kMaxUrlKeyBytes available); returns its length.
  static size_t write(uint64_t index, uint32_t family, char* out) {
    char* p = out;
    const uint64_t h = splitmix64(index >> 4);
    const uint64_t h2 = splitmix64(h);
    p = put(p, pick(kSchemes, h));
    p = put(p, pick(kSubdomains, h >> 4));
    p = put(p, pick(kNames, h >> 8));
    p = put_decimal(p, (h >> 16) % 50000);
    p = put(p, pick(kTlds, h >> 40));
    p = put(p, pick(kPaths, h >> 48));
    p = put(p, pick(kSlugs, h2));
    p = put_decimal(p, (h2 >> 8) % 1000000);
    p = put(p, pick(kQueries, h2 >> 32));
    p = put(p, std::string_view("id="));
    *p++ = static_cast<char>('0' + family % 10);
    p = put_decimal(p, index);
    return static_cast<size_t>(p - out);
  }

 private:
  template <size_t N>
  static std::string_view pick(const std::string_view (&table)[N], uint64_t bits) {
    return table[bits % N];
  }
  static char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  static char* put_decimal(char* p, uint64_t v) {
    char digits[20];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) *p++ = digits[--n];
    return p;
  }

  static constexpr std::string_view kSchemes[] = {"https://", "https://", "https://", "http://"};
  static constexpr std::string_view kSubdomains[] = {"www.", "", "shop.", "blog.", "m.", "news.", "static.cdn."};
  static constexpr std::string_view kNames[] = {"example",     "acme-store", "newsportal",          "university",
                                                "wiki-mirror", "forum",      "recipes-and-cooking", "travelguide"};
  static constexpr std::string_view kTlds[] = {".com", ".org", ".net", ".co.uk", ".de", ".io", ".com.au"};
  static constexpr std::string_view kPaths[] = {
      "/catalog/electronics/computers/laptops/", "/news/2024/11/", "/wiki/Special:Search/",     "/forum/viewtopic.php/",
      "/blog/category/uncategorized/",           "/products/",     "/en-us/docs/reference/api/"};
  static constexpr std::string_view kSlugs[] = {"item-", "article-", "page-", "t-", "post-"};
  static constexpr std::string_view kQueries[] = {"?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale&",
                                                  "?sort=price_asc&view=grid&per_page=48&", "?ref=homepage&",
                                                  "?session=abcdef0123456789&lang=en&", "?"};
};

// A reusable batch of keys: `count` keys with indices begin, begin + stride, ... written into
// one arena (no allocation after the first fill of a given size).
class UrlKeyChunk {
 public:
  void fill(uint64_t begin, uint64_t stride, size_t count, uint32_t family) {
    arena_.resize(count * kMaxUrlKeyBytes);
    keys_.resize(count);
    char* p = arena_.data();
    for (size_t i = 0; i < count; ++i) {
      const size_t n = UrlKeyWriter::write(begin + i * stride, family, p);
      keys_[i] = std::string_view(p, n);
      p += n;
    }
  }
  const std::vector<std::string_view>& keys() const { return keys_; }

 private:
  std::vector<char> arena_;
  std::vector<std::string_view> keys_;
};

}  // namespace bloomcrawl::bench
