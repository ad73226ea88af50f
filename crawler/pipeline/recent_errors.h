// RecentErrors: the last few failed fetches (no response, or an HTTP status of 400 and above) with
// their URL, for the live status page (docs/metrics.md). Bounded; its lock is taken only on the
// error path and by a reader, never for a page that succeeds.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace bloomcrawl {

class RecentErrors {
 public:
  static constexpr size_t kKept = 20;

  // Both texts are kept as valid UTF-8 (invalid bytes become U+FFFD), so the report can be dumped.
  void add(const std::string& url, const std::string& what);
  // Newest first: [{"time": unix seconds, "url", "error"}].
  nlohmann::json to_json() const;

 private:
  struct Entry {
    int64_t unix_seconds = 0;
    std::string url;
    std::string what;
  };
  mutable std::mutex mu_;
  std::deque<Entry> entries_;  // oldest first
};

}  // namespace bloomcrawl
