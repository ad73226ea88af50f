#include "crawler/pipeline/recent_errors.h"

#include <chrono>
#include <utility>

namespace bloomcrawl {

void RecentErrors::add(const std::string& url, std::string what) {
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() == kKept) entries_.pop_front();
  entries_.push_back({now, url, std::move(what)});
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
