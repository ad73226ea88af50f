// Fuzzes Frontier::restore(). The first byte picks the mode: even = the rest as raw snapshot
// bytes (exercises framing and checksum), odd = the rest as a body framed with a valid magic and
// checksum (exercises the body parser). Corrupted input must throw std::runtime_error, never
// crash or hang; accepted input must re-snapshot to a fixed point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "frontier/frontier.h"
#include "frontier/frontier_snapshot.h"

namespace {

std::string frame(std::string_view body) {
  std::string bytes(bloomcrawl::kFrontierSnapshotMagic);
  bytes.append(body);
  bloomcrawl::seal_frontier_snapshot(bytes);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string input = (data[0] & 1) != 0 ? frame(rest) : std::string(rest);
  bloomcrawl::FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  try {
    bloomcrawl::Frontier restored = bloomcrawl::Frontier::restore(input, options);
    const std::string once = restored.snapshot();
    const std::string twice = bloomcrawl::Frontier::restore(once, options).snapshot();
    if (once != twice) std::abort();  // restore(snapshot()) must be lossless
    // Drain a little to run the restored queues through dispatch.
    const auto now = bloomcrawl::Clock::now();
    for (int i = 0; i < 64; ++i) {
      auto lease = restored.pop_ready(now);
      if (!lease) break;
      restored.complete(*lease, now, bloomcrawl::HostOutcome::ok());
    }
  } catch (const std::runtime_error&) {
    // Expected for corrupted input.
  }
  return 0;
}
