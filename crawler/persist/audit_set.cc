#include "crawler/persist/audit_set.h"

#include <algorithm>
#include <cstring>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"

namespace bloomcrawl {
namespace {

constexpr std::string_view kAuditMagic{"BCAUDIT\x01", 8};

}  // namespace

uint64_t audit_hash(std::string_view canonical_url) { return checksum64(canonical_url); }

bool AuditSet::record(uint64_t hash, bool filter_said_new) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, first] = urls_.try_emplace(hash, uint8_t{0});
  uint8_t& state = it->second;
  if (filter_said_new) {
    if (state & kGotNew) return false;  // the filter inserts each key once; a replay may repeat it
    state |= kGotNew;
    ++admitted_;
    if (state & kCountedSeen) --false_positives_;  // the race in the header: that "seen" was this URL's
    return false;
  }
  if (!first) return false;  // a true duplicate, or a false positive counted already
  state = kCountedSeen;
  ++false_positives_;
  return true;
}

uint64_t AuditSet::false_positives() const {
  std::lock_guard<std::mutex> lock(mu_);
  return false_positives_;
}

uint64_t AuditSet::admitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return admitted_;
}

size_t AuditSet::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return urls_.size();
}

std::vector<uint64_t> AuditSet::hashes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> out;
  out.reserve(urls_.size());
  for (const auto& [hash, state] : urls_) out.push_back(hash);
  return out;
}

void AuditSet::restore(const std::vector<uint64_t>& hashes, uint64_t false_positives) {
  std::lock_guard<std::mutex> lock(mu_);
  // Settled answers: a URL in a checkpoint can no longer get "new" (the filter holds it), so
  // every one is marked kGotNew, which keeps later "seen" answers from counting, as they must not.
  for (uint64_t h : hashes) urls_.try_emplace(h, kGotNew);
  false_positives_ = std::min<uint64_t>(false_positives, urls_.size());
  admitted_ = urls_.size() - false_positives_;
}

std::string encode_audit_file(const std::vector<uint64_t>& sorted_hashes) {
  std::string out(kAuditMagic);
  out.reserve(24 + 8 * sorted_hashes.size());
  put_le(out, sorted_hashes.size(), 8);
  for (uint64_t h : sorted_hashes) put_le(out, h, 8);
  put_le(out, checksum64(out), 8);
  return out;
}

std::vector<uint64_t> decode_audit_file(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 24 || bytes.substr(0, 8) != kAuditMagic)
    throw CheckpointError(name, "not an audit file (bad magic or too short)");
  const uint64_t count = get_le(bytes, 8, 8);
  if (count > (bytes.size() - 24) / 8 || bytes.size() != 24 + 8 * count) {
    throw CheckpointError(
        name, "size " + std::to_string(bytes.size()) + " does not match " + std::to_string(count) + " hashes");
  }
  const size_t body = bytes.size() - 8;
  if (checksum64(bytes.data(), body) != get_le(bytes, body, 8)) throw CheckpointError(name, "checksum mismatch");
  std::vector<uint64_t> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = get_le(bytes, 16 + 8 * i, 8);
  if (!std::is_sorted(out.begin(), out.end())) throw CheckpointError(name, "hashes not sorted");
  return out;
}

}  // namespace bloomcrawl
