// Turns config text into a JSON document, or a ConfigError naming the line and column of a
// syntax error. Comments (// and /* */) are allowed. A key repeated within one object is an error
// (plain JSON parsers keep the last one silently, hiding an operator's edit).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace bloomcrawl::config_detail {

nlohmann::json parse_json_text(std::string_view text, std::string_view source_name);

// "/key", with "~" and "/" in the key escaped per RFC 6901 (JSON pointer), for error paths.
std::string json_pointer_token(std::string_view key);

}  // namespace bloomcrawl::config_detail
