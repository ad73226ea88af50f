#include "crawler/output/cdxj.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

#include "crawler/output/json_text.h"

namespace bloomcrawl {
namespace {

bool starts_with_www(std::string_view host_and_rest, size_t* length) {
  if (!host_and_rest.starts_with("www")) return false;
  size_t i = 3;
  while (i < host_and_rest.size() && std::isdigit(static_cast<unsigned char>(host_and_rest[i]))) ++i;
  if (i >= host_and_rest.size() || host_and_rest[i] != '.') return false;
  *length = i + 1;
  return true;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string join(const std::vector<std::string_view>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out.append(i ? separator : "").append(parts[i]);
  return out;
}

}  // namespace

std::string cdxj_urlkey(std::string_view url) {
  size_t scheme_end = 0;
  if (url.starts_with("http://")) {
    scheme_end = 7;
  } else if (url.starts_with("https://")) {
    scheme_end = 8;
  } else {
    return std::string(url);
  }
  std::string rest(url.substr(scheme_end));
  if (size_t www = 0; starts_with_www(rest, &www)) rest.erase(0, www);
  for (char& c : rest) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (size_t hash = rest.find('#'); hash != std::string::npos) rest.resize(hash);
  const size_t path_start = std::min(rest.find_first_of("/?"), rest.size());
  std::string_view authority = std::string_view(rest).substr(0, path_start);
  std::string_view port;
  if (size_t colon = authority.rfind(':');
      colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    port = authority.substr(colon + 1);
    authority = authority.substr(0, colon);
  }
  std::string key;
  key.reserve(url.size() + 2);
  for (size_t end = authority.size();;) {  // the labels, last first
    const size_t dot = authority.rfind('.', end == 0 ? 0 : end - 1);
    const size_t start = dot == std::string_view::npos || end == 0 ? 0 : dot + 1;
    key.append(authority.substr(start, end - start));
    if (start == 0) break;
    key.push_back(',');
    end = dot;
  }
  if (!port.empty()) key.append(":").append(port);
  key.push_back(')');
  std::string_view tail = std::string_view(rest).substr(path_start);
  const size_t question = tail.find('?');
  std::string_view path = tail.substr(0, question);
  key.append(path.empty() ? "/" : path);
  if (question != std::string_view::npos && question + 1 < tail.size()) {
    std::vector<std::string_view> params = split(tail.substr(question + 1), '&');
    std::sort(params.begin(), params.end());
    key.append("?").append(join(params, "&"));
  }
  return key;
}

std::string cdxj_line_start(std::string_view url, std::string_view date, std::string_view mime, long status,
                            std::string_view payload_digest) {
  std::string line = cdxj_urlkey(url);
  line.push_back(' ');
  size_t digits = 0;
  for (char c : date) {
    if (digits == 14) break;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      line.push_back(c);
      ++digits;
    }
  }
  line.append(R"( {"url":)");
  append_json_string(url, &line);
  std::string_view media = mime.substr(0, mime.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  while (!media.empty() && media.front() == ' ') media.remove_prefix(1);
  if (!media.empty()) {
    line.append(R"(,"mime":)");
    append_json_string(media, &line);
  }
  line.append(R"(,"status":")");
  append_json_integer(status, &line);
  line.push_back('"');
  if (payload_digest.starts_with("sha1:")) {
    line.append(R"(,"digest":)");
    append_json_string(payload_digest.substr(5), &line);
  }
  return line;  // open: cdxj_finish_line() adds the last fields and closes it
}

void cdxj_finish_line(uint64_t length, uint64_t offset, std::string_view filename, std::string* line) {
  line->append(R"(,"length":")");
  append_json_integer(length, line);
  line->append(R"(","offset":")");
  append_json_integer(offset, line);
  line->append(R"(","filename":)");
  append_json_string(filename, line);
  line->append("}\n");
}

}  // namespace bloomcrawl
