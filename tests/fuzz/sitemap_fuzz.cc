// parse_sitemap on arbitrary bytes (plain or gzip): no crash, no hang, caps respected, every URL
// with a loc and its hints trimmed.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crawler/extract/sitemap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  bloomcrawl::Sitemap s = bloomcrawl::parse_sitemap(body, 100, 1 << 20);
  if (s.urls.size() > 100) __builtin_trap();
  auto trimmed = [](const std::string& text) {
    return text.empty() || (std::isspace(static_cast<unsigned char>(text.front())) == 0 &&
                            std::isspace(static_cast<unsigned char>(text.back())) == 0);
  };
  for (const bloomcrawl::SitemapUrl& u : s.urls) {
    if (u.loc.empty() || !trimmed(u.loc) || !trimmed(u.lastmod) || !trimmed(u.changefreq)) __builtin_trap();
  }
  return 0;
}
