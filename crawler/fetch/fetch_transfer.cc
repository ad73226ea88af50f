#include "crawler/fetch/fetch_transfer.h"

#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "crawler/fetch/fetch_content_type.h"
#include "crawler/fetch/fetch_outcome.h"

namespace bloomcrawl {
namespace {

// A body of a type we do not keep is still read (and discarded) when it is declared this small,
// because aborting an HTTP/1.1 transfer closes its connection, which costs more than the bytes.
constexpr int64_t kDrainLimit = 64 << 10;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// "HTTP/1.1 404 Not Found" / "HTTP/2 200" -> the status code, 0 if unreadable.
long status_of(std::string_view status_line) {
  const size_t space = status_line.find(' ');
  if (space == std::string_view::npos) return 0;
  long status = 0;
  const char* begin = status_line.data() + space + 1;
  std::from_chars(begin, status_line.data() + status_line.size(), status);
  return status;
}

std::string http_version_name(long version) {
  switch (version) {
    case CURL_HTTP_VERSION_1_0: return "1.0";
    case CURL_HTTP_VERSION_1_1: return "1.1";
    case CURL_HTTP_VERSION_2_0: return "2";
    case CURL_HTTP_VERSION_3: return "3";
    default: return "";
  }
}

// libcurl's low-speed check works in whole seconds; round up so a short idle timeout still applies.
long idle_seconds(std::chrono::milliseconds idle) {
  return std::max<long>(1, static_cast<long>((idle.count() + 999) / 1000));
}

}  // namespace

FetchTransfer::FetchTransfer(const FetchOptions& options, const std::vector<std::string>& accepted,
                             const AddressGuard* guard)
    : options_(options), default_accepted_(accepted), guard_(guard), easy_(curl_easy_init()) {
  if (easy_ == nullptr) throw std::runtime_error("fetcher: curl_easy_init failed");
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM across threads
  // Without this, a transfer that times out or is cancelled while its name is still resolving
  // joins the resolver thread, stalling the whole worker (and stop()) until getaddrinfo returns;
  // with it the resolver thread is detached and frees itself when done.
  curl_easy_setopt(easy_, CURLOPT_QUICK_EXIT, 1L);
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, error_buffer_);
  curl_easy_setopt(easy_, CURLOPT_PRIVATE, this);
  curl_easy_setopt(easy_, CURLOPT_FOLLOWLOCATION, 0L);  // the crawler scopes and dedups redirects
  curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  // An environment proxy would make every connect go to the proxy's address, defeating the guard.
  curl_easy_setopt(easy_, CURLOPT_PROXY, "");
  resolve_.apply(easy_, options.resolve);
  curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, options.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1);
  // The body is kept as received (WARC) and decoded here (body_decoder.h), so libcurl passes it on
  // untouched; it still reads the chunk framing to find the body's end.
  curl_easy_setopt(easy_, CURLOPT_HTTP_CONTENT_DECODING, 0L);
  curl_easy_setopt(easy_, CURLOPT_HTTP_TRANSFER_DECODING, 0L);
  if (options.compression) curl_easy_setopt(easy_, CURLOPT_ACCEPT_ENCODING, "gzip, deflate, br");
  if (!options.user_agent.empty()) {
    curl_easy_setopt(easy_, CURLOPT_USERAGENT, options.user_agent.c_str());
  }
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, static_cast<long>(options.total_timeout.count()));
  curl_easy_setopt(easy_, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(easy_, CURLOPT_LOW_SPEED_TIME, idle_seconds(options.idle_timeout));
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &FetchTransfer::on_header);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, this);
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &FetchTransfer::on_write);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
  if (guard_ != nullptr) {
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETFUNCTION, &FetchTransfer::on_open_socket);
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETDATA, this);
  }
  if (options.capture_headers) {
    // The request head is only visible through the debug callback, which needs VERBOSE.
    curl_easy_setopt(easy_, CURLOPT_DEBUGFUNCTION, &FetchTransfer::on_debug);
    curl_easy_setopt(easy_, CURLOPT_DEBUGDATA, this);
    curl_easy_setopt(easy_, CURLOPT_VERBOSE, 1L);
  }
}

FetchTransfer::~FetchTransfer() {
  curl_easy_cleanup(easy_);
  curl_slist_free_all(accept_header_);
}

