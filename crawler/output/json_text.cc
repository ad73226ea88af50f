#include "crawler/output/json_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

void append_json_string(std::string_view s, std::string* out) {
  // Printable ASCII, what URLs, media types and digests nearly always are, is copied as is;
  // anything else goes through nlohmann::json, which escapes it.
  const bool plain =
      std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) {
    out->append(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  out->push_back('"');
  out->append(s);
  out->push_back('"');
}

void append_json_double(double value, std::string* out) {
  if (!std::isfinite(value)) {
    out->append("null");
    return;
  }
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  const std::string_view text(buf, size_t(end - buf));
  out->append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out->append(".0");
}

}  // namespace bloomcrawl
