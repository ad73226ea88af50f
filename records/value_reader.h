// ValueReader: the bounds-checked reader of the records' value formats (docs/records.md: the URL
// record and the outcome operand), and append_string(), their string encoding. Every read that
// would pass the end, an over-long varint or a number beyond its field's range throws
// CheckpointError naming the URL and `what` (the field), prefixed with `kind` ("URL record: ").
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/coding.h"
#include "base/data_error.h"

namespace bloomcrawl {

inline void append_string(std::string& out, std::string_view text) {
  append_varint(out, text.size());
  out.append(text);
}

class ValueReader {
 public:
  ValueReader(std::string_view url, std::string_view value, std::string_view kind = "URL record: ")
      : url_(url), kind_(kind), p_(value.data()), end_(value.data() + value.size()) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw CheckpointError(std::string(url_), std::string(kind_) + problem);
  }
  bool at_end() const { return p_ == end_; }
  uint8_t byte(const char* what) {
    if (p_ == end_) fail(std::string("truncated before the ") + what);
    return static_cast<uint8_t>(*p_++);
  }
  uint64_t varint(const char* what, uint64_t max = std::numeric_limits<uint64_t>::max()) {
    uint64_t value = 0;
    const char* next = decode_varint(p_, end_, &value);
    if (next == nullptr) fail(std::string("truncated or over-long varint in the ") + what);
    if (value > max) fail(std::string("the ") + what + " " + std::to_string(value) + " is out of range");
    p_ = next;
    return value;
  }
  std::string_view bytes(size_t count, const char* what) {
    if (static_cast<size_t>(end_ - p_) < count) fail(std::string("the ") + what + " runs past the end");
    const std::string_view out(p_, count);
    p_ += count;
    return out;
  }
  std::string string(const char* what) { return std::string(bytes(varint(what), what)); }

 private:
  std::string_view url_;
  std::string_view kind_;
  const char* p_;
  const char* end_;
};

}  // namespace bloomcrawl
