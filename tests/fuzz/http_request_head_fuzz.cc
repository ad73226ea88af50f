// libFuzzer target for the status port's request head parser: arbitrary bytes must never crash,
// a refusal is 400 or 431, and a complete head obeys the bounds it promises (its fields within
// kMaxHeadFields, names lower-case, a known version). Every prefix of the input is parsed too, as
// the server parses what it has read so far: a head complete at one length stays complete after.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crawler/observe/http_request_head.h"

namespace {

void check(const bloomcrawl::HeadParse& p) {
  using State = bloomcrawl::HeadParse::State;
  if (p.state == State::kRefused && p.status != 400 && p.status != 431) std::abort();
  if (p.state != State::kComplete) return;
  if (p.head.fields.size() > bloomcrawl::kMaxHeadFields) std::abort();
  if (p.head.version != "HTTP/1.0" && p.head.version != "HTTP/1.1") std::abort();
  for (const auto& field : p.head.fields) {
    for (char c : field.first) {
      if (std::isupper(static_cast<unsigned char>(c))) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  bool complete = false;
  for (size_t n = 0; n <= input.size(); n += 1 + n / 8) {
    const bloomcrawl::HeadParse p = bloomcrawl::parse_request_head(input.substr(0, n));
    check(p);
    if (complete && p.state == bloomcrawl::HeadParse::State::kIncomplete) std::abort();
    complete = complete || p.state == bloomcrawl::HeadParse::State::kComplete;
  }
  check(bloomcrawl::parse_request_head(input));
  return 0;
}