void FetchTransfer::start(FetchRequest request) {
  result_ = FetchResult{};
  result_.id = request.id;
  result_.url = std::move(request.url);
  override_accepted_ = parse_media_type_list(request.accept_types_override);
  keep_first_bytes_ = request.keep_first_bytes;
  abort_ = Abort::kNone;
  wire_body_bytes_ = 0;
  abort_error_.clear();
  blocked_.clear();
  in_body_ = false;
  content_encoding_.clear();
  chunked_ = false;
  decoder_.reset();
  digest_.reset();
  error_buffer_[0] = '\0';
  result_.fetch_time = std::chrono::system_clock::now();

  // Tell the server what we keep; "*/*" at low weight so strict servers do not answer 406.
  const std::vector<std::string>& accepted = effective_accepted();
  std::string accept = "Accept: ";
  for (const std::string& type : accepted) accept += type + ", ";
  accept += "*/*;q=0.1";
  curl_slist_free_all(accept_header_);
  accept_header_ = curl_slist_append(nullptr, accept.c_str());
  const std::vector<std::string> conditional = conditional_header_lines(request.validators);
  for (const std::string& line : conditional) accept_header_ = curl_slist_append(accept_header_, line.c_str());
  conditional_ = !conditional.empty();
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, accept_header_);
  curl_easy_setopt(easy_, CURLOPT_URL, result_.url.c_str());
  // Over TLS a second request to a host waits for the first connection to learn whether it speaks
  // HTTP/2 (then it multiplexes) instead of opening another. Plain http is always HTTP/1.1 here,
  // where waiting would only serialize requests.
  const bool may_multiplex =
      options_.http2 && result_.url.size() >= 6 && iequals(std::string_view(result_.url).substr(0, 6), "https:");
  curl_easy_setopt(easy_, CURLOPT_PIPEWAIT, may_multiplex ? 1L : 0L);
  curl_easy_setopt(easy_, CURLOPT_FORBID_REUSE, request.close_connection ? 1L : 0L);
}

const std::vector<std::string>& FetchTransfer::effective_accepted() const {
  return override_accepted_.empty() ? default_accepted_ : override_accepted_;
}

size_t FetchTransfer::on_header(char* data, size_t size, size_t count, void* self) {
  const size_t bytes = size * count;
  return static_cast<FetchTransfer*>(self)->header_line(std::string_view(data, bytes)) ? bytes : 0;
}

bool FetchTransfer::header_line(std::string_view line) {
  result_.header_bytes += line.size();
  if (result_.header_bytes > options_.max_header_bytes) {
    abort_ = Abort::kHeaderTooLarge;
    abort_error_ = "response headers exceed max_header_bytes (" + std::to_string(options_.max_header_bytes) + ")";
    return false;
  }
  if (in_body_) return true;  // trailers after a chunked body: kept in the raw body, not interpreted
  if (options_.capture_headers) result_.response_headers.append(line);
  if (line.starts_with("HTTP/")) {
    // A new response head (the previous one was 1xx): start its fields afresh.
    result_.status = status_of(trim(line));
    result_.content_type.clear();
    result_.content_length = -1;
    result_.location.clear();
    result_.retry_after.clear();
    result_.x_robots_tag.clear();
    result_.etag.clear();
    result_.last_modified.clear();
    content_encoding_.clear();
    chunked_ = false;
    return true;
  }
  const std::string_view content = trim(line);
  if (content.empty()) return head_complete();
  const size_t colon = content.find(':');
  if (colon != std::string_view::npos) {
    header_field(trim(content.substr(0, colon)), trim(content.substr(colon + 1)));
  }
  return true;
}

void FetchTransfer::header_field(std::string_view name, std::string_view value) {
  if (iequals(name, "content-type")) {
    result_.content_type = value;
  } else if (iequals(name, "content-length")) {
    int64_t length = -1;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
    result_.content_length = (ec == std::errc() && end == value.data() + value.size()) ? length : -1;
  } else if (iequals(name, "location")) {
    result_.location = value;
  } else if (iequals(name, "retry-after")) {
    result_.retry_after = value;
  } else if (iequals(name, "content-encoding")) {
    content_encoding_ = value;
  } else if (iequals(name, "transfer-encoding")) {
    // "chunked" is always the last coding applied (RFC 9112 6.1).
    chunked_ = value.size() >= 7 && iequals(value.substr(value.size() - 7), "chunked");
  } else if (iequals(name, "etag")) {
    result_.etag = value;
  } else if (iequals(name, "last-modified")) {
    result_.last_modified = value;
  } else if (iequals(name, "x-robots-tag")) {
    // Repeated fields combine with ", " (RFC 9110 §5.3).
    if (!result_.x_robots_tag.empty()) result_.x_robots_tag += ", ";
    result_.x_robots_tag += value;
  }
}

