// The basic URL parser, written as the spec's state machine (state names and step order follow
// https://url.spec.whatwg.org/#concept-basic-url-parser) so it can be checked line by line.
// Only the parts used for parsing whole URLs are here: no state override (setters). It works on
// bytes: bytes >= 0x80 are percent-encoded one by one, which equals UTF-8 percent-encoding their
// code points; only a query with an encoding override other than UTF-8 is decoded and encoded
// again (url_query_encoding.h).
//
// Layout: Parser::run() feeds one byte (or EOF) at a time to Parser::step(), which dispatches on
// state_ to one member function per spec state, named after it (scheme_start_state() is the
// "scheme start state", and so on) and preceded by a link to its section; they are defined in
// the spec's order. The helpers they share (path segments, host buffer, base copying) come first.
//
// Speed: the spec's "buffer" is a view into the input where it only collects input bytes
// (authority, host), path segments are written straight into url.path, and runs of bytes that
// need no decision are copied in bulk (the step functions consume them and move the pointer).
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "crawler/url/url.h"
#include "crawler/url/url_host.h"
#include "crawler/url/url_percent.h"
#include "crawler/url/url_query_encoding.h"

namespace bloomcrawl {
namespace {

using url_internal::append_encoded;
using url_internal::EncodeSet;

enum class State {
  kSchemeStart,
  kScheme,
  kNoScheme,
  kSpecialRelativeOrAuthority,
  kPathOrAuthority,
  kRelative,
  kRelativeSlash,
  kSpecialAuthoritySlashes,
  kSpecialAuthorityIgnoreSlashes,
  kAuthority,
  kHost,
  kPort,
  kFile,
  kFileSlash,
  kFileHost,
  kPathStart,
  kPath,
  kOpaquePath,
  kQuery,
  kFragment,
};

constexpr int kEof = -1;

using url_internal::encode_sets_detail::with;

// Bytes that end a bulk copy in the opaque path state: the ones it encodes or decides on.
constexpr EncodeSet kOpaquePathRunStops = with(url_internal::kC0ControlSet, "?# ");
// Bytes the authority and host states decide on; the others are skipped in bulk.
constexpr EncodeSet kAuthorityStops = with(EncodeSet{}, "@/?#");
constexpr EncodeSet kSpecialAuthorityStops = with(kAuthorityStops, "\\");
constexpr EncodeSet kHostStops = with(EncodeSet{}, ":/?#[]\\");

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
  if (!std::memchr(input.data(), '\t', input.size()) && !std::memchr(input.data(), '\n', input.size()) &&
      !std::memchr(input.data(), '\r', input.size())) {
    return input;
  }
  storage.reserve(input.size());
  for (char c : input) {
    if (c != '\t' && c != '\n' && c != '\r') storage.push_back(c);
  }
  return storage;
}

class Parser {
 public:
  // `url` must be empty (as after reset_url()).
  Parser(std::string_view input, const Url* base, Url& url, std::string* error, Encoding encoding)
      : input_(input), base_(base), error_(error), url_(url), encoding_(output_encoding(encoding)) {}

  bool run();

 private:
  int at(ptrdiff_t i) const {
    return i >= 0 && static_cast<size_t>(i) < input_.size() ? static_cast<unsigned char>(input_[static_cast<size_t>(i)])
                                                            : kEof;
  }
  std::string_view from_pointer() const {
    const auto p = static_cast<size_t>(pointer_);
    return p < input_.size() ? input_.substr(p) : std::string_view();
  }
  bool fail(const char* what);
  bool step(int c);

