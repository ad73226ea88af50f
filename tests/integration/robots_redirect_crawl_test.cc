// robots.txt behind redirects in a crawl: each hop is fetched, its rules apply, and each hop waits
// the host's politeness delay after the previous answer (server-side times), as pages do.
#include <chrono>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/fetch_loopback_server.h"
#include "tests/support/loopback_crawl.h"

namespace bloomcrawl {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

TEST(RobotsRedirectCrawl, HopsWaitThePolitenessDelayAndTheirRulesApply) {
  testing::LoopbackHttpServer site;
  std::mutex mu;
  std::vector<std::pair<std::string, SteadyTime>> requests;  // path, arrival
  // Stamped when a handler starts, i.e. after the whole request arrived. The logger would run
  // after the reply is written, racing with the client that already has it and started its delay.
  const auto route = [&](const std::string& path, const httplib::Server::Handler& reply) {
    site.server().Get(path, [&, path, reply](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mu);
        requests.emplace_back(path, std::chrono::steady_clock::now());
      }
      reply(req, res);
    });
  };
  route("/robots.txt",
        [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/moved/robots.txt", 301); });
  route("/moved/robots.txt",
        [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/final-robots.txt", 302); });
  route("/final-robots.txt", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("User-agent: *\nDisallow: /private\n", "text/plain");
  });
  route("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<a href='/public'>p</a><a href='/private'>x</a>", "text/html");
  });
  route("/public", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/html"); });
  route("/private", [](const httplib::Request&, httplib::Response& res) { res.set_content("no", "text/html"); });
  site.start();

  const nlohmann::json report = testing::crawl_loopback_site(site, std::chrono::milliseconds(150));

  EXPECT_EQ(report["crawl"]["stopped_by"], "done");
  std::vector<std::string> paths;
  paths.reserve(requests.size());
  for (const auto& [path, at] : requests) paths.push_back(path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/robots.txt", "/moved/robots.txt", "/final-robots.txt", "/", "/public"}));
  // A request arrives before its answer leaves, and the crawler starts the delay when it has the
  // answer: consecutive arrivals are at least the delay apart only if it waited after each answer.
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_GE(requests[i].second - requests[i - 1].second, std::chrono::milliseconds(150))
        << requests[i - 1].first << " -> " << requests[i].first;
  }
}

}  // namespace
}  // namespace bloomcrawl