bool FetchTransfer::head_complete() {
  if (result_.status >= 100 && result_.status < 200) return true;  // interim; the real head follows
  in_body_ = true;
  decoder_.emplace(chunked_, content_encoding_);
  result_.media_type = media_type_of(result_.content_type);
  result_.content_accepted = media_type_accepted(result_.media_type, effective_accepted());
  const int64_t length = result_.content_length;
  // A body longer than max_body_bytes is read up to it and kept, truncated (body_bytes()).
  if (result_.content_accepted) return true;
  const bool bodiless = result_.status == 204 || result_.status == 304 || length == 0;
  if (!bodiless && (length < 0 || length > kDrainLimit)) {
    abort_ = Abort::kNotAccepted;
    return false;
  }
  return true;
}

size_t FetchTransfer::on_write(char* data, size_t size, size_t count, void* self) {
  auto* transfer = static_cast<FetchTransfer*>(self);
  const size_t bytes = size * count;
  return transfer->body_bytes(std::string_view(data, bytes)) ? bytes : 0;
}

// max_body_bytes (unless keep_first_bytes replaces it): the body is read up to it on the wire and
// the transfer ends there, a page like any other, truncated (config/README.md fetch.max_body_bytes).
bool FetchTransfer::body_bytes(std::string_view bytes) {
  bool cut = false;
  if (keep_first_bytes_ == 0 || !result_.content_accepted) {
    const uint64_t room = options_.max_body_bytes - std::min<uint64_t>(wire_body_bytes_, options_.max_body_bytes);
    if (bytes.size() > room) {
      bytes = bytes.substr(0, room);
      cut = true;
    }
  }
  wire_body_bytes_ += bytes.size();
  if (!decoder_) decoder_.emplace(false, "");  // a body without a final head (HTTP/0.9): as is
  // A body received as is is kept once, in `body` (FetchResult::raw_body), unless only its first
  // part is kept there.
  if (options_.capture_headers && result_.content_accepted && (keep_first_bytes_ > 0 || !decoder_->passes_through())) {
    result_.raw_body.append(bytes);
  }
  const bool fed = decoder_->feed(
      bytes, [this](std::string_view payload) { digest_.update(payload); },
      [this](std::string_view decoded) { return decoded_bytes(decoded); });
  if (!fed && abort_ == Abort::kNone) {
    abort_ = Abort::kBadEncoding;
    abort_error_ = decoder_->error();
  }
  if (fed && cut) truncate();
  return fed && !cut;
}

void FetchTransfer::truncate() {
  result_.body_truncated = true;
  abort_ = Abort::kTruncated;
}

// The body after content decoding, counted against the bomb guard and kept if accepted.
bool FetchTransfer::decoded_bytes(std::string_view bytes) {
  if (keep_first_bytes_ > 0 && result_.content_accepted) {
    const size_t room = keep_first_bytes_ - result_.body.size();
    const size_t kept = std::min(room, bytes.size());
    result_.body.append(bytes.substr(0, kept));
    result_.body_decoded_bytes += kept;
    if (kept == bytes.size()) return true;
    // The first part is all that was asked for: the rest is not read.
    truncate();
    return false;
  }
  // max_decoded_bytes (gzip/brotli bombs): the decoded body is cut there, as at max_body_bytes.
  const uint64_t room = options_.max_decoded_bytes - result_.body_decoded_bytes;
  const std::string_view kept = bytes.substr(0, std::min<uint64_t>(room, bytes.size()));
  result_.body_decoded_bytes += kept.size();
  if (result_.content_accepted) result_.body.append(kept);
  if (kept.size() == bytes.size()) return true;
  truncate();
  return false;
}