  // One function per state of the spec, named after it. Each reads the byte `c` at pointer_,
  // may move pointer_ (back to re-read a byte in the next state, or on past a run it consumed) and
  // state_; the dispatcher then advances pointer_ by one. Returns false when the URL is invalid.
  // Scheme: decides whether the URL is absolute, relative to the base, or has an opaque path.
  bool scheme_start_state(int c);
  bool scheme_state(int c);
  bool no_scheme_state(int c);
  // Relative references and the slashes before an authority.
  bool special_relative_or_authority_state(int c);
  bool path_or_authority_state(int c);
  bool relative_state(int c);
  bool relative_slash_state(int c);
  bool special_authority_slashes_state(int c);
  bool special_authority_ignore_slashes_state(int c);
  // Authority: userinfo, host and port.
  bool authority_state(int c);
  bool host_state(int c);
  bool port_state(int c);
  // file: URLs, with their Windows drive letter quirks.
  bool file_state(int c);
  bool file_slash_state(int c);
  bool file_host_state(int c);
  // Path, query and fragment.
  bool path_start_state(int c);
  bool path_state(int c);
  bool opaque_path_state(int c);
  bool query_state(int c);
  bool fragment_state(int c);

  void shorten_path();
  void copy_authority_from_base();
  void resolve_path_against_base(int c);
  bool parse_host_buffer();
  // Starts collecting a buffer at the next byte the state machine will read.
  void enter_buffering_state(State state) {
    state_ = state;
    buffer_start_ = pointer_ + 1;
  }
  // A byte that ends the authority, host and port states.
  bool ends_authority(int c) const { return c == kEof || c == '/' || c == '?' || c == '#' || (special_ && c == '\\'); }
  // The "?" and "#" transitions, which many states share.
  void enter_query() {
    url_.query.emplace();
    state_ = State::kQuery;
  }
  void enter_fragment() {
    url_.fragment.emplace();
    state_ = State::kFragment;
  }
  std::string_view buffer() const {
    return input_.substr(static_cast<size_t>(buffer_start_), static_cast<size_t>(pointer_ - buffer_start_));
  }
  // Copies the run of bytes from the pointer on that are not in `set` and not `stop1`/`stop2`
  // to `out`, leaving the pointer on the run's last byte. Returns false if the run is empty.
  bool copy_plain_run(std::string& out, const EncodeSet& set, int stop1, int stop2);
  // The position before the next byte after the pointer that is in `stops` (or before EOF),
  // so that the state machine reads that byte next.
  ptrdiff_t skip_to(const EncodeSet& stops) const {
    size_t end = static_cast<size_t>(pointer_) + 1;
    while (end < input_.size() && !stops[static_cast<unsigned char>(input_[end])]) ++end;
    return static_cast<ptrdiff_t>(end) - 1;
  }
  // The end of a path segment (c is '/', '\\' for special URLs, '?', '#' or EOF).
  void end_path_segment(bool slash);

