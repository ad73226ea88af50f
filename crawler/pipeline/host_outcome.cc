#include "crawler/pipeline/host_outcome.h"

#include <curl/curl.h>

#include <algorithm>

namespace bloomcrawl {

std::optional<Clock::time_point> parse_retry_after(const std::string& value, Clock::time_point now,
                                                   std::chrono::seconds cap) {
  if (value.empty()) return std::nullopt;
  std::chrono::seconds wait{0};
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    wait = std::chrono::seconds(std::stoll(value.substr(0, 9)));
  } else {
    const time_t date = curl_getdate(value.c_str(), nullptr);
    if (date < 0) return std::nullopt;
    const auto wall = std::chrono::system_clock::from_time_t(date);
    wait = std::max(std::chrono::seconds(0),
                    std::chrono::duration_cast<std::chrono::seconds>(wall - std::chrono::system_clock::now()));
  }
  return now + std::min(wait, cap);
}

HostOutcome host_outcome(const FetchResult& result, Clock::time_point now, const BackoffSettings& backoff) {
  if (result.outcome == FetchOutcome::kNotModified) return HostOutcome::ok();  // a 304 to a revisit
  if (result.outcome != FetchOutcome::kOk) return HostOutcome::error();
  if (backoff.on_429_503 && (result.status == 429 || result.status == 503)) {
    return HostOutcome::backoff(parse_retry_after(result.retry_after, now, backoff.max_retry_after));
  }
  // Without back-off a 429 is an error like a 5xx (config/README.md politeness.backoff.on_429_503).
  if (result.status >= 500 || result.status == 429) return HostOutcome::error();
  return HostOutcome::ok();
}

std::optional<RetryCause> retry_cause(const FetchResult& result, const HostOutcome& outcome) {
  if (outcome.kind == HostOutcome::Kind::kBackoff) return RetryCause::kBackoff;
  const bool unanswered = result.outcome == FetchOutcome::kConnectFailed ||
                          (result.outcome == FetchOutcome::kConnectionReset && result.header_bytes == 0);
  if (unanswered) return RetryCause::kTransportError;
  return std::nullopt;
}

std::optional<RetryCause> FetchRetries::take(const std::string& url, const FetchResult& result,
                                             const HostOutcome& outcome) {
  const std::optional<RetryCause> cause = retry_cause(result, outcome);
  std::lock_guard<std::mutex> lock(mu_);
  if (!cause) {
    if (!retries_.empty()) retries_.erase(url);  // a URL that was retried is done
    return std::nullopt;
  }
  Counts& counts = retries_[url];
  const bool backoff = *cause == RetryCause::kBackoff;
  uint32_t& retries = backoff ? counts.backoff : counts.transport;
  if (retries >= (backoff ? max_backoff_ : max_transport_)) {
    retries_.erase(url);
    return std::nullopt;
  }
  ++retries;
  return cause;
}

}  // namespace bloomcrawl
