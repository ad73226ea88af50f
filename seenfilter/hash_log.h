// The hash log: every key inserted into the seen filter, as one 64-bit hash, appended in order to
// one checksummed file beside the layers (format: docs/seenfilter.md, "Hash log"). It is what a
// static compact filter is rebuilt from: a sealed Bloom layer no longer has its keys.
//
// Appends are whole records of up to kMaxHashLogRecordKeys hashes, each with its own check, so a
// kill mid-append leaves a torn last record that readers stop before. A writer opened for a
// loaded checkpoint first cuts the log to the keys that checkpoint covers: the log never holds a
// key the filter's saved state does not. Writes go through the base/file_system.h seam.
// Not thread-safe: one writer, owned by whoever serializes the filter's inserts into the log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_system.h"
#include "seenfilter/key_hash.h"

namespace bloomcrawl::seenfilter {

inline constexpr uint32_t kMaxHashLogRecordKeys = 65536;
inline constexpr size_t kHashLogHeaderBytes = 16;
inline constexpr size_t kHashLogRecordHeaderBytes = 8;

// The 64-bit hash the log keeps of a key (and the compact filter is built from).
inline uint64_t log_hash(const KeyHash& hash) { return hash.low ^ hash.high; }

struct HashLogContents {
  uint64_t keys = 0;         // in the intact records
  uint64_t valid_bytes = 0;  // header and intact records
  bool torn_tail = false;    // bytes after them (an incomplete or damaged last record)
};

using HashLogVisitor = std::function<void(std::span<const uint64_t> hashes)>;

// Decodes a whole log held in memory, calling `visit` once per intact record in order. Throws
// CheckpointError naming `file` when the header is not a hash log's.
HashLogContents decode_hash_log(std::string_view bytes, const std::string& file, const HashLogVisitor& visit);
// The same, streaming the file in records (a log of a billion keys is 8 GB). Keys before
// `first_key` are skipped (whole records without reading them: a run's build reads only the end).
HashLogContents read_hash_log(const std::filesystem::path& path, const HashLogVisitor& visit, uint64_t first_key = 0);

class HashLogWriter {
 public:
  // Appends to the log at `path`, creating it if missing. An existing log is first cut to its
  // first `keep_keys` keys; CheckpointError if it holds fewer (or is not a hash log).
  HashLogWriter(const std::filesystem::path& path, uint64_t keep_keys);
  HashLogWriter(const HashLogWriter&) = delete;
  HashLogWriter& operator=(const HashLogWriter&) = delete;

  // Buffered; full records are written as they fill.
  void append(std::span<const uint64_t> hashes);
  void append(uint64_t hash) { append(std::span<const uint64_t>(&hash, 1)); }
  void flush();                            // writes the buffered hashes as one record (no fsync)
  void sync();                             // flush, then fdatasync: every key appended so far survives a crash
  uint64_t keys() const { return keys_; }  // written and buffered
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  // Creates the log, or cuts it to the last record boundary at or before keep_keys and returns in
  // *partial the kept keys of the record after it (written back as a record of their own).
  // Returns keep_keys.
  static uint64_t cut(const std::filesystem::path& path, uint64_t keep_keys, std::vector<uint64_t>* partial);
  void write_record(std::span<const uint64_t> hashes);

  std::vector<uint64_t> buffer_;  // before keys_: cut() fills it
  uint64_t keys_ = 0;
  WritableFile file_;
};

}  // namespace bloomcrawl::seenfilter