  std::string_view input_;
  const Url* base_;
  std::string* error_;
  Url& url_;
  Encoding encoding_;  // the output encoding of the encoding override
  State state_ = State::kSchemeStart;
  ptrdiff_t pointer_ = 0;
  ptrdiff_t buffer_start_ = 0;  // the buffer is input_[buffer_start_, pointer_)
  static constexpr size_t kNoSegment = std::string::npos;
  size_t segment_start_ = kNoSegment;  // where the current path segment starts in url_.path
  bool special_ = false;
  bool is_file_ = false;  // url_.scheme == "file"; the Windows drive letter quirks apply
  bool at_sign_seen_ = false;
  bool inside_brackets_ = false;
  bool password_token_seen_ = false;
  bool port_seen_ = false;
  uint32_t port_value_ = 0;
};

bool Parser::copy_plain_run(std::string& out, const EncodeSet& set, int stop1, int stop2) {
  const auto begin = static_cast<size_t>(pointer_);
  size_t end = begin;
  while (end < input_.size()) {
    auto c = static_cast<unsigned char>(input_[end]);
    if (set[c] || c == stop1 || c == stop2) break;
    ++end;
  }
  if (end == begin) return false;
  out.append(input_.data() + begin, end - begin);
  pointer_ = static_cast<ptrdiff_t>(end) - 1;
  return true;
}

void Parser::end_path_segment(bool slash) {
  std::string& path = url_.path;
  if (segment_start_ == kNoSegment) {  // an empty segment
    path.push_back('/');
    segment_start_ = path.size();
  }
  std::string_view segment = std::string_view(path).substr(segment_start_);
  // Only segments of length 1..6 starting with '.' or '%' can be dot segments.
  bool maybe_dots = !segment.empty() && segment.size() <= 6 && (segment[0] == '.' || segment[0] == '%');
  if (!maybe_dots) {
    if (is_file_ && segment_start_ == 1 && is_windows_drive_letter(segment)) path[2] = ':';
  } else if (is_double_dot_segment(segment)) {
    path.resize(segment_start_ - 1);
    shorten_path();
    if (!slash) path.push_back('/');
  } else if (is_single_dot_segment(segment)) {
    path.resize(segment_start_ - 1);
    if (!slash) path.push_back('/');
  }
  segment_start_ = kNoSegment;
}

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
  if (is_file_ && path.size() == 3 && path[0] == '/' &&
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

// The relative and file states when the input does not start with a slash: the URL starts from the
// base's path and query, which a query or fragment keeps and a path (its last segment) replaces.
void Parser::resolve_path_against_base(int c) {
  url_.path = base_->path;
  url_.query = base_->query;
  if (c == '?') {
    enter_query();
  } else if (c == '#') {
    enter_fragment();
  } else if (c != kEof) {
    url_.query.reset();
    // A file path that starts with a drive letter replaces the whole base path.
    if (is_file_ && starts_with_windows_drive_letter(from_pointer())) {
      url_.path.clear();
    } else {
      shorten_path();
    }
    state_ = State::kPath;
    --pointer_;
  }
}

bool Parser::parse_host_buffer() {
  std::string host_error;
  std::string_view host = buffer();
  if (!url_internal::parse_host(host, !special_, url_.host, error_ ? &host_error : nullptr)) {
    if (error_) {
      *error_ = "invalid host '";
      *error_ += host;
      *error_ += "': " + host_error;
    }
    return false;
  }
  url_.has_host = true;
  return true;
}

bool Parser::run() {
  for (;;) {
    if (!step(at(pointer_))) return false;
    if (pointer_ >= static_cast<ptrdiff_t>(input_.size())) return true;
    ++pointer_;
  }
}

// Empties `url` but keeps its strings' capacity.
void reset_url(Url& url) {
  url.scheme.clear();
  url.username.clear();
  url.password.clear();
  url.host.clear();
  url.port.reset();
  url.path.clear();
  url.query.reset();
  url.fragment.reset();
  url.opaque_path = false;
  url.has_host = false;
}

bool Parser::step(int c) {
  switch (state_) {
    case State::kSchemeStart: return scheme_start_state(c);
    case State::kScheme: return scheme_state(c);
    case State::kNoScheme: return no_scheme_state(c);
    case State::kSpecialRelativeOrAuthority: return special_relative_or_authority_state(c);
    case State::kPathOrAuthority: return path_or_authority_state(c);
    case State::kRelative: return relative_state(c);
    case State::kRelativeSlash: return relative_slash_state(c);
    case State::kSpecialAuthoritySlashes: return special_authority_slashes_state(c);
    case State::kSpecialAuthorityIgnoreSlashes: return special_authority_ignore_slashes_state(c);
    case State::kAuthority: return authority_state(c);
    case State::kHost: return host_state(c);
    case State::kPort: return port_state(c);
    case State::kFile: return file_state(c);
    case State::kFileSlash: return file_slash_state(c);
    case State::kFileHost: return file_host_state(c);
    case State::kPathStart: return path_start_state(c);
    case State::kPath: return path_state(c);
    case State::kOpaquePath: return opaque_path_state(c);
    case State::kQuery: return query_state(c);
    case State::kFragment: return fragment_state(c);
  }
  return true;
}

// https://url.spec.whatwg.org/#scheme-start-state
bool Parser::scheme_start_state(int c) {
  if (is_ascii_alpha(c)) {
    url_.scheme.push_back(to_lower(static_cast<char>(c)));
    state_ = State::kScheme;
  } else {
    state_ = State::kNoScheme;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#scheme-state
bool Parser::scheme_state(int c) {
  // The whole run of scheme characters in one step.
  while (is_ascii_alpha(c) || is_ascii_digit(c) || c == '+' || c == '-' || c == '.') {
    url_.scheme.push_back(to_lower(static_cast<char>(c)));
    c = at(++pointer_);
  }
  if (c == ':') {
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
    url_.scheme.clear();
    state_ = State::kNoScheme;
    pointer_ = -1;
  }
  return true;
}

// https://url.spec.whatwg.org/#no-scheme-state
bool Parser::no_scheme_state(int c) {
  if (!base_ || (base_->opaque_path && c != '#')) {
    return fail(base_ ? "relative URL against a base with an opaque path" : "relative URL without a base");
  }
  if (base_->opaque_path) {
    url_.scheme = base_->scheme;
    url_.path = base_->path;
    url_.opaque_path = true;
    url_.query = base_->query;
    enter_fragment();
  } else {
    state_ = base_->scheme == "file" ? State::kFile : State::kRelative;
    --pointer_;
  }
  special_ = is_special_scheme(base_->scheme);
  return true;
}

// https://url.spec.whatwg.org/#special-relative-or-authority-state
bool Parser::special_relative_or_authority_state(int c) {
  if (c == '/' && at(pointer_ + 1) == '/') {
    state_ = State::kSpecialAuthorityIgnoreSlashes;
    ++pointer_;
  } else {
    state_ = State::kRelative;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#path-or-authority-state
bool Parser::path_or_authority_state(int c) {
  if (c == '/') {
    enter_buffering_state(State::kAuthority);
  } else {
    state_ = State::kPath;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#relative-state
bool Parser::relative_state(int c) {
  url_.scheme = base_->scheme;
  if (c == '/' || (special_ && c == '\\')) {
    state_ = State::kRelativeSlash;
  } else {
    copy_authority_from_base();
    resolve_path_against_base(c);
  }
  return true;
}

// https://url.spec.whatwg.org/#relative-slash-state
bool Parser::relative_slash_state(int c) {
  if (special_ && (c == '/' || c == '\\')) {
    state_ = State::kSpecialAuthorityIgnoreSlashes;
  } else if (c == '/') {
    enter_buffering_state(State::kAuthority);
  } else {
    copy_authority_from_base();
    state_ = State::kPath;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#special-authority-slashes-state
bool Parser::special_authority_slashes_state(int c) {
  state_ = State::kSpecialAuthorityIgnoreSlashes;
  if (c == '/' && at(pointer_ + 1) == '/') {
    ++pointer_;
  } else {
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#special-authority-ignore-slashes-state
bool Parser::special_authority_ignore_slashes_state(int c) {
  if (c != '/' && c != '\\') {
    --pointer_;
    enter_buffering_state(State::kAuthority);
  }
  return true;
}

// https://url.spec.whatwg.org/#authority-state
bool Parser::authority_state(int c) {
  if (c == '@') {
    std::string& first = password_token_seen_ ? url_.password : url_.username;
    if (at_sign_seen_) first += "%40";
    at_sign_seen_ = true;
    for (char b : buffer()) {
      if (b == ':' && !password_token_seen_) {
        password_token_seen_ = true;
        continue;
      }
      append_encoded(password_token_seen_ ? url_.password : url_.username, static_cast<unsigned char>(b),
                     url_internal::kUserinfoSet);
    }
    buffer_start_ = pointer_ + 1;
  } else if (ends_authority(c)) {
    if (at_sign_seen_ && pointer_ == buffer_start_) return fail("credentials without a host");
    pointer_ = buffer_start_ - 1;
    enter_buffering_state(State::kHost);
  } else {
    // Skip to the next byte that ends or splits the authority.
    pointer_ = skip_to(special_ ? kSpecialAuthorityStops : kAuthorityStops);
  }
  return true;
}

// https://url.spec.whatwg.org/#host-state
bool Parser::host_state(int c) {
  if (c == ':' && !inside_brackets_) {
    if (pointer_ == buffer_start_) return fail("port without a host");
    if (!parse_host_buffer()) return false;
    state_ = State::kPort;
  } else if (ends_authority(c)) {
    if (special_ && pointer_ == buffer_start_) return fail("missing host");
    if (!parse_host_buffer()) return false;
    --pointer_;
    state_ = State::kPathStart;
  } else if (c == '[') {
    inside_brackets_ = true;
  } else if (c == ']') {
    inside_brackets_ = false;
  } else {
    // Skip to the next byte this state decides on.
    pointer_ = skip_to(kHostStops);
  }
  return true;
}

// https://url.spec.whatwg.org/#port-state
bool Parser::port_state(int c) {
  if (is_ascii_digit(c)) {
    port_value_ = port_value_ * 10 + static_cast<uint32_t>(c - '0');
    if (port_value_ > 65535) return fail("port out of range");
    port_seen_ = true;
  } else if (ends_authority(c)) {
    if (port_seen_) {
      if (static_cast<int>(port_value_) == default_port(url_.scheme)) {
        url_.port.reset();
      } else {
        url_.port = static_cast<uint16_t>(port_value_);
      }
    }
    state_ = State::kPathStart;
    --pointer_;
  } else {
    return fail("invalid character in port");
  }
  return true;
}

// https://url.spec.whatwg.org/#file-state
bool Parser::file_state(int c) {
  url_.scheme = "file";
  special_ = true;
  is_file_ = true;
  url_.host.clear();
  url_.has_host = true;
  if (c == '/' || c == '\\') {
    state_ = State::kFileSlash;
  } else if (base_ && base_->scheme == "file") {
    url_.host = base_->host;
    url_.has_host = base_->has_host;
    resolve_path_against_base(c);
  } else {
    state_ = State::kPath;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#file-slash-state
bool Parser::file_slash_state(int c) {
  if (c == '/' || c == '\\') {
    enter_buffering_state(State::kFileHost);
  } else {
    if (base_ && base_->scheme == "file") {
      url_.host = base_->host;
      url_.has_host = base_->has_host;
      const std::string& base_path = base_->path;
      if (!starts_with_windows_drive_letter(from_pointer()) && base_path.size() >= 3 && base_path[0] == '/' &&
          is_normalized_windows_drive_letter(base_path.substr(1, 2)) &&
          (base_path.size() == 3 || base_path[3] == '/')) {
        url_.path.append(base_path, 0, 3);
      }
    }
    state_ = State::kPath;
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#file-host-state
bool Parser::file_host_state(int c) {
  if (c == kEof || c == '/' || c == '\\' || c == '?' || c == '#') {
    if (is_windows_drive_letter(buffer())) {
      // The "host" is really the first path segment (file://C|/x).
      url_.path.push_back('/');
      segment_start_ = url_.path.size();
      url_.path += buffer();
      state_ = State::kPath;
    } else if (pointer_ == buffer_start_) {
      url_.host.clear();
      url_.has_host = true;
      state_ = State::kPathStart;
    } else {
      url_.host.clear();
      if (!parse_host_buffer()) return false;
      if (url_.host == "localhost") url_.host.clear();
      state_ = State::kPathStart;
    }
    --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#path-start-state
bool Parser::path_start_state(int c) {
  if (special_) {
    state_ = State::kPath;
    if (c != '/' && c != '\\') --pointer_;
  } else if (c == '?') {
    enter_query();
  } else if (c == '#') {
    enter_fragment();
  } else if (c != kEof) {
    state_ = State::kPath;
    if (c != '/') --pointer_;
  }
  return true;
}

// https://url.spec.whatwg.org/#path-state
bool Parser::path_state(int c) {
  // Runs through the whole path in one step, segment by segment.
  for (;;) {
    bool slash = c == '/' || (special_ && c == '\\');
    if (slash || c == kEof || c == '?' || c == '#') {
      end_path_segment(slash);
      if (c == '?') {
        enter_query();
        return true;
      }
      if (c == '#') {
        enter_fragment();
        return true;
      }
      if (c == kEof) return true;
    } else {
      if (segment_start_ == kNoSegment) {
        url_.path.push_back('/');
        segment_start_ = url_.path.size();
      }
      if (!copy_plain_run(url_.path, url_internal::kPathSet, '/', special_ ? '\\' : '/')) {
        append_encoded(url_.path, static_cast<unsigned char>(c), url_internal::kPathSet);
      }
    }
    c = at(++pointer_);
  }
}

// https://url.spec.whatwg.org/#cannot-be-a-base-url-path-state
bool Parser::opaque_path_state(int c) {
  if (c == '?') {
    enter_query();
  } else if (c == '#') {
    enter_fragment();
  } else if (c == ' ') {
    int next = at(pointer_ + 1);
    // A space before '?' or '#' is escaped so that it survives re-parsing.
    url_.path += next == '?' || next == '#' ? "%20" : " ";
  } else if (c != kEof && !copy_plain_run(url_.path, kOpaquePathRunStops, -1, -1)) {
    append_encoded(url_.path, static_cast<unsigned char>(c), url_internal::kC0ControlSet);
  }
  return true;
}

// https://url.spec.whatwg.org/#query-state
bool Parser::query_state(int c) {
  if (c == '#') {
    enter_fragment();
  } else if (c != kEof) {
    const EncodeSet& set = special_ ? url_internal::kSpecialQuerySet : url_internal::kQuerySet;
    if (encoding_ != Encoding::kUtf8 && special_ && url_.scheme != "ws" && url_.scheme != "wss") {
      // The spec's buffer: the rest of the query, encoded at once (a stateful encoding such as
      // ISO-2022-JP shifts within it).
      const auto begin = static_cast<size_t>(pointer_);
      const size_t end = std::min(input_.find('#', begin), input_.size());
      url_internal::append_query_in_encoding(*url_.query, input_.substr(begin, end - begin), encoding_, set);
      pointer_ = static_cast<ptrdiff_t>(end) - 1;
    } else if (!copy_plain_run(*url_.query, set, '#', '#')) {
      append_encoded(*url_.query, static_cast<unsigned char>(c), set);
    }
  }
  return true;
}

// https://url.spec.whatwg.org/#fragment-state
bool Parser::fragment_state(int c) {
  if (c != kEof && !copy_plain_run(*url_.fragment, url_internal::kFragmentSet, -1, -1)) {
    append_encoded(*url_.fragment, static_cast<unsigned char>(c), url_internal::kFragmentSet);
  }
  return true;
}

}  // namespace

bool parse_url_into(std::string_view input, const Url* base, Url& out, std::string* error, Encoding encoding) {
  std::optional<Url> base_copy;
  if (base == &out) base = &base_copy.emplace(out);
  reset_url(out);
  std::string storage;
  Parser parser(preprocess(input, storage), base, out, error, encoding);
  return parser.run();
}

std::optional<Url> parse_url(std::string_view input, const Url* base, std::string* error, Encoding encoding) {
  Url url;
  if (!parse_url_into(input, base, url, error, encoding)) return std::nullopt;
  return url;
}

}  // namespace bloomcrawl
