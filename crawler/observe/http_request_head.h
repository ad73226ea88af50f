// The head of one HTTP/1.x request (RFC 9112: request line, header fields, blank line), as the
// status port reads it: bounded to kMaxHeadBytes and kMaxHeadFields whatever a client sends, so
// the port's memory per connection is fixed. A body is never part of it (the port refuses any).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bloomcrawl {

inline constexpr size_t kMaxHeadBytes = 8192;  // request line and fields, terminator included
inline constexpr size_t kMaxHeadFields = 64;

struct HttpRequestHead {
  std::string method;                                       // as sent, case-sensitive ("GET")
  std::string target;                                       // "/metrics?x=1"
  std::string version;                                      // "HTTP/1.0" or "HTTP/1.1"
  std::vector<std::pair<std::string, std::string>> fields;  // names lower-cased, values trimmed

  // The values of the fields named `lower_name`, in order.
  std::vector<std::string_view> values(std::string_view lower_name) const;
  // The target without its query.
  std::string_view path() const;
};

struct HeadParse {
  enum class State {
    kIncomplete,  // no blank line yet and within the bounds: read more
    kComplete,    // `head` holds the request
    kRefused,     // malformed (400) or over a bound (431): answer `status` and close
  };
  State state = State::kIncomplete;
  int status = 0;  // kRefused only
  HttpRequestHead head;
};

// Parses `bytes`, everything read from the connection so far. Lines end in CRLF or a bare LF
// (RFC 9112 §2.2 lets a server accept the latter); a field line folded onto the one before
// (obs-fold) is refused, as is whitespace between a field's name and its colon.
HeadParse parse_request_head(std::string_view bytes);

}  // namespace bloomcrawl
