#include "seenfilter/sorted_filter.h"

#include <algorithm>
#include <bit>
#include <span>
#include <stdexcept>

#include "base/checksum.h"
#include "base/coding.h"
#include "base/data_error.h"
#include "seenfilter/hash_sort.h"
#include "seenfilter/word_select.h"
#include "seenfilter/zero_scan.h"

namespace bloomcrawl::seenfilter {
namespace {

constexpr char kMagic[8] = {'B', 'C', 'S', 'F', 'S', 'O', 'R', 'T'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kTrailerBytes = 8;  // checksum64 of all bytes before it

uint64_t high_words(uint64_t keys) { return (2 * keys + 63) / 64 + 1; }  // + a padding word
// In memory the unary part has kPassZerosWords - 1 more padding words: a bucket's search reads
// that many from the sample's word, whatever the bucket (zero_scan.h). Files do not hold them.
uint64_t high_words_in_memory(uint64_t keys) { return high_words(keys) + kPassZerosWords - 1; }
uint64_t sample_count(uint64_t keys) {
  return (keys + SortedFilter::kBucketsPerSample - 1) / SortedFilter::kBucketsPerSample;
}

}  // namespace

uint64_t SortedFilter::bytes() const {
  return (high_.size() + low_.size()) * sizeof(uint64_t) + samples_.size() * sizeof(uint32_t);
}

double SortedFilter::bits_per_key() const {
  return keys_ == 0 ? 0.0 : static_cast<double>(bytes()) * 8.0 / static_cast<double>(keys_);
}

SortedFilter SortedFilter::build(std::span<const uint64_t> hashes, uint32_t fingerprint_bits) {
  std::vector<uint64_t> copy(hashes.begin(), hashes.end());
  return build_in_place(copy, fingerprint_bits);
}

void SortedFilter::check_fingerprint_bits(uint32_t fingerprint_bits) {
  if (fingerprint_bits < kMinFingerprintBits || fingerprint_bits > kMaxFingerprintBits) {
    throw std::invalid_argument("SortedFilter: fingerprint_bits " + std::to_string(fingerprint_bits) +
                                " is outside [1, 32]");
  }
}

SortedFilter SortedFilter::build_in_place(std::vector<uint64_t>& hashes, uint32_t fingerprint_bits) {
  check_fingerprint_bits(fingerprint_bits);
  for (uint64_t& h : hashes) h = mixed(h);
  sort_hashes(hashes);
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  return from_sorted(hashes, fingerprint_bits);
}

uint64_t SortedFilter::streamed_buckets(uint64_t count) {
  return uint64_t{1} << std::max(1, static_cast<int>(std::bit_width(count)) - 3);
}

std::optional<SortedFilter> SortedFilter::build_streamed(uint64_t count, uint32_t fingerprint_bits,
                                                         const HashSource& source, std::vector<uint64_t>& keys,
                                                         std::vector<uint32_t>& buckets) {
  check_fingerprint_bits(fingerprint_bits);
  if (count > UINT32_MAX) throw std::invalid_argument("SortedFilter: a streamed build of more than 2^32 - 1 hashes");
  const uint64_t bucket_count = streamed_buckets(count);
  const int shift = 64 - std::countr_zero(bucket_count);
  // buckets[b] counts bucket b - 1's hashes, then (summed) is where bucket b starts, then (as
  // they are placed) where its next hash goes: in the end, where it ends.
  buckets.assign(bucket_count + 1, 0);
  uint64_t streamed = 0;
  const bool counted = source([&](std::span<const uint64_t> hashes) {
    for (const uint64_t h : hashes) ++buckets[(mixed(h) >> shift) + 1];
    streamed += hashes.size();
  });
  if (!counted || streamed != count) return std::nullopt;
  for (uint64_t b = 1; b <= bucket_count; ++b) buckets[b] += buckets[b - 1];
  keys.resize(count);
  // A source that streams other hashes the second time (its check fails then, and nullopt is
  // returned) must not write past the keys.
  bool placed = true;
  streamed = 0;
  const bool read = source([&](std::span<const uint64_t> hashes) {
    streamed += hashes.size();
    for (const uint64_t h : hashes) {
      const uint64_t m = mixed(h);
      uint32_t& next = buckets[m >> shift];
      if (next < count) {
        keys[next++] = m;
      } else {
        placed = false;
      }
    }
  });
  if (!read || !placed || streamed != count) return std::nullopt;
  uint64_t begin = 0;
  for (uint64_t b = 0; b < bucket_count; ++b) {
    sort_hashes(std::span(keys).subspan(begin, buckets[b] - begin));  // 4-8 hashes, unless chosen to collide
    begin = buckets[b];
  }
  if (!std::is_sorted(keys.begin(), keys.end())) return std::nullopt;  // the same check, other hashes
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return from_sorted(keys, fingerprint_bits);
}

SortedFilter SortedFilter::from_sorted(std::span<const uint64_t> hashes, uint32_t fingerprint_bits) {
  if (hashes.size() > kMaxKeys) throw std::invalid_argument("SortedFilter: more than 2^31 - 1 keys");
  SortedFilter f;
  f.fingerprint_bits_ = fingerprint_bits;
  f.low_mask_ = (uint64_t{1} << fingerprint_bits) - 1;
  f.keys_ = hashes.size();
  f.high_.assign(high_words_in_memory(f.keys_), 0);
  f.low_.assign(packed_words(f.keys_, fingerprint_bits), 0);
  f.samples_.assign(sample_count(f.keys_), 0);
  const uint64_t universe = f.keys_ << fingerprint_bits;
  uint64_t next_sample = 0;  // the next sampled bucket's index in samples_
  for (uint64_t i = 0; i < f.keys_; ++i) {
    const uint64_t v = fastrange64(hashes[i], universe);
    const uint64_t bucket = v >> fingerprint_bits;
    // Every key before this one is in a bucket before a sampled bucket not yet passed.
    for (; next_sample * kBucketsPerSample <= bucket; ++next_sample) {
      f.samples_[next_sample] = static_cast<uint32_t>(i + next_sample * kBucketsPerSample);
    }
    const uint64_t at = bucket + i;
    f.high_[at / 64] |= uint64_t{1} << (at % 64);
    or_packed(f.low_.data(), i, fingerprint_bits, v & f.low_mask_);
  }
  for (; next_sample < f.samples_.size(); ++next_sample) {
    f.samples_[next_sample] = static_cast<uint32_t>(f.keys_ + next_sample * kBucketsPerSample);
  }
  return f;
}

std::string SortedFilter::encode() const {
  std::string out;
  out.reserve(kHeaderBytes + bytes() + kTrailerBytes);
  out.append(kMagic, sizeof kMagic);
  put_le(out, kFormatVersion, 4);
  put_le(out, fingerprint_bits_, 4);
  put_le(out, keys_, 8);
  put_le(out, 0, 8);
  put_le_words<uint64_t>(out, std::span<const uint64_t>(high_).first(high_words(keys_)));
  put_le_words<uint64_t>(out, low_);
  put_le_words<uint32_t>(out, samples_);
  put_le(out, checksum64(out), 8);
  return out;
}

bool SortedFilter::is_sorted_file(std::string_view in) {
  return in.size() >= sizeof kMagic && in.substr(0, sizeof kMagic) == std::string_view(kMagic, sizeof kMagic);
}

SortedFilter SortedFilter::decode(std::string_view in, const std::string& file) {
  auto fail = [&](const std::string& what) { throw CheckpointError(file, "sorted filter: " + what); };
  if (in.size() < kHeaderBytes + kTrailerBytes) fail("truncated header");
  if (!is_sorted_file(in)) fail("bad magic");
  const uint64_t version = get_le(in, 8, 4);
  if (version != kFormatVersion) fail("unsupported version " + std::to_string(version));
  const size_t body = in.size() - kTrailerBytes;
  if (get_le(in, body, 8) != checksum64(in.data(), body)) fail("checksum mismatch");
  SortedFilter f;
  f.fingerprint_bits_ = static_cast<uint32_t>(get_le(in, 12, 4));
  f.keys_ = get_le(in, 16, 8);
  if (f.fingerprint_bits_ < kMinFingerprintBits || f.fingerprint_bits_ > kMaxFingerprintBits) {
    fail("fingerprint bits " + std::to_string(f.fingerprint_bits_) + " outside [1, 32]");
  }
  if (f.keys_ > kMaxKeys) fail("keys " + std::to_string(f.keys_) + " above 2^31 - 1");
  if (get_le(in, 24, 8) != 0) fail("reserved field not zero");
  f.low_mask_ = (uint64_t{1} << f.fingerprint_bits_) - 1;
  const uint64_t high = high_words(f.keys_);
  const uint64_t low = packed_words(f.keys_, f.fingerprint_bits_);
  const uint64_t samples = sample_count(f.keys_);
  const uint64_t expected = kHeaderBytes + (high + low) * 8 + samples * 4 + kTrailerBytes;
  if (in.size() != expected) fail("size " + std::to_string(in.size()) + ", expected " + std::to_string(expected));
  f.high_.resize(high);
  get_le_words<uint64_t>(in, kHeaderBytes, f.high_);
  f.high_.resize(high_words_in_memory(f.keys_), 0);  // + the padding words only memory has
  f.low_.resize(low);
  get_le_words<uint64_t>(in, kHeaderBytes + high * 8, f.low_);
  f.samples_.resize(samples);
  get_le_words<uint32_t>(in, kHeaderBytes + (high + low) * 8, f.samples_);
  // The unary part: n ones and n zeros in its first 2n bits, the last a bucket's end, nothing
  // after; each sample the start of its bucket; each bucket's low parts in order.
  uint64_t ones = 0;
  for (uint64_t w : f.high_) ones += count_bits(w);
  const uint64_t used = 2 * f.keys_;
  if (ones != f.keys_) fail("unary part holds " + std::to_string(ones) + " keys, expected " + std::to_string(f.keys_));
  if (f.keys_ > 0 && f.bit(used - 1)) fail("unary part does not end with a bucket's end");
  for (uint64_t b = used; b < high * 64; ++b) {
    if (f.bit(b)) fail("unary part has bits past its end");
  }
  for (uint64_t b = f.keys_ * f.fingerprint_bits_; b < low * 64; ++b) {
    if ((f.low_[b / 64] >> (b % 64)) & 1) fail("low parts have bits past their end");
  }
  if (samples > 0 && f.samples_[0] != 0) fail("sample 0 is not 0");
  uint64_t bucket = 0;
  uint64_t index = 0;
  uint64_t previous = 0;  // the bucket's last low part so far
  for (uint64_t b = 0; b < used; ++b) {
    if (f.bit(b)) {
      const uint64_t value = read_packed(f.low_.data(), index++, f.fingerprint_bits_, f.low_mask_);
      if (b > 0 && f.bit(b - 1) && value < previous)
        fail("bucket " + std::to_string(bucket) + ": low parts out of order");
      previous = value;
      continue;
    }
    ++bucket;  // it starts at b + 1
    const uint64_t sample = bucket / kBucketsPerSample;
    if (bucket % kBucketsPerSample == 0 && sample < samples && f.samples_[sample] != b + 1) {
      fail("sample " + std::to_string(sample) + " is not its bucket's start");
    }
  }
  return f;
}

}  // namespace bloomcrawl::seenfilter
