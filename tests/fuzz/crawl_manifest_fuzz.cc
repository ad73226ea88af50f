// Fuzzes the crawl manifest reader (crawler/persist/crawl_checkpoint.h): any bytes must decode to a
// manifest that encodes back to an equal one, or raise a CheckpointError. Each input is tried
// raw (the framing) and as a body framed with a valid length and checksum (the JSON fields,
// which the checksum would otherwise keep the fuzzer from reaching).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "crawler/persist/crawl_checkpoint.h"

namespace {

void decode_and_round_trip(std::string_view bytes) {
  try {
    const bloomcrawl::CrawlManifest m = bloomcrawl::decode_crawl_manifest(bytes, "fuzz");
    const bloomcrawl::CrawlManifest again =
        bloomcrawl::decode_crawl_manifest(bloomcrawl::encode_crawl_manifest(m), "again");
    if (again.generation != m.generation || again.frontier_file != m.frontier_file ||
        again.frontier_directory != m.frontier_directory || again.requeue.size() != m.requeue.size() ||
        again.outstanding != m.outstanding) {
      std::abort();
    }
  } catch (const bloomcrawl::CheckpointError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  decode_and_round_trip(bytes);
  std::string framed(bloomcrawl::kCrawlManifestMagic);
  bloomcrawl::put_le(framed, size % 2 == 0 ? bloomcrawl::kCrawlManifestVersion : 1, 4);  // both readers
  bloomcrawl::put_le(framed, size, 4);
  framed.append(bytes);
  bloomcrawl::put_le(framed, bloomcrawl::checksum64(framed), 8);
  decode_and_round_trip(framed);
  return 0;
}
