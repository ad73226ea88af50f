// WarcGzip's members are standard gzip (zlib reads them back), each holding its parts joined, and
// appended after what the buffer held; the compressor is reused across members of any size.
#include "crawler/output/warc_gzip.h"

#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace bloomcrawl {
namespace {

// Inflates the one gzip member at the start of `bytes`; *member_size is how many bytes it took.
std::string gunzip_warc_member(std::string_view bytes, size_t* member_size) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = uInt(bytes.size());
  std::string out;
  char piece[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(piece);
    zs.avail_out = sizeof piece;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(piece, sizeof piece - zs.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "not one whole gzip member";
  *member_size = zs.total_in;
  inflateEnd(&zs);
  return out;
}

// Bytes that do not compress: a member may be larger than its input.
std::string noise_for_warc_gzip(size_t size) {
  std::mt19937_64 rng(15);
  std::string s;
  s.reserve(size + 8);
  while (s.size() < size) {
    const uint64_t word = rng();
    s.append(reinterpret_cast<const char*>(&word), sizeof word);
  }
  s.resize(size);
  return s;
}

TEST(WarcGzip, AppendsOneMemberOfThePartsJoinedPerCall) {
  const std::string html = "<html>" + std::string(5000, 'x') + "</html>";
  const std::string large = noise_for_warc_gzip(kWarcGzipKeepBytes + 12345);
  WarcGzip gzip;
  std::string out = "kept";
  gzip.append_member({"WARC/1.1\r\n", "", html, "\r\n\r\n"}, &out);
  gzip.append_member({"head\r\n", large}, &out);
  gzip.append_member({"GET / HTTP/1.1\r\n\r\n"}, &out);
  gzip.append_member({}, &out);

  ASSERT_TRUE(out.starts_with("kept"));
  std::string_view rest = std::string_view(out).substr(4);
  for (const std::string& expected :
       {"WARC/1.1\r\n" + html + "\r\n\r\n", "head\r\n" + large, std::string("GET / HTTP/1.1\r\n\r\n"), std::string()}) {
    size_t member_size = 0;
    EXPECT_TRUE(gunzip_warc_member(rest, &member_size) == expected) << expected.substr(0, 20);
    ASSERT_GT(member_size, 0u);
    rest.remove_prefix(member_size);
  }
  EXPECT_TRUE(rest.empty()) << rest.size() << " bytes after the last member";
}

}  // namespace
}  // namespace bloomcrawl
