#include "crawler/observe/status_history.h"

namespace bloomcrawl {
namespace {

double rate(const StatusHistory::Sample& from, const StatusHistory::Sample& to) {
  const double seconds = to.unix_seconds - from.unix_seconds;
  // A resumed crawl's counters start above 0, never below a sample of this process: no negative rate.
  return seconds > 0 && to.pages >= from.pages ? double(to.pages - from.pages) / seconds : 0.0;
}

}  // namespace

void StatusHistory::add(const Sample& sample) {
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.size() == kSamples) samples_.pop_front();
  samples_.push_back(sample);
}

double StatusHistory::pages_per_second(double window_seconds) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.size() < 2) return 0.0;
  const Sample& last = samples_.back();
  auto first = samples_.rbegin() + 1;
  while (first + 1 != samples_.rend() && last.unix_seconds - first->unix_seconds < window_seconds) ++first;
  return rate(*first, last);
}

nlohmann::json StatusHistory::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json time = nlohmann::json::array();
  nlohmann::json pages = nlohmann::json::array();
  nlohmann::json rates = nlohmann::json::array();
  nlohmann::json queued = nlohmann::json::array();
  nlohmann::json in_flight = nlohmann::json::array();
  for (size_t i = 0; i < samples_.size(); ++i) {
    const Sample& s = samples_[i];
    time.push_back(s.unix_seconds);
    pages.push_back(s.pages);
    rates.push_back(i == 0 ? 0.0 : rate(samples_[i - 1], s));
    queued.push_back(s.queued);
    in_flight.push_back(s.in_flight);
  }
  return {{"time", time}, {"pages", pages}, {"pages_per_second", rates}, {"queued", queued}, {"in_flight", in_flight}};
}

}  // namespace bloomcrawl
