// WarcGzip: the WARC writer's compressor. Each record is one gzip member ("record-at-time
// compression") holding the concatenation of its parts. libdeflate, not zlib: a record is always
// compressed whole, which is libdeflate's whole-buffer API, and on HTML its level 1 takes about half
// of zlib's level-1 CPU for a slightly smaller output (bench/results/warc.md); readers see standard
// gzip members.
//
// One per thread (not thread-safe): the compressor's state and the buffer the parts are joined in
// are reused, so a record allocates nothing once the buffer has grown, and a buffer grown past
// kWarcGzipKeepBytes by a rare large record is freed after it. Its own header so
// bench/warc_compress_bench.cc measures exactly what the writer runs.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

struct libdeflate_compressor;

namespace bloomcrawl {

// libdeflate's level 1: it runs once per archived page on the parse workers, so CPU counts more
// than the last few percent of file size (bench/results/warc.md compares levels).
inline constexpr int kWarcGzipLevel = 1;
inline constexpr size_t kWarcGzipKeepBytes = 1 << 20;

class WarcGzip {
 public:
  // Throws std::bad_alloc if libdeflate cannot allocate its compressor.
  explicit WarcGzip(int level = kWarcGzipLevel);
  ~WarcGzip();
  WarcGzip(const WarcGzip&) = delete;
  WarcGzip& operator=(const WarcGzip&) = delete;

  // Appends to *out one gzip member holding `parts` joined.
  void append_member(std::initializer_list<std::string_view> parts, std::string* out);

 private:
  libdeflate_compressor* compressor_;
  std::string joined_;
};

}  // namespace bloomcrawl
