#include "crawler/output/warc_gzip.h"

#include <stdexcept>

#include <zlib.h>

namespace bloomcrawl {

std::string warc_gzip_member(std::initializer_list<std::string_view> parts, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
  size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  // deflateBound() holds for input fed in pieces without flushes: one pass always fits.
  std::string out(deflateBound(&zs, uLong(total)) + 64, '\0');
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  int rc = Z_OK;
  size_t fed = 0;
  for (std::string_view p : parts) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
    zs.avail_in = uInt(p.size());
    rc = deflate(&zs, ++fed == parts.size() ? Z_FINISH : Z_NO_FLUSH);
  }
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate did not finish");
  return out;
}

}  // namespace bloomcrawl
