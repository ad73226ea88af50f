#include "seenfilter/static_filter.h"

namespace bloomcrawl::seenfilter {

uint32_t StaticFilter::fingerprint_bits() const {
  return std::visit([](const auto& f) { return f.fingerprint_bits(); }, filter_);
}

uint64_t StaticFilter::keys() const {
  return std::visit([](const auto& f) { return f.keys(); }, filter_);
}

uint64_t StaticFilter::bytes() const {
  return std::visit([](const auto& f) { return f.bytes(); }, filter_);
}

double StaticFilter::bits_per_key() const {
  return std::visit([](const auto& f) { return f.bits_per_key(); }, filter_);
}

std::string StaticFilter::encode() const {
  return std::visit([](const auto& f) { return f.encode(); }, filter_);
}

StaticFilter StaticFilter::decode(std::string_view in, const std::string& file) {
  if (SortedFilter::is_sorted_file(in)) return StaticFilter(SortedFilter::decode(in, file));
  return StaticFilter(FuseFilter::decode(in, file));
}

}  // namespace bloomcrawl::seenfilter
