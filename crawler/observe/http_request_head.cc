#include "crawler/observe/http_request_head.h"

#include <algorithm>
#include <cctype>

namespace bloomcrawl {
namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HeadParse refused(int status) {
  HeadParse p;
  p.state = HeadParse::State::kRefused;
  p.status = status;
  return p;
}

// "METHOD SP TARGET SP VERSION"; false when it is not one.
bool parse_request_line(std::string_view line, HttpRequestHead* head) {
  const size_t first = line.find(' ');
  const size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos) return false;
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  const bool target_ok = !target.empty() && std::none_of(target.begin(), target.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ' || c == '\x7f';
  });
  if (!is_token(method) || !target_ok || (version != "HTTP/1.1" && version != "HTTP/1.0")) return false;
  head->method = method;
  head->target = target;
  head->version = version;
  return true;
}

}  // namespace

std::vector<std::string_view> HttpRequestHead::values(std::string_view lower_name) const {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : fields) {
    if (name == lower_name) out.emplace_back(value);
  }
  return out;
}

std::string_view HttpRequestHead::path() const {
  const std::string_view t = target;
  return t.substr(0, t.find('?'));
}

HeadParse parse_request_head(std::string_view bytes) {
  // The head ends at the first empty line; a client may send empty lines before the request line.
  size_t start = 0;
  while (start < bytes.size() && (bytes[start] == '\r' || bytes[start] == '\n')) ++start;
  size_t end = std::string_view::npos;  // one past the empty line's LF
  size_t lines = 0;
  for (size_t line_start = start, lf; (lf = bytes.find('\n', line_start)) != std::string_view::npos;
       line_start = lf + 1) {
    const size_t length = lf - line_start;
    if (length == 0 || (length == 1 && bytes[line_start] == '\r')) {
      end = lf + 1;
      break;
    }
    if (++lines > kMaxHeadFields + 1) return refused(431);
  }
  if (end == std::string_view::npos) {
    return bytes.size() >= kMaxHeadBytes ? refused(431) : HeadParse{};
  }
  if (end > kMaxHeadBytes) return refused(431);

  HeadParse out;
  HttpRequestHead& head = out.head;
  std::string_view rest = bytes.substr(start, end - start);
  bool request_line = true;
  while (!rest.empty()) {
    const size_t lf = rest.find('\n');
    std::string_view line = rest.substr(0, lf);
    rest.remove_prefix(lf + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (request_line) {
      if (!parse_request_line(line, &head)) return refused(400);
      request_line = false;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return refused(400);
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); });
    head.fields.emplace_back(std::move(name), trim(line.substr(colon + 1)));
  }
  out.state = HeadParse::State::kComplete;
  return out;
}

}  // namespace bloomcrawl
