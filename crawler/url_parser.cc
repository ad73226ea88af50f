// The basic URL parser, written as the spec's state machine (state names and step order follow
// https://url.spec.whatwg.org/#concept-basic-url-parser) so it can be checked line by line.
// Only the parts used for parsing whole URLs are here: no state override (setters) and
// UTF-8 as the only query encoding. It works on bytes: bytes >= 0x80 are percent-encoded one
// by one, which equals UTF-8 percent-encoding their code points.
#include <cstddef>

#include "crawler/url.h"
#include "crawler/url_host.h"
#include "crawler/url_percent.h"

namespace bloomcrawl {
namespace {

using url_internal::append_encoded;
using url_internal::encode_set;
using url_internal::EncodeSetId;

enum class State {
  kSchemeStart, kScheme, kNoScheme, kSpecialRelativeOrAuthority, kPathOrAuthority, kRelative,
  kRelativeSlash, kSpecialAuthoritySlashes, kSpecialAuthorityIgnoreSlashes, kAuthority, kHost,
  kPort, kFile, kFileSlash, kFileHost, kPathStart, kPath, kOpaquePath, kQuery, kFragment,
};

constexpr int kEof = -1;

bool is_ascii_alpha(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool is_ascii_digit(int c) { return c >= '0' && c <= '9'; }
char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  }
  return true;
}

bool is_windows_drive_letter(std::string_view s) {
  return s.size() == 2 && is_ascii_alpha(s[0]) && (s[1] == ':' || s[1] == '|');
}

bool is_normalized_windows_drive_letter(std::string_view s) {
  return s.size() == 2 && is_ascii_alpha(s[0]) && s[1] == ':';
}

bool starts_with_windows_drive_letter(std::string_view s) {
  if (s.size() < 2 || !is_windows_drive_letter(s.substr(0, 2))) return false;
  if (s.size() == 2) return true;
  char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

bool is_single_dot_segment(std::string_view s) { return s == "." || iequals(s, "%2e"); }

bool is_double_dot_segment(std::string_view s) {
  return s == ".." || iequals(s, ".%2e") || iequals(s, "%2e.") || iequals(s, "%2e%2e");
}

// Removes C0-control-or-space at both ends and every tab/newline inside. Copies only when a
// tab or newline is present, which real links rarely contain.
std::string_view preprocess(std::string_view input, std::string& storage) {
  while (!input.empty() && static_cast<unsigned char>(input.front()) <= 0x20) input.remove_prefix(1);
  while (!input.empty() && static_cast<unsigned char>(input.back()) <= 0x20) input.remove_suffix(1);
  if (input.find_first_of("\t\n\r") == std::string_view::npos) return input;
  storage.reserve(input.size());
  for (char c : input) {
    if (c != '\t' && c != '\n' && c != '\r') storage.push_back(c);
  }
  return storage;
}

class Parser {
 public:
  Parser(std::string_view input, const Url* base, std::string* error)
      : input_(input), base_(base), error_(error) {}

  std::optional<Url> run();

 private:
  int at(ptrdiff_t i) const {
    return i >= 0 && static_cast<size_t>(i) < input_.size()
               ? static_cast<unsigned char>(input_[static_cast<size_t>(i)])
               : kEof;
  }
  std::string_view from_pointer() const {
    size_t p = static_cast<size_t>(pointer_);
    return p < input_.size() ? input_.substr(p) : std::string_view();
  }
  bool fail(const char* what);
  bool step(int c);
  void shorten_path();
  void copy_authority_from_base();
  bool parse_host_buffer();

  std::string_view input_;
  const Url* base_;
  std::string* error_;
  Url url_;
  State state_ = State::kSchemeStart;
  ptrdiff_t pointer_ = 0;
  std::string buffer_;
  bool special_ = false;
  bool at_sign_seen_ = false;
  bool inside_brackets_ = false;
  bool password_token_seen_ = false;
  uint32_t port_value_ = 0;
};

bool Parser::fail(const char* what) {
  if (error_) {
    *error_ = what;
    *error_ += " at byte ";
    *error_ += std::to_string(pointer_ < 0 ? 0 : pointer_);
  }
  return false;
}

void Parser::shorten_path() {
  std::string& path = url_.path;
  if (url_.scheme == "file" && path.size() == 3 && path[0] == '/' &&
      is_normalized_windows_drive_letter(std::string_view(path).substr(1))) {
    return;
  }
  size_t slash = path.rfind('/');
  path.resize(slash == std::string::npos ? 0 : slash);
}

void Parser::copy_authority_from_base() {
  url_.username = base_->username;
  url_.password = base_->password;
  url_.host = base_->host;
  url_.has_host = base_->has_host;
  url_.port = base_->port;
}

bool Parser::parse_host_buffer() {
  std::string host_error;
  if (!url_internal::parse_host(buffer_, !special_, url_.host, error_ ? &host_error : nullptr)) {
    if (error_) *error_ = "invalid host '" + buffer_ + "': " + host_error;
    return false;
  }
  url_.has_host = true;
  buffer_.clear();
  return true;
}

std::optional<Url> Parser::run() {
  for (;;) {
    if (!step(at(pointer_))) return std::nullopt;
    if (pointer_ >= static_cast<ptrdiff_t>(input_.size())) break;
    ++pointer_;
  }
  return std::move(url_);
}

bool Parser::step(int c) {
  switch (state_) {
    case State::kSchemeStart:
      if (is_ascii_alpha(c)) {
        buffer_.push_back(to_lower(static_cast<char>(c)));
        state_ = State::kScheme;
      } else {
        state_ = State::kNoScheme;
        --pointer_;
      }
      return true;

    case State::kScheme:
      if (is_ascii_alpha(c) || is_ascii_digit(c) || c == '+' || c == '-' || c == '.') {
        buffer_.push_back(to_lower(static_cast<char>(c)));
      } else if (c == ':') {
        url_.scheme = std::move(buffer_);
        buffer_.clear();
        special_ = is_special_scheme(url_.scheme);
        if (url_.scheme == "file") {
          state_ = State::kFile;
        } else if (special_ && base_ && base_->scheme == url_.scheme) {
          state_ = State::kSpecialRelativeOrAuthority;
        } else if (special_) {
          state_ = State::kSpecialAuthoritySlashes;
        } else if (at(pointer_ + 1) == '/') {
          state_ = State::kPathOrAuthority;
          ++pointer_;
        } else {
          url_.opaque_path = true;
          state_ = State::kOpaquePath;
        }
      } else {
        buffer_.clear();
        state_ = State::kNoScheme;
        pointer_ = -1;
      }
      return true;

    case State::kNoScheme:
      if (!base_ || (base_->opaque_path && c != '#')) {
        return fail(base_ ? "relative URL against a base with an opaque path"
                          : "relative URL without a base");
      }
      if (base_->opaque_path) {
        url_.scheme = base_->scheme;
        url_.path = base_->path;
        url_.opaque_path = true;
        url_.query = base_->query;
        url_.fragment.emplace();
        state_ = State::kFragment;
      } else {
        state_ = base_->scheme == "file" ? State::kFile : State::kRelative;
        --pointer_;
      }
      special_ = is_special_scheme(base_->scheme);
      return true;

    case State::kSpecialRelativeOrAuthority:
      if (c == '/' && at(pointer_ + 1) == '/') {
        state_ = State::kSpecialAuthorityIgnoreSlashes;
        ++pointer_;
      } else {
        state_ = State::kRelative;
        --pointer_;
      }
      return true;

    case State::kPathOrAuthority:
      if (c == '/') {
        state_ = State::kAuthority;
      } else {
        state_ = State::kPath;
        --pointer_;
      }
      return true;

    case State::kRelative:
      url_.scheme = base_->scheme;
      if (c == '/' || (special_ && c == '\\')) {
        state_ = State::kRelativeSlash;
      } else {
        copy_authority_from_base();
        url_.path = base_->path;
        url_.query = base_->query;
        if (c == '?') {
          url_.query.emplace();
          state_ = State::kQuery;
        } else if (c == '#') {
          url_.fragment.emplace();
          state_ = State::kFragment;
        } else if (c != kEof) {
          url_.query.reset();
          shorten_path();
          state_ = State::kPath;
          --pointer_;
        }
      }
      return true;

    case State::kRelativeSlash:
      if (special_ && (c == '/' || c == '\\')) {
        state_ = State::kSpecialAuthorityIgnoreSlashes;
      } else if (c == '/') {
        state_ = State::kAuthority;
      } else {
        copy_authority_from_base();
        state_ = State::kPath;
        --pointer_;
      }
      return true;

    case State::kSpecialAuthoritySlashes:
      state_ = State::kSpecialAuthorityIgnoreSlashes;
      if (c == '/' && at(pointer_ + 1) == '/') {
        ++pointer_;
      } else {
        --pointer_;
      }
      return true;

    case State::kSpecialAuthorityIgnoreSlashes:
      if (c != '/' && c != '\\') {
        state_ = State::kAuthority;
        --pointer_;
      }
      return true;

    case State::kAuthority:
      if (c == '@') {
        if (at_sign_seen_) buffer_.insert(0, "%40");
        at_sign_seen_ = true;
        const auto& userinfo_set = encode_set(EncodeSetId::kUserinfo);
        for (char b : buffer_) {
          if (b == ':' && !password_token_seen_) {
            password_token_seen_ = true;
            continue;
          }
          append_encoded(password_token_seen_ ? url_.password : url_.username,
                         static_cast<unsigned char>(b), userinfo_set);
        }
        buffer_.clear();
      } else if (c == kEof || c == '/' || c == '?' || c == '#' || (special_ && c == '\\')) {
        if (at_sign_seen_ && buffer_.empty()) return fail("credentials without a host");
        pointer_ -= static_cast<ptrdiff_t>(buffer_.size()) + 1;
        buffer_.clear();
        state_ = State::kHost;
      } else {
        buffer_.push_back(static_cast<char>(c));
      }
      return true;

    case State::kHost:
      if (c == ':' && !inside_brackets_) {
        if (buffer_.empty()) return fail("port without a host");
        if (!parse_host_buffer()) return false;
        state_ = State::kPort;
      } else if (c == kEof || c == '/' || c == '?' || c == '#' || (special_ && c == '\\')) {
        --pointer_;
        if (special_ && buffer_.empty()) return fail("missing host");
        if (!parse_host_buffer()) return false;
        state_ = State::kPathStart;
      } else {
        if (c == '[') inside_brackets_ = true;
        if (c == ']') inside_brackets_ = false;
        buffer_.push_back(static_cast<char>(c));
      }
      return true;

    case State::kPort:
      if (is_ascii_digit(c)) {
        port_value_ = port_value_ * 10 + static_cast<uint32_t>(c - '0');
        if (port_value_ > 65535) return fail("port out of range");
        buffer_.push_back('0');  // only its emptiness matters
      } else if (c == kEof || c == '/' || c == '?' || c == '#' || (special_ && c == '\\')) {
        if (!buffer_.empty()) {
          if (static_cast<int>(port_value_) == default_port(url_.scheme)) {
            url_.port.reset();
          } else {
            url_.port = static_cast<uint16_t>(port_value_);
          }
          buffer_.clear();
        }
        state_ = State::kPathStart;
        --pointer_;
      } else {
        return fail("invalid character in port");
      }
      return true;

    case State::kFile:
      url_.scheme = "file";
      special_ = true;
      url_.host.clear();
      url_.has_host = true;
      if (c == '/' || c == '\\') {
        state_ = State::kFileSlash;
      } else if (base_ && base_->scheme == "file") {
        url_.host = base_->host;
        url_.has_host = base_->has_host;
        url_.path = base_->path;
        url_.query = base_->query;
        if (c == '?') {
          url_.query.emplace();
          state_ = State::kQuery;
        } else if (c == '#') {
          url_.fragment.emplace();
          state_ = State::kFragment;
        } else if (c != kEof) {
          url_.query.reset();
          if (!starts_with_windows_drive_letter(from_pointer())) {
            shorten_path();
          } else {
            url_.path.clear();
          }
          state_ = State::kPath;
          --pointer_;
        }
      } else {
        state_ = State::kPath;
        --pointer_;
      }
      return true;

    case State::kFileSlash:
      if (c == '/' || c == '\\') {
        state_ = State::kFileHost;
      } else {
        if (base_ && base_->scheme == "file") {
          url_.host = base_->host;
          url_.has_host = base_->has_host;
          const std::string& base_path = base_->path;
          if (!starts_with_windows_drive_letter(from_pointer()) && base_path.size() >= 3 &&
              base_path[0] == '/' && is_normalized_windows_drive_letter(base_path.substr(1, 2)) &&
              (base_path.size() == 3 || base_path[3] == '/')) {
            url_.path.append(base_path, 0, 3);
          }
        }
        state_ = State::kPath;
        --pointer_;
      }
      return true;

    case State::kFileHost:
      if (c == kEof || c == '/' || c == '\\' || c == '?' || c == '#') {
        --pointer_;
        if (is_windows_drive_letter(buffer_)) {
          state_ = State::kPath;  // buffer is kept: it becomes the first path segment
        } else if (buffer_.empty()) {
          url_.host.clear();
          url_.has_host = true;
          state_ = State::kPathStart;
        } else {
          url_.host.clear();
          if (!parse_host_buffer()) return false;
          if (url_.host == "localhost") url_.host.clear();
          state_ = State::kPathStart;
        }
      } else {
        buffer_.push_back(static_cast<char>(c));
      }
      return true;

    case State::kPathStart:
      if (special_) {
        state_ = State::kPath;
        if (c != '/' && c != '\\') --pointer_;
      } else if (c == '?') {
        url_.query.emplace();
        state_ = State::kQuery;
      } else if (c == '#') {
        url_.fragment.emplace();
        state_ = State::kFragment;
      } else if (c != kEof) {
        state_ = State::kPath;
        if (c != '/') --pointer_;
      }
      return true;

    case State::kPath: {
      bool slash = c == '/' || (special_ && c == '\\');
      if (slash || c == kEof || c == '?' || c == '#') {
        if (is_double_dot_segment(buffer_)) {
          shorten_path();
          if (!slash) url_.path.push_back('/');
        } else if (is_single_dot_segment(buffer_)) {
          if (!slash) url_.path.push_back('/');
        } else {
          if (url_.scheme == "file" && url_.path.empty() && is_windows_drive_letter(buffer_)) {
            buffer_[1] = ':';
          }
          url_.path.push_back('/');
          url_.path += buffer_;
        }
        buffer_.clear();
        if (c == '?') {
          url_.query.emplace();
          state_ = State::kQuery;
        } else if (c == '#') {
          url_.fragment.emplace();
          state_ = State::kFragment;
        }
      } else {
        append_encoded(buffer_, static_cast<unsigned char>(c), encode_set(EncodeSetId::kPath));
      }
      return true;
    }

    case State::kOpaquePath:
      if (c == '?') {
        url_.query.emplace();
        state_ = State::kQuery;
      } else if (c == '#') {
        url_.fragment.emplace();
        state_ = State::kFragment;
      } else if (c == ' ') {
        int next = at(pointer_ + 1);
        // A space before '?' or '#' is escaped so that it survives re-parsing.
        url_.path += next == '?' || next == '#' ? "%20" : " ";
      } else if (c != kEof) {
        append_encoded(url_.path, static_cast<unsigned char>(c),
                       encode_set(EncodeSetId::kC0Control));
      }
      return true;

    case State::kQuery:
      if (c == '#') {
        url_.fragment.emplace();
        state_ = State::kFragment;
      } else if (c != kEof) {
        append_encoded(*url_.query, static_cast<unsigned char>(c),
                       encode_set(special_ ? EncodeSetId::kSpecialQuery : EncodeSetId::kQuery));
      }
      return true;

    case State::kFragment:
      if (c != kEof) {
        append_encoded(*url_.fragment, static_cast<unsigned char>(c),
                       encode_set(EncodeSetId::kFragment));
      }
      return true;
  }
  return true;
}

}  // namespace

std::optional<Url> parse_url(std::string_view input, const Url* base, std::string* error) {
  std::string storage;
  Parser parser(preprocess(input, storage), base, error);
  return parser.run();
}

}  // namespace bloomcrawl
