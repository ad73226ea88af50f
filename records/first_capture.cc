#include "records/first_capture.h"

#include "base/coding.h"
#include "base/data_error.h"

namespace bloomcrawl {

std::string encode_first_capture(const FirstCapture& capture) {
  std::string out;
  append_varint(out, static_cast<uint64_t>(capture.fetched_ms));
  out.append(capture.url);
  return out;
}

FirstCapture decode_first_capture(std::string_view value, std::string_view what) {
  uint64_t fetched_ms = 0;
  const char* next = decode_varint(value.data(), value.data() + value.size(), &fetched_ms);
  if (next == nullptr) throw CheckpointError(std::string(what), "digest entry: truncated or over-long fetch time");
  FirstCapture capture;
  capture.fetched_ms = static_cast<int64_t>(fetched_ms);
  capture.url.assign(next, value.data() + value.size());
  if (capture.url.empty()) throw CheckpointError(std::string(what), "digest entry: no URL");
  return capture;
}

}  // namespace bloomcrawl
