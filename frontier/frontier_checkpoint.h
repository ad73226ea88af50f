// The disk frontier's checkpoint directory (docs/frontier.md, "Checkpoints of a disk frontier"
// and "State file format"): `store/`, a RocksDB checkpoint of the URL store (SST files
// hard-linked), and `frontier-state`, the small state. Frontier::checkpoint() writes it,
// Frontier::open_checkpoint() reads it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace bloomcrawl {

inline constexpr std::string_view kFrontierStateMagic{"BCFRST\x00\x01", 8};  // version 1
inline constexpr std::string_view kFrontierStateFile = "frontier-state";
inline constexpr std::string_view kFrontierStoreDirectory = "store";

struct FrontierCheckpointStats {
  // Time the frontier's lock was held, i.e. callers were blocked: the capture and the end.
  std::chrono::nanoseconds pause{0};
  std::chrono::nanoseconds total{0};
  uint64_t state_bytes = 0;  // the frontier-state file
  uint64_t queued = 0;       // URLs the checkpoint holds (leases as released)
};

}  // namespace bloomcrawl