curl_socket_t FetchTransfer::on_open_socket(void* self, curlsocktype /*purpose*/, curl_sockaddr* address) {
  auto* transfer = static_cast<FetchTransfer*>(self);
  IpAddress ip;
  if (!IpAddress::from_sockaddr(&address->addr, &ip)) {
    transfer->blocked_ = "connection blocked: address family " + std::to_string(address->family);
    return CURL_SOCKET_BAD;
  }
  const AddressVerdict verdict = transfer->guard_->check(ip);
  if (!verdict.allowed) {
    if (!transfer->blocked_.empty()) transfer->blocked_ += "; ";
    transfer->blocked_ += "connection to " + ip.to_string() + " blocked (" + verdict.reason + ")";
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

int FetchTransfer::on_debug(CURL* /*easy*/, curl_infotype type, char* data, size_t size, void* self) {
  if (type == CURLINFO_HEADER_OUT) static_cast<FetchTransfer*>(self)->result_.request_headers.append(data, size);
  return 0;
}

void FetchTransfer::fill_transfer_info(FetchResult* result) {
  long status = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status != 0) {
    result->status = status;
  }
  const char* ip = nullptr;
  if (curl_easy_getinfo(easy_, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip != nullptr) {
    result->remote_ip = ip;
  }
  curl_off_t wire = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_SIZE_DOWNLOAD_T, &wire) == CURLE_OK) {
    result->body_wire_bytes = static_cast<uint64_t>(wire);
  }
  curl_off_t total_us = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_TOTAL_TIME_T, &total_us) == CURLE_OK) {
    result->total_ms = static_cast<double>(total_us) / 1000.0;
  }
  long version = 0;
  if (curl_easy_getinfo(easy_, CURLINFO_HTTP_VERSION, &version) == CURLE_OK) {
    result->http_version = http_version_name(version);
  }
}

FetchResult FetchTransfer::finish(CURLcode code) {
  FetchResult result = std::move(result_);
  fill_transfer_info(&result);
  if (code == CURLE_OK || abort_ == Abort::kNotAccepted || abort_ == Abort::kTruncated) {
    // A gated type is a complete answer (headers and size), as is a body cut at a limit or at the
    // first part asked for (body_truncated).
    result.outcome = FetchOutcome::kOk;
    if (code == CURLE_OK) result.payload_digest = digest_.finish();
    if (conditional_ && result.status == 304) {
      result.outcome = FetchOutcome::kNotModified;
      result.payload_digest.clear();  // of no body: the stored digest stands (docs/recrawl.md)
    }
  } else if (abort_ != Abort::kNone) {
    result.outcome = abort_ == Abort::kBadEncoding ? FetchOutcome::kProtocolError : FetchOutcome::kHeaderTooLarge;
    result.error = abort_error_;
  } else if (code == CURLE_OUT_OF_MEMORY && !in_body_) {
    // libcurl 7.88 reports a single header line over its own 100 KiB limit (CURL_MAX_HTTP_HEADER)
    // as out of memory, before our header callback sees the line.
    result.outcome = FetchOutcome::kHeaderTooLarge;
    result.error = "a response header line exceeds libcurl's 100 KiB line limit";
  } else if (!blocked_.empty() && code == CURLE_COULDNT_CONNECT) {
    result.outcome = FetchOutcome::kBlockedAddress;
    result.error = blocked_;
  } else {
    long os_errno = 0;
    curl_easy_getinfo(easy_, CURLINFO_OS_ERRNO, &os_errno);
    result.outcome = outcome_of_curl_error(code, os_errno);
    result.error = curl_easy_strerror(code);
    if (error_buffer_[0] != '\0') result.error += std::string(": ") + error_buffer_;
  }
  // A partial body would be parsed as if it were the page; keep only complete accepted bodies.
  if (result.outcome != FetchOutcome::kOk || !result.content_accepted) {  // a 304 included: no body
    std::string().swap(result.body);
    std::string().swap(result.raw_body);
  }
  return result;
}

FetchResult FetchTransfer::cancel() {
  FetchResult result = std::move(result_);
  fill_transfer_info(&result);
  result.outcome = FetchOutcome::kCancelled;
  result.error = "fetcher stopped before the transfer completed";
  std::string().swap(result.body);
  std::string().swap(result.raw_body);
  return result;
}

}  // namespace bloomcrawl
