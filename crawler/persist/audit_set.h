// AuditSet: the exact set of 64-bit hashes (XXH3-64) of every canonical URL the crawl admitted or
// was told was seen, kept beside the seen filter when `audit` is on. It tells a real false
// positive of the filter (the filter said "seen", the exact set says new: a page wrongly skipped)
// from a true duplicate, so the filter's estimated false positives can be checked against a count.
// 64-bit hashes collide with probability ~n²/2^65 (~3e-8 at a million URLs): negligible here.
// Thread-safe. Costs ~40 bytes per URL (a hash-set node), which is why it is off by default.
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/data_error.h"

namespace bloomcrawl {

uint64_t audit_hash(std::string_view canonical_url);

class AuditSet {
 public:
  // True if the hash was not in the set.
  bool insert(uint64_t hash);
  size_t size() const;
  // Every hash, in no order (a checkpoint copies them in its pause and sorts them after).
  std::vector<uint64_t> hashes() const;
  void insert_all(const std::vector<uint64_t>& hashes);

 private:
  mutable std::mutex mu_;
  std::unordered_set<uint64_t> hashes_;
};

// The audit file of a checkpoint: magic "BCAUDIT\x01", u64 count, count sorted u64 hashes, XXH3-64
// of everything before. Decoding throws CheckpointError naming `name`.
std::string encode_audit_file(const std::vector<uint64_t>& sorted_hashes);
std::vector<uint64_t> decode_audit_file(std::string_view bytes, const std::string& name);

}  // namespace bloomcrawl
