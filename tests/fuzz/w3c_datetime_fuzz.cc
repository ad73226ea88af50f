// libFuzzer target for the sitemap <lastmod> parser: arbitrary bytes must never crash, and a date
// it accepts must read the same with whitespace around it (the one liberty the parser takes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "crawler/recrawl/w3c_datetime.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<std::int64_t> seconds = bloomcrawl::recrawl::parse_w3c_datetime(text);
  if (seconds && bloomcrawl::recrawl::parse_w3c_datetime(" " + std::string(text) + "\n") != seconds) {
    std::abort();
  }
  return 0;
}
