// parse_sitemap on arbitrary bytes (plain or gzip): no crash, no hang, caps respected.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crawler/extract/sitemap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  bloomcrawl::Sitemap s = bloomcrawl::parse_sitemap(body, 100, 1 << 20);
  if (s.locs.size() > 100) __builtin_trap();
  for (const std::string& loc : s.locs) {
    if (loc.empty()) __builtin_trap();
  }
  return 0;
}
