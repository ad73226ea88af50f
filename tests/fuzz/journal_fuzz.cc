// Fuzzes the crawl journal reader and its replay (crawler/journal.h, journal_replay.h): any bytes
// must give records, a described torn tail, or a CheckpointError - never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "crawler/journal_replay.h"
#include "seenfilter/checkpoint_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bloomcrawl::JournalReplay replay;
  try {
    bloomcrawl::replay_journal_bytes(bytes, "fuzz", replay);
  } catch (const bloomcrawl::CheckpointError&) {
  }
  return 0;
}
