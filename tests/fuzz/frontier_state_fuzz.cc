// Fuzzes Frontier::open_checkpoint()'s reading of the `frontier-state` file (docs/frontier.md,
// "State file format") beside a real, empty store checkpoint. The first byte picks the mode: even
// = the rest as raw file bytes (framing and checksum), odd = the rest as a body framed with a
// valid magic and checksum (the body parser). Corrupted input must throw std::runtime_error, never
// crash or hang; accepted input must checkpoint to a fixed point. Seeds (corpus/frontier_state_fuzz)
// are state files written by real checkpoints, prefixed with the mode byte.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "frontier/frontier.h"
#include "frontier/frontier_snapshot.h"

namespace {

namespace fs = std::filesystem;
using bloomcrawl::Frontier;
using bloomcrawl::FrontierOptions;

// RocksDB opens are the cost of every run: on tmpfs when there is one.
fs::path scratch_root() {
  const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  return base / ("bloomcrawl-frontier-state-fuzz-" + std::to_string(getpid()));
}

FrontierOptions options_in(const fs::path& live) {
  FrontierOptions options;
  options.default_delay = std::chrono::milliseconds(0);
  options.store_directory = live.string();
  options.memory_limit_bytes = 1 << 20;
  return options;
}

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream content;
  content << file.rdbuf();
  return std::move(content).str();
}

// A checkpoint directory whose store is a real, empty store checkpoint; its state file is
// replaced by each input.
const fs::path& checkpoint_dir() {
  static const fs::path dir = [] {
    const fs::path root = scratch_root();
    fs::remove_all(root);
    Frontier empty(options_in(root / "seed-live"));
    empty.checkpoint(root / "input");
    std::atexit([] { fs::remove_all(scratch_root()); });
    return root / "input";
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const fs::path& input_dir = checkpoint_dir();
  const fs::path root = input_dir.parent_path();
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string input;
  if ((data[0] & 1) != 0) {
    input.assign(bloomcrawl::kFrontierStateMagic);
    input.append(rest);
    bloomcrawl::seal_frontier_snapshot(input);
  } else {
    input.assign(rest);
  }
  std::ofstream(input_dir / bloomcrawl::kFrontierStateFile, std::ios::binary | std::ios::trunc) << input;
  fs::remove_all(root / "again");
  fs::remove_all(root / "twice");
  try {
    Frontier opened = Frontier::open_checkpoint(input_dir, options_in(root / "live"));
    opened.checkpoint(root / "again");
    const std::string once = read_file(root / "again" / bloomcrawl::kFrontierStateFile);
    Frontier::open_checkpoint(root / "again", options_in(root / "live2")).checkpoint(root / "twice");
    if (once != read_file(root / "twice" / bloomcrawl::kFrontierStateFile)) std::abort();
    // Dispatch a little: hosts that claim URLs the empty store lacks fail with a runtime_error.
    const auto now = bloomcrawl::Clock::now();
    for (int i = 0; i < 16; ++i) {
      auto lease = opened.pop_ready(now);
      if (!lease) break;
      opened.complete(*lease, now, bloomcrawl::HostOutcome::ok());
    }
  } catch (const std::runtime_error&) {
    // Expected for corrupted input.
  }
  return 0;
}
