// ShardKeyFiles: a compact-filter job's keys by shard (compact_layers.h), one file per shard in a
// directory of its own, so that the job holds one shard's keys in memory at a time. A file is the
// shard's log hashes, rotated left by the shard bits, as raw 8-byte little-endian words; beside
// each file the object keeps its key count and an order-independent check of its keys (the sum of
// their mix64), and read() refuses a file that does not match both.
//
// A run's build uses fresh files and empties them. A merge keeps its files as the *key cache* of
// the big level it built: save() writes a manifest (`KEYS`, docs/seenfilter.md "Key cache")
// naming the log keys they cover, and the next merge reopens them (reopen()) and appends only the
// keys after them, instead of spilling the whole log again. The cache is never trusted blindly: a
// manifest that does not parse, covers other keys or another shard count, or names files shorter
// than their counts is not reopened; files longer than their counts (a merge killed after its
// appends) are cut back to them; a file whose keys do not match its check (data lost to a power
// cut) is found by read(), and the caller spills the log again. Nothing here is fsynced: the log
// stays the source of every key.
// Not thread-safe: one job uses it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace bloomcrawl::seenfilter {

// The directories of a job's key files, the hash log's path with this appended: a merge's (kept
// as the key cache) and a run's.
inline constexpr std::string_view kMergeKeyFilesSuffix = ".keys";
inline constexpr std::string_view kRunKeyFilesSuffix = ".rebuild";

// The key cache's manifest (docs/seenfilter.md, "Key files and the key cache").
struct KeyCacheManifest {
  uint32_t bits = 0;
  uint64_t covered = 0;
  std::vector<uint64_t> keys;    // per shard; they add up to covered
  std::vector<uint64_t> checks;  // per shard
};
// The manifest in `bytes`; nullopt when they are not a whole, valid one.
std::optional<KeyCacheManifest> decode_key_cache_manifest(std::string_view bytes);

class ShardKeyFiles {
 public:
  // Empty files for 2^bits shards in `dir` (created if missing; anything else in it is removed,
  // the manifest too).
  static ShardKeyFiles fresh(const std::filesystem::path& dir, uint32_t bits);
  // The key cache in `dir` if its manifest covers exactly the log's first `covered` keys in
  // 2^bits shards (and every file holds at least its keys); nullopt otherwise.
  static std::optional<ShardKeyFiles> reopen(const std::filesystem::path& dir, uint32_t bits, uint64_t covered);

  uint32_t bits() const { return bits_; }
  uint64_t covered() const { return covered_; }  // log keys the files hold: [0, covered) for a cache
  uint64_t keys(uint32_t shard) const { return keys_[shard]; }

  // Appends the hash log's keys [first, upto) to their shards' files (first must be covered(), or
  // any position for fresh files that never held keys), gathering up to `batch` hashes per shard
  // before each write. Returns the bytes of those buffers. Throws CheckpointError when the log
  // holds fewer than `upto` keys or a write fails.
  uint64_t append_from_log(const std::filesystem::path& log, uint64_t first, uint64_t upto, size_t batch);
  // The shard's keys into `keys` (resized); false when the file does not hold its count of keys
  // or they do not match their check.
  bool read(uint32_t shard, std::vector<uint64_t>& keys) const;
  // The shard's keys streamed through `chunk` (any size from one key): `visit` sees them in file
  // order, a chunk at a time, and only then are they checked, so its caller must drop what it made
  // of them when this returns false, as read() does.
  bool read_in_chunks(uint32_t shard, std::span<uint64_t> chunk,
                      const std::function<void(std::span<const uint64_t>)>& visit) const;
  void clear(uint32_t shard) const;  // empties a run's file once its shard is built
  // Writes the manifest (temporary file and rename) naming the files as the key cache of the
  // log's first covered() keys. False when it cannot: the cache is only an optimisation, and a
  // manifest left from before names other keys, so it is not reopened for these.
  bool save() const;

 private:
  ShardKeyFiles(std::filesystem::path dir, uint32_t bits);
  std::filesystem::path file(uint32_t shard) const;
  bool is_shard_file(std::string_view name) const;  // "shard-N" with N < 2^bits

  std::filesystem::path dir_;
  uint32_t bits_ = 0;
  uint64_t covered_ = 0;
  std::vector<uint64_t> keys_;    // per shard
  std::vector<uint64_t> checks_;  // per shard: the sum of mix64 of its keys
};

}  // namespace bloomcrawl::seenfilter
