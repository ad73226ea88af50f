// AuditSet: the exact record, kept beside the seen filter when `audit` is on, of what the filter
// answered for every canonical URL (by its 64-bit XXH3 hash). It counts the filter's real false
// positives: a "seen" answer for a URL that no admission ever got "new" for (a page wrongly
// skipped), as against a true duplicate, so the filter's estimate can be checked against a count.
// Exact under any concurrency: two workers admitting one URL at once can reach record() in
// either order after their filter inserts (A's insert says new, B's says seen, B records first).
// B's "seen" is then counted for now and withdrawn when A's "new" arrives, so once no admission
// is between its filter insert and record() (at a checkpoint cut, at the end) the count is exact.
// 64-bit hashes collide with probability ~n²/2^65 (~3e-8 at a million URLs): negligible here.
// Thread-safe. Costs ~40 bytes per URL (a hash-map node), which is why it is off by default.
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/data_error.h"

namespace bloomcrawl {

uint64_t audit_hash(std::string_view canonical_url);

class AuditSet {
 public:
  // One answer of the filter for the URL with this hash. True when it is the first "seen" for a
  // URL that no admission has got "new" for: a false positive unless a "new" still arrives (the
  // caller journals it; a replay withdraws it the same way, see replay()).
  bool record(uint64_t hash, bool filter_said_new);
  // "Seen" answers for URLs never admitted; exact whenever no record() is pending.
  uint64_t false_positives() const;
  // URLs that some admission got "new" for.
  uint64_t admitted() const;
  // URLs the filter answered for at all (admitted, or seen and never admitted).
  size_t size() const;
  // Every hash, in no order (a checkpoint copies them in its pause and sorts them after).
  std::vector<uint64_t> hashes() const;
  // A checkpoint's set and count, cut when every answer was settled: each hash is then either
  // admitted or a counted false positive.
  void restore(const std::vector<uint64_t>& hashes, uint64_t false_positives);

 private:
  static constexpr uint8_t kGotNew = 1;       // some admission got "new"
  static constexpr uint8_t kCountedSeen = 2;  // a "seen" came first and was counted
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, uint8_t> urls_;
  uint64_t admitted_ = 0;
  uint64_t false_positives_ = 0;
};

// The audit file of a checkpoint: magic "BCAUDIT\x01", u64 count, count sorted u64 hashes, XXH3-64
// of everything before. Decoding throws CheckpointError naming `name`.
std::string encode_audit_file(const std::vector<uint64_t>& sorted_hashes);
std::vector<uint64_t> decode_audit_file(std::string_view bytes, const std::string& name);

}  // namespace bloomcrawl
