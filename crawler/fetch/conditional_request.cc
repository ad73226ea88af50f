#include "crawler/fetch/conditional_request.h"

#include <algorithm>
#include <string_view>

namespace bloomcrawl {
namespace {

bool sendable(std::string_view value) {
  return !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

}  // namespace

std::vector<std::string> conditional_header_lines(const ConditionalValidators& validators) {
  std::vector<std::string> lines;
  if (sendable(validators.etag)) {
    lines.push_back("If-None-Match: " + validators.etag);
  }
  if (sendable(validators.last_modified)) {
    lines.push_back("If-Modified-Since: " + validators.last_modified);
  }
  return lines;
}

}  // namespace bloomcrawl
