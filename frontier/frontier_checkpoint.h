// The disk frontier's checkpoint directory (docs/frontier.md, "Checkpoints of a disk frontier"
// and "State file format"): `store/`, a RocksDB checkpoint of the URL store (SST files
// hard-linked), and `frontier-state`, the small state. Frontier::checkpoint() writes it,
// Frontier::open_checkpoint() reads it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontier/frontier_snapshot.h"

namespace bloomcrawl {

class UrlArena;

inline constexpr std::string_view kFrontierStateMagic{"BCFRST\x00\x01", 8};  // version 1
inline constexpr std::string_view kFrontierStateFile = "frontier-state";
inline constexpr std::string_view kFrontierStoreDirectory = "store";

// A disk checkpoint cut at one instant (Frontier::cut_checkpoint()), to be written once by
// Frontier::write_checkpoint(). Until it is, URLs completed since the cut stay in the store.
struct DiskCheckpointCut {
  // The per-host state as copied in the pause, a flat vector (O(hosts), no encoding): the state
  // file is encoded from it after the pause. Keys and group names are views into `strings`.
  struct Host {
    FrontierHostSettings settings;
    uint64_t queued = 0;  // leases included, as released
  };
  std::shared_ptr<const UrlArena> strings;
  std::vector<std::string_view> group_names;
  std::vector<Host> hosts;
  uint64_t seq_at_capture = 0;
  uint64_t queued_bytes = 0;
  uint64_t queued = 0;
  std::chrono::nanoseconds pause{0};
  // Set when the store copy is done: seqs in it that are not part of this cut.
  uint64_t next_seq = 0;
  std::vector<std::pair<uint64_t, uint64_t>> stale;  // [from, to)
};
// The state file (docs/frontier.md, "State file format") of a written cut.
std::string encode_frontier_state(const DiskCheckpointCut& cut);

struct FrontierCheckpointStats {
  // Time the frontier's lock was held, i.e. callers were blocked: the capture and the end.
  std::chrono::nanoseconds pause{0};
  std::chrono::nanoseconds total{0};
  uint64_t state_bytes = 0;  // the frontier-state file
  uint64_t queued = 0;       // URLs the checkpoint holds (leases as released)
};

}  // namespace bloomcrawl
