#include "crawler/fetch/fetch_content_type.h"

#include <algorithm>
#include <cctype>

namespace bloomcrawl {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string media_type_of(std::string_view content_type) {
  return lowercase(trim(content_type.substr(0, content_type.find(';'))));
}

std::vector<std::string> parse_media_type_list(std::string_view comma_separated) {
  std::vector<std::string> out;
  while (!comma_separated.empty()) {
    const size_t comma = comma_separated.find(',');
    const std::string_view item = trim(comma_separated.substr(0, comma));
    if (!item.empty()) out.push_back(lowercase(item));
    if (comma == std::string_view::npos) break;
    comma_separated.remove_prefix(comma + 1);
  }
  return out;
}

bool media_type_accepted(std::string_view media_type, const std::vector<std::string>& accepted) {
  if (media_type.empty()) media_type = "application/octet-stream";
  const std::string_view top_level = media_type.substr(0, media_type.find('/'));
  return std::ranges::any_of(accepted, [&](const std::string& entry) {
    if (entry == media_type || entry == "*/*") return true;
    return entry.size() > 2 && entry.ends_with("/*") &&
           std::string_view(entry).substr(0, entry.size() - 2) == top_level;
  });
}

}  // namespace bloomcrawl
