// Fuzzes the crawl manifest reader (crawler/crawl_checkpoint.h): any bytes must decode to a
// manifest that encodes back to a manifest that decodes, or raise a CheckpointError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawler/crawl_checkpoint.h"
#include "seenfilter/checkpoint_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const bloomcrawl::CrawlManifest m = bloomcrawl::decode_crawl_manifest(bytes, "fuzz");
    const bloomcrawl::CrawlManifest again = bloomcrawl::decode_crawl_manifest(bloomcrawl::encode_crawl_manifest(m), "again");
    if (again.generation != m.generation || again.frontier_file != m.frontier_file || again.requeue.size() != m.requeue.size()) {
      std::abort();
    }
  } catch (const bloomcrawl::CheckpointError&) {
  }
  return 0;
}
