#include "seenfilter/key_hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomcrawl {

KeyHash hash_key(std::string_view key) {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return {h.low64, h.high64};
}

}  // namespace bloomcrawl
