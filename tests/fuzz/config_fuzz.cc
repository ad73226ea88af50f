// parse_config on arbitrary bytes: it either returns a config or throws ConfigError; any other
// exception, crash, hang or sanitizer report is a bug. Accepted configs must survive a to_json
// round trip unchanged, and config_warnings() must name only fields of the config.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/config_warnings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bloomcrawl::CrawlConfig config;
  try {
    // A bare source name: a seeds.file the input names resolves to the working directory, where
    // it almost surely does not exist, which exercises the missing-file path harmlessly.
    config = bloomcrawl::parse_config(text, "fuzz.json");
  } catch (const bloomcrawl::ConfigError&) {
    return 0;
  }
  bloomcrawl::CrawlConfig again = bloomcrawl::parse_config(bloomcrawl::to_json(config).dump(), "fuzz.json");
  if (!(again == config)) std::abort();
  for (const std::string& warning : bloomcrawl::config_warnings(config)) {
    if (!warning.starts_with("/")) std::abort();
  }
  return 0;
}
