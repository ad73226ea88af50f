#include "crawler/output/warc_gzip.h"

#include <libdeflate.h>

#include <new>
#include <stdexcept>

namespace bloomcrawl {

WarcGzip::WarcGzip(int level) : compressor_(libdeflate_alloc_compressor(level)) {
  if (compressor_ == nullptr) throw std::bad_alloc();
}

WarcGzip::~WarcGzip() { libdeflate_free_compressor(compressor_); }

void WarcGzip::append_member(std::initializer_list<std::string_view> parts, std::string* out) {
  // libdeflate takes one buffer: the parts are copied once, which costs a small fraction of
  // compressing them.
  joined_.clear();
  for (std::string_view p : parts) joined_.append(p);
  const size_t start = out->size();
  const size_t bound = libdeflate_gzip_compress_bound(compressor_, joined_.size());
  out->resize(start + bound);
  const size_t size = libdeflate_gzip_compress(compressor_, joined_.data(), joined_.size(), out->data() + start, bound);
  if (size == 0) throw std::runtime_error("libdeflate: the gzip member exceeds its bound");
  out->resize(start + size);
  if (joined_.capacity() > kWarcGzipKeepBytes) std::string().swap(joined_);
}

}  // namespace bloomcrawl
