#include "crawler/pipeline/recent_errors.h"

#include <chrono>
#include <utility>

namespace bloomcrawl {
namespace {

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD, as pages.jsonl writes it
// (a crawled server's header or libcurl's message about it may hold any bytes; JSON holds UTF-8).
std::string valid_utf8(const std::string& text) {
  const std::string quoted = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

}  // namespace

void RecentErrors::add(const std::string& url, const std::string& what) {
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  Entry entry{now, valid_utf8(url), valid_utf8(what)};
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() == kKept) entries_.pop_front();
  entries_.push_back(std::move(entry));
}

nlohmann::json RecentErrors::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = entries_.size(); i-- > 0;) {  // newest first
    const Entry& e = entries_[i];
    out.push_back({{"time", e.unix_seconds}, {"url", e.url}, {"error", e.what}});
  }
  return out;
}

}  // namespace bloomcrawl
