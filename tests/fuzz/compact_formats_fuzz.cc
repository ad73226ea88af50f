// Fuzz target for the compact seen filter's on-disk formats (docs/seenfilter.md): the shard files
// (compact filter file, sorted filter file), the hash log and the key cache manifest. The first
// input byte picks what the rest is:
//   0: a shard file of either kind, decoded as is;
//   1: a shard file whose trailing checksum is recomputed, so the field checks are reached, then
//      probed (a decoded filter must answer lookups without reading out of bounds);
//   2: a hash log, decoded;
//   3: a key cache manifest (shard_key_files.h) whose trailing checksum is recomputed, decoded:
//      one that decodes must have a shard entry per shard and keys adding up to what it covers.
// Any outcome but a clean decode or a CheckpointError is a bug.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "seenfilter/hash_log.h"
#include "seenfilter/shard_key_files.h"
#include "seenfilter/static_filter.h"

namespace {

using namespace bloomcrawl;

void fuzz_compact_filter(std::string bytes, bool fix_checksum) {
  if (fix_checksum && bytes.size() >= 8) {
    const size_t body = bytes.size() - 8;
    store_u64(reinterpret_cast<uint8_t*>(bytes.data()) + body, checksum64(bytes.data(), body));
  }
  try {
    const seenfilter::StaticFilter filter = seenfilter::StaticFilter::decode(bytes, "fuzz-compact");
    uint64_t probe = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 64; ++i) {
      probe = seenfilter::mix64(probe + static_cast<uint64_t>(i));
      filter.prefetch(probe);
      (void)filter.contains(probe);
    }
  } catch (const CheckpointError&) {
  }
}

void fuzz_hash_log(const std::string& bytes) {
  try {
    uint64_t keys = 0;
    const seenfilter::HashLogContents contents =
        seenfilter::decode_hash_log(bytes, "fuzz-hashlog", [&](std::span<const uint64_t> h) { keys += h.size(); });
    if (contents.keys != keys || contents.valid_bytes > bytes.size()) __builtin_trap();
  } catch (const CheckpointError&) {
  }
}

void fuzz_key_cache_manifest(std::string bytes) {
  if (bytes.size() >= 8) {
    const size_t body = bytes.size() - 8;
    store_u64(reinterpret_cast<uint8_t*>(bytes.data()) + body, checksum64(bytes.data(), body));
  }
  const std::optional<seenfilter::KeyCacheManifest> m = seenfilter::decode_key_cache_manifest(bytes);
  if (!m) return;
  uint64_t keys = 0;
  for (const uint64_t k : m->keys) keys += k;
  if (m->keys.size() != (size_t{1} << m->bits) || m->checks.size() != m->keys.size() || keys != m->covered) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: fuzz_compact_filter(std::move(rest), false); break;
    case 1: fuzz_compact_filter(std::move(rest), true); break;
    case 2: fuzz_hash_log(rest); break;
    default: fuzz_key_cache_manifest(std::move(rest)); break;
  }
  return 0;
}
