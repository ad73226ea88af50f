// RequestTimeline: when a test server's handlers ran, for politeness tests that judge the crawler
// from the server's side. Each request is stamped when its handler starts (the whole request has
// arrived) and when it returns. Not in the logger: that runs after the reply is written, racing
// the client, which has the reply and may already have started its delay
// (robots_redirect_crawl_test.cc). A request counts as in flight between the two stamps, which
// the crawler's view of it contains. Thread-safe.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace bloomcrawl::testing {

class RequestTimeline {
 public:
  using Time = std::chrono::steady_clock::time_point;
  struct Request {
    std::string host;  // the Host header, port included
    std::string path;
    Time start;
    Time end;
  };

  // `reply`, stamped. `reply` may take its time: that is what makes overlapping requests visible.
  httplib::Server::Handler stamped(httplib::Server::Handler reply) {
    return [this, reply = std::move(reply)](const httplib::Request& req, httplib::Response& res) {
      const Time start = std::chrono::steady_clock::now();
      reply(req, res);
      std::lock_guard lock(mu_);
      requests_.push_back({req.get_header_value("Host"), req.path, start, std::chrono::steady_clock::now()});
    };
  }

  // In order of arrival (handler start), those `keep` accepts.
  std::vector<Request> requests(const std::function<bool(const Request&)>& keep = nullptr) const {
    std::vector<Request> kept;
    {
      std::lock_guard lock(mu_);
      for (const Request& r : requests_) {
        if (!keep || keep(r)) kept.push_back(r);
      }
    }
    std::sort(kept.begin(), kept.end(), [](const Request& a, const Request& b) { return a.start < b.start; });
    return kept;
  }

  // The most of `requests` whose handlers ran at one time.
  static size_t max_in_flight(const std::vector<Request>& requests) {
    std::vector<std::pair<Time, int>> events;  // +1 at a start, -1 at an end; ends first on a tie
    for (const Request& r : requests) {
      events.emplace_back(r.start, 1);
      events.emplace_back(r.end, -1);
    }
    std::sort(events.begin(), events.end());
    int in_flight = 0;
    int most = 0;
    for (const auto& [at, change] : events) {
      in_flight += change;
      most = std::max(most, in_flight);
    }
    return size_t(most);
  }

  // The shortest time between two consecutive starts of `requests` (in arrival order); max() for
  // fewer than two.
  static std::chrono::steady_clock::duration min_start_gap(const std::vector<Request>& requests) {
    auto gap = std::chrono::steady_clock::duration::max();
    for (size_t i = 1; i < requests.size(); ++i) gap = std::min(gap, requests[i].start - requests[i - 1].start);
    return gap;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Request> requests_;
};

}  // namespace bloomcrawl::testing
