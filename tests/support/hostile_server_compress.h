// Streaming encoders for the hostile server's compressed responses. A bomb is produced chunk by
// chunk while it is sent, so a 1 GiB (decoded) bomb never sits in memory on either side.
// brotli is loaded at run time (dlopen of libbrotlienc) because the test support library links
// only zlib; when it is missing, make_brotli_encoder() returns null and brotli tests skip.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace bloomcrawl::testing {

class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  // The compressed bytes for `input`; with `final` the stream is also terminated.
  virtual std::string encode(std::string_view input, bool final) = 0;
};

std::unique_ptr<StreamEncoder> make_gzip_encoder();
std::unique_ptr<StreamEncoder> make_brotli_encoder();

}  // namespace bloomcrawl::testing
