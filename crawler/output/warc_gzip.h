// The WARC writer's compressor: one gzip member ("record-at-time compression") holding the
// concatenation of its parts, compressed in one pass without joining them first. Its own header
// so bench/warc_compress_bench.cc measures exactly what the writer runs.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace bloomcrawl {

// zlib's level 1: on HTML it costs a fraction of the default level's CPU for a somewhat larger
// file, and it runs once per archived page on the parse workers (bench/results/warc.md).
inline constexpr int kWarcGzipLevel = 1;

// Throws std::runtime_error if zlib fails.
std::string warc_gzip_member(std::initializer_list<std::string_view> parts, int level = kWarcGzipLevel);

}  // namespace bloomcrawl
