#include "crawler/audit_set.h"

#include <algorithm>
#include <cstring>

#include <xxhash.h>

#include "seenfilter/checkpoint_format.h"

namespace bloomcrawl {
namespace {

constexpr std::string_view kAuditMagic{"BCAUDIT\x01", 8};

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
  return v;
}

}  // namespace

uint64_t audit_hash(std::string_view canonical_url) { return XXH3_64bits(canonical_url.data(), canonical_url.size()); }

bool AuditSet::insert(uint64_t hash) {
  std::lock_guard<std::mutex> lock(mu_);
  return hashes_.insert(hash).second;
}

size_t AuditSet::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hashes_.size();
}

std::vector<uint64_t> AuditSet::sorted() const {
  std::vector<uint64_t> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.assign(hashes_.begin(), hashes_.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void AuditSet::insert_all(const std::vector<uint64_t>& hashes) {
  std::lock_guard<std::mutex> lock(mu_);
  hashes_.insert(hashes.begin(), hashes.end());
}

std::string encode_audit_file(const std::vector<uint64_t>& sorted_hashes) {
  std::string out(kAuditMagic);
  out.reserve(24 + 8 * sorted_hashes.size());
  put_u64(out, sorted_hashes.size());
  for (uint64_t h : sorted_hashes) put_u64(out, h);
  put_u64(out, XXH3_64bits(out.data(), out.size()));
  return out;
}

std::vector<uint64_t> decode_audit_file(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 24 || bytes.substr(0, 8) != kAuditMagic) throw CheckpointError(name, "not an audit file (bad magic or too short)");
  const uint64_t count = get_u64(bytes.data() + 8);
  if (count > (bytes.size() - 24) / 8 || bytes.size() != 24 + 8 * count) {
    throw CheckpointError(name, "size " + std::to_string(bytes.size()) + " does not match " + std::to_string(count) + " hashes");
  }
  const size_t body = bytes.size() - 8;
  if (XXH3_64bits(bytes.data(), body) != get_u64(bytes.data() + body)) throw CheckpointError(name, "checksum mismatch");
  std::vector<uint64_t> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = get_u64(bytes.data() + 16 + 8 * i);
  if (!std::is_sorted(out.begin(), out.end())) throw CheckpointError(name, "hashes not sorted");
  return out;
}

}  // namespace bloomcrawl
