// Fuzzes the crawl journal reader and its replay (crawler/persist/journal.h, journal_replay.h): any bytes
// must give records, a described torn tail, or a CheckpointError - never a crash or a hang. Each
// input is tried raw (framing, torn tails) and cut into well-framed records (type byte, length
// byte, payload), so the payload decoders are reached past the checksums.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/data_error.h"
#include "crawler/persist/journal.h"
#include "crawler/persist/journal_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bloomcrawl::JournalReplay replay;
  try {
    bloomcrawl::replay_journal_bytes(bytes, "fuzz", replay);
  } catch (const bloomcrawl::CheckpointError&) {
  }
  bloomcrawl::JournalBatch batch;
  for (size_t at = 0; at + 2 <= size;) {
    const uint8_t type = data[at];
    const size_t length = std::min<size_t>(data[at + 1], size - at - 2);
    batch.add(type, bytes.substr(at + 2, length));
    at += 2 + length;
  }
  bloomcrawl::JournalReplay framed;
  bloomcrawl::replay_journal_bytes(std::string(bloomcrawl::kJournalMagic) + batch.bytes(), "framed", framed);
  return 0;
}
