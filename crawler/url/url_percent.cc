#include "crawler/url/url_percent.h"

namespace bloomcrawl::url_internal {

std::string percent_decode(std::string_view input) {
  std::string out;
  out.reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i] == '%' && i + 2 < input.size() && hex_value(input[i + 1]) >= 0 && hex_value(input[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(input[i + 1]) * 16 + hex_value(input[i + 2])));
      i += 2;
    } else {
      out.push_back(input[i]);
    }
  }
  return out;
}

}  // namespace bloomcrawl::url_internal
