// Tests of the local test web itself: the site is deterministic, its ground truth agrees with a
// crawl of what it actually serves, and its fetch log counts duplicates, robots violations and
// concurrency correctly. The crawler's own integration tests rely on all three.
#include <httplib.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/site_generator.h"
#include "tests/support/site_render.h"
#include "tests/support/site_robots.h"
#include "tests/support/site_url.h"
#include "tests/support/test_web.h"

namespace bloomcrawl::testweb {
namespace {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string decode_entities(std::string s) {
  const std::pair<std::string, std::string> entities[] = {
      {"&quot;", "\""}, {"&#39;", "'"}, {"&lt;", "<"}, {"&amp;", "&"}};
  for (const auto& [entity, text] : entities) {
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + text.size()))
      s.replace(at, entity.size(), text);
  }
  return s;
}

std::optional<std::string> attribute(const std::string& tag, const std::string& name) {
  const std::regex pattern("\\s" + name + "=(\"([^\"]*)\"|'([^']*)')", std::regex::icase);
  std::smatch match;
  if (!std::regex_search(tag, match, pattern)) return std::nullopt;
  return decode_entities(match[2].matched ? match[2].str() : match[3].str());
}

struct ParsedPage {
  std::optional<std::string> base;
  bool nofollow_page = false;
  std::vector<std::pair<std::string, bool>> links;  // href, rel=nofollow
};

// Just enough HTML reading for the pages the test web writes (it is not a general parser).
ParsedPage parse_html(const std::string& html) {
  ParsedPage page;
  static const std::regex tag_pattern("<(a|base|meta)\\s[^>]*>", std::regex::icase);
  for (std::sregex_iterator it(html.begin(), html.end(), tag_pattern), end; it != end; ++it) {
    const std::string tag = it->str();
    const std::string kind = lowercase((*it)[1].str());
    if (kind == "base") {
      page.base = attribute(tag, "href");
    } else if (kind == "meta") {
      if (lowercase(attribute(tag, "name").value_or("")) == "robots" &&
          lowercase(attribute(tag, "content").value_or("")).find("nofollow") != std::string::npos)
        page.nofollow_page = true;
    } else if (auto href = attribute(tag, "href")) {
      const bool nofollow = lowercase(attribute(tag, "rel").value_or("")).find("nofollow") != std::string::npos;
      page.links.emplace_back(*href, nofollow);
    }
  }
  return page;
}

// A tiny sequential crawler over HTTP: fetches every URL once, obeys the site's robots rules and
// nofollow, follows redirects without adding depth. Discovery order is FIFO, which finds the same
// set as a shortest-depth walk whenever max_depth reaches the site's depth.
std::set<std::string> crawl(const TestWeb& web, uint32_t max_depth) {
  const Site& site = web.site();
  std::set<std::string> fetched;
  std::deque<std::pair<std::string, uint32_t>> queue{{web.seed_url(), 0}};
  std::set<std::string> queued{web.seed_url()};
  auto enqueue = [&](const std::string& url, uint32_t depth, bool front) {
    auto located = site.locate(url);
    if (!located || !site.robots(located->first).allowed(located->second) || !queued.insert(url).second) return;
    if (front)
      queue.emplace_front(url, depth);
    else
      queue.emplace_back(url, depth);
  };
  while (!queue.empty()) {
    const auto [url, depth] = queue.front();
    queue.pop_front();
    const auto parsed = parse_http_url(url);
    httplib::Client client(parsed->host, parsed->port);
    const auto response = client.Get(parsed->path_query);
    if (!response) {
      ADD_FAILURE() << "no response for " << url;
      continue;
    }
    fetched.insert(url);
    if (response->status >= 300 && response->status < 400) {
      if (auto target = resolve_url(url, response->get_header_value("Location"))) enqueue(*target, depth, true);
      continue;
    }
    if (response->status != 200 || response->get_header_value("Content-Type").find("text/html") == std::string::npos ||
        lowercase(response->get_header_value("X-Robots-Tag")).find("nofollow") != std::string::npos ||
        depth >= max_depth)
      continue;
    const ParsedPage page = parse_html(response->body);
    if (page.nofollow_page) continue;
    const std::string base = page.base ? resolve_url(url, *page.base).value_or(url) : url;
    for (const auto& [href, nofollow] : page.links) {
      if (nofollow) continue;
      if (auto target = resolve_url(base, href)) enqueue(*target, depth + 1, false);
    }
  }
  return fetched;
}

TestWebOptions small_site() {
  TestWebOptions options;
  options.pages_per_host = 30;
  return options;
}

TEST(TestWeb, ServesEveryHostOnOneEphemeralPort) {
  TestWeb web(small_site());
  web.start();
  ASSERT_NE(web.port(), 0);
  for (const std::string& host : web.options().hosts) {
    httplib::Client client(host, web.port());
    const auto response = client.Get("/");
    ASSERT_TRUE(response) << host;
    EXPECT_EQ(response->status, 200);
    EXPECT_NE(response->body.find("<title>" + host + " home</title>"), std::string::npos);
  }
  web.stop();
  httplib::Client client(web.options().hosts[0], web.port());
  EXPECT_FALSE(client.Get("/")) << "still answering after stop()";
}

TEST(TestWeb, SecondServerOnATakenFixedPortFailsWithTheAddress) {
  TestWeb first(small_site());
  first.start();
  TestWebOptions options = small_site();
  options.port = first.port();
  TestWeb second(options);
  try {
    second.start();
    FAIL() << "bound a port already in use";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.2:" + std::to_string(first.port())), std::string::npos) << e.what();
  }
}

TEST(TestWeb, SameSeedGivesSameBytesAndAnotherSeedDoesNot) {
  TestWeb web(small_site());
  web.start();
  httplib::Client client("127.0.0.3", web.port());
  const auto first = client.Get("/sec2/page7.html");
  const auto again = client.Get("/sec2/page7.html");
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->body, again->body);

  // An independent model with the same options renders the same bytes; another seed differs.
  SiteOptions same{.hosts = web.options().hosts, .port = web.port(), .pages_per_host = 30, .seed = 1};
  EXPECT_EQ(render_site_path(Site(same), 1, "/sec2/page7.html").body, first->body);
  SiteOptions other = same;
  other.seed = 2;
  EXPECT_NE(render_site_path(Site(other), 1, "/sec2/page7.html").body, first->body);
}

TEST(TestWeb, GroundTruthAgreesWithACrawlOfTheServedPages) {
  TestWeb web(small_site());
  web.start();
  const uint32_t depth = web.site_depth() + 2;
  const std::vector<std::string> truth = web.ground_truth(depth);
  const std::set<std::string> crawled = crawl(web, depth);
  EXPECT_EQ(std::vector<std::string>(crawled.begin(), crawled.end()), truth);

  const FetchLogSummary summary = web.summary();
  EXPECT_EQ(summary.page_requests, truth.size());
  EXPECT_EQ(summary.duplicate_fetches, 0u);
  EXPECT_EQ(summary.robots_violations, 0u);
  EXPECT_EQ(summary.nofollow_violations, 0u);
  EXPECT_EQ(summary.unknown_url_requests, 0u);
  EXPECT_EQ(summary.trap_requests, web.ground_truth_detail(depth).trap_urls().size());
}

TEST(TestWeb, GroundTruthFollowsTheDocumentedRules) {
  TestWeb web(small_site());
  web.start();
  const uint32_t depth = web.site_depth();
  const auto truth = web.ground_truth(depth);
  const std::set<std::string> urls(truth.begin(), truth.end());
  auto has = [&](size_t host, const std::string& path) { return urls.count(web.url(host, path)) == 1; };
  EXPECT_TRUE(has(0, "/"));
  EXPECT_TRUE(has(1, "/")) << "cross-host links are in scope";
  EXPECT_FALSE(has(0, "/private/0.html")) << "disallowed by robots.txt";
  EXPECT_TRUE(has(0, "/private/open.html")) << "Allow beats the shorter Disallow";
  EXPECT_TRUE(has(2, "/private/0.html")) << "host 3 has no robots.txt";
  EXPECT_FALSE(has(0, "/sec1/form.cgi"));
  EXPECT_TRUE(has(0, "/sec1/form.cgi?step=2")) << "'$' anchors the end of path+query";
  EXPECT_FALSE(has(0, "/nofollow/home.html"));
  EXPECT_FALSE(has(0, "/meta/hidden-1.html"));
  EXPECT_FALSE(has(0, "/meta/hidden-3.html")) << "X-Robots-Tag: nofollow";
  EXPECT_TRUE(has(0, "/meta/after-noindex.html")) << "noindex alone still follows";
  EXPECT_TRUE(has(0, "/redirect/loop-a") && has(0, "/redirect/loop-b"));
  EXPECT_TRUE(has(0, "/redirect/chain-end.html"));
  EXPECT_FALSE(has(0, "/private/1.html")) << "redirect target disallowed";
  EXPECT_TRUE(has(0, "/missing/redirected.html"));
  EXPECT_TRUE(has(0, "/files/report.pdf") && has(0, "/files/image.png"));
  EXPECT_TRUE(std::none_of(truth.begin(), truth.end(),
                           [](const std::string& u) { return u.find("invalid") != std::string::npos; }));

  // The trap grows with the depth limit: one calendar month and one /x/ level per extra hop.
  const auto deeper = web.ground_truth_detail(depth + 5);
  EXPECT_EQ(deeper.trap_urls().size(), web.ground_truth_detail(depth).trap_urls().size() + size_t{5} * 2 * 3);
  EXPECT_EQ(deeper.entries.size() - deeper.trap_urls().size(),
            truth.size() - web.ground_truth_detail(depth).trap_urls().size());
}

TEST(TestWeb, CountsDuplicateFetchesByCanonicalUrl) {
  TestWeb web(small_site());
  web.start();
  httplib::Client client("127.0.0.2", web.port());
  ASSERT_TRUE(client.Get("/robots.txt"));
  ASSERT_TRUE(client.Get("/sec0/page5.html"));
  ASSERT_TRUE(client.Get("/sec0/./p%61ge5.html"));
  ASSERT_TRUE(client.Get("/sec1/page1.html"));
  ASSERT_TRUE(client.Get("/robots.txt"));
  ASSERT_TRUE(client.Get("/error/500.html"));
  ASSERT_TRUE(client.Get("/error/500.html"));
  const FetchLogSummary summary = web.summary();
  EXPECT_EQ(summary.requests, 7u);
  EXPECT_EQ(summary.robots_txt_fetches, 2u) << "robots.txt is counted apart";
  EXPECT_EQ(summary.duplicate_fetches, 2u);
  EXPECT_EQ(summary.duplicate_fetches_after_server_error, 1u);
  ASSERT_EQ(summary.duplicates.size(), 2u);
  EXPECT_EQ(summary.duplicates[1].url, web.url(0, "/sec0/page5.html"));
  EXPECT_EQ(summary.duplicates[1].fetches, 2u);
  EXPECT_FALSE(summary.duplicates[1].after_server_error);
  EXPECT_TRUE(summary.duplicates[0].after_server_error);
  const auto logged = web.requests();
  EXPECT_EQ(logged[2].target, "/sec0/./p%61ge5.html") << "the raw target is kept";
}

TEST(TestWeb, CountsRobotsViolationsPerHostRulesAndUnknownUrls) {
  TestWeb web(small_site());
  web.start();
  httplib::Client host2("127.0.0.2", web.port());
  httplib::Client host4("127.0.0.4", web.port());
  ASSERT_TRUE(host2.Get("/private/0.html"));
  ASSERT_TRUE(host2.Get("/private/%6fpen.html"));         // allowed, once decoded
  ASSERT_TRUE(host2.Get("/sec1/form.cgi"));               // disallowed by /*.cgi$
  ASSERT_TRUE(host2.Get("/sec1/form.cgi?step=2"));        // allowed
  ASSERT_TRUE(host4.Get("/private/0.html"));              // no robots.txt on this host
  ASSERT_TRUE(host4.Get("/sec4/view?id=4&amp;lang=en"));  // an entity left undecoded
  const FetchLogSummary summary = web.summary();
  EXPECT_EQ(summary.robots_violations, 2u);
  ASSERT_EQ(summary.unknown_urls.size(), 1u);  // the client may escape the ';'
  EXPECT_EQ(summary.unknown_urls[0].rfind(web.url(2, "/sec4/view?id=4&amp"), 0), 0u) << summary.unknown_urls[0];
  EXPECT_EQ(summary.violating_urls,
            (std::vector<std::string>{web.url(0, "/private/0.html"), web.url(0, "/sec1/form.cgi")}));
}

TEST(TestWeb, MeasuresConcurrentRequestsPerHost) {
  TestWebOptions options = small_site();
  options.threads_per_host = 16;
  TestWeb web(options);
  web.start();
  constexpr uint32_t kClients = 8;
  web.hold_responses();
  std::vector<std::thread> clients;
  std::atomic<int> answered{0};
  for (uint32_t i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      httplib::Client client("127.0.0.3", web.port());
      if (client.Get("/sec" + std::to_string(i % 5) + "/page" + std::to_string(i) + ".html")) ++answered;
    });
  }
  const bool all_in_flight = web.wait_for_in_flight(kClients, std::chrono::seconds(30));
  web.release_responses();
  for (auto& client : clients) client.join();
  ASSERT_TRUE(all_in_flight);
  EXPECT_EQ(answered.load(), static_cast<int>(kClients));
  const FetchLogSummary summary = web.summary();
  ASSERT_EQ(summary.hosts.size(), 1u);
  EXPECT_EQ(summary.hosts[0].max_in_flight, kClients);
  ASSERT_TRUE(summary.hosts[0].min_interval_end_to_start_ms);
  EXPECT_LT(*summary.hosts[0].min_interval_end_to_start_ms, 0) << "the requests overlapped";
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Runs bloomcrawl-testweb with stderr on a pipe; start-up is over when it prints its "serving" line.
class TestWebProcess {
 public:
  explicit TestWebProcess(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    args.insert(args.begin(), TESTWEB_BIN);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, TESTWEB_BIN, &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    stderr_ = fdopen(fds[0], "r");
  }
  ~TestWebProcess() {
    if (pid_ > 0) stop();
    if (stderr_) fclose(stderr_);
  }
  // The first stderr line containing `text` (blocking), or "" at end of output.
  std::string wait_for_line(const std::string& text) {
    char line[4096];
    while (stderr_ && fgets(line, sizeof line, stderr_)) {
      if (std::string(line).find(text) != std::string::npos) return line;
    }
    return "";
  }
  int stop() {
    int status = 0;
    kill(pid_, SIGTERM);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  FILE* stderr_ = nullptr;
};

TEST(TestWebProgram, WritesGroundTruthAndTheFetchLogOnSigterm) {
  const auto dir = std::filesystem::temp_directory_path() / ("testweb_program_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  TestWebProcess process({"--pages", "20", "--seed", "7", "--ready-file", (dir / "ready").string(), "--ground-truth",
                          (dir / "truth.json").string(), "--truth-depth", "4", "--log", (dir / "log.json").string()});
  const std::string serving = process.wait_for_line("serving");
  ASSERT_FALSE(serving.empty()) << "the program did not start";
  int port = 0;
  std::ifstream(dir / "ready") >> port;
  ASSERT_GT(port, 0);

  httplib::Client client("127.0.0.3", port);
  ASSERT_TRUE(client.Get("/sec1/page1.html"));
  ASSERT_TRUE(client.Get("/sec1/./page1.html#x"));
  const auto live = client.Get("/__testweb/summary");
  ASSERT_TRUE(live);
  EXPECT_EQ(nlohmann::json::parse(live->body)["duplicate_fetches"], 1) << "control endpoints are not logged";
  EXPECT_EQ(process.stop(), 0);

  const auto log = read_json(dir / "log.json");
  EXPECT_EQ(log["requests"], 2);
  EXPECT_EQ(log["duplicate_fetches"], 1);
  const auto truth = read_json(dir / "truth.json");
  const Site site(SiteOptions{.port = static_cast<uint16_t>(port), .pages_per_host = 20, .seed = 7});
  EXPECT_EQ(truth["urls"].get<std::vector<std::string>>(), compute_ground_truth(site, {site.home_url(0)}, 4).urls());
  std::filesystem::remove_all(dir);
}

TEST(StaticSite, WritesEveryPageAndAGroundTruthThatOnlyNamesWrittenOrMissingPages) {
  const auto dir = std::filesystem::temp_directory_path() / ("testweb_static_" + std::to_string(getpid()));
  StaticSiteOptions options{.directory = (dir / "site").string(),
                            .port = 8080,
                            .pages_per_host = 40,
                            .ground_truth = (dir / "truth.txt").string()};
  std::ostringstream progress;
  generate_static_site(options, progress);
  std::ifstream truth(dir / "truth.txt");
  size_t urls = 0;
  for (std::string url; std::getline(truth, url); ++urls) {
    const auto parsed = parse_http_url(url);
    ASSERT_TRUE(parsed) << url;
    const std::string file = parsed->path_query == "/" ? "/index.html" : parsed->path_query;
    const bool exists = std::filesystem::exists(dir / "site" / parsed->host / file.substr(1));
    EXPECT_EQ(exists, parsed->path_query.find("/missing/") == std::string::npos) << url;
    if (parsed->host != "127.0.0.4") {
      EXPECT_NE(parsed->path_query, "/private/0.html") << "robots.txt is obeyed";
    }
  }
  EXPECT_GT(urls, 3u * 40);
  EXPECT_TRUE(std::filesystem::exists(dir / "site/127.0.0.2/robots.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir / "site/127.0.0.4/robots.txt"));
  std::filesystem::remove_all(dir);
}

TEST(TestWeb, ClearLogWhileARequestIsInFlightStartsAFreshCount) {
  TestWeb web(small_site());
  web.start();
  web.hold_responses();
  std::thread slow([&] { httplib::Client("127.0.0.2", web.port()).Get("/sec0/page0.html"); });
  ASSERT_TRUE(web.wait_for_in_flight(1, std::chrono::seconds(30)));
  web.clear_log();
  web.release_responses();
  slow.join();
  EXPECT_EQ(web.summary().requests, 0u);
  ASSERT_TRUE(httplib::Client("127.0.0.2", web.port()).Get("/sec0/page0.html"));
  const FetchLogSummary summary = web.summary();
  EXPECT_EQ(summary.requests, 1u);
  EXPECT_EQ(summary.duplicate_fetches, 0u);
  EXPECT_EQ(summary.max_in_flight_per_host, 1u) << "the cleared request is no longer in flight";
}

TEST(FetchLogSummary, ComputesPolitenessIntervalsFromRequestTimes) {
  const SteadyTime t0{};
  auto at = [&](int ms) { return t0 + std::chrono::milliseconds(ms); };
  auto request = [&](std::string host, std::string url, int start, int end, uint32_t in_flight, bool robots) {
    LoggedRequest r;
    r.host = std::move(host);
    r.canonical_url = std::move(url);
    r.start = at(start);
    r.end = at(end);
    r.status = 200;
    r.in_flight = in_flight;
    r.robots_txt = robots;
    return r;
  };
  const FetchLogSummary summary = summarize({
      request("a", "http://a/x", 0, 10, 1, false),  // before robots.txt
      request("a", "http://a/robots.txt", 20, 25, 1, true),
      request("a", "http://a/y", 125, 130, 1, false),  // 100 ms after robots.txt ended
      request("a", "http://a/z", 180, 200, 1, false),  // 50 ms after y ended, 55 after it began
      request("b", "http://b/x", 0, 50, 1, false), request("b", "http://b/y", 30, 60, 2, false),  // overlaps x by 20 ms
  });
  ASSERT_EQ(summary.hosts.size(), 2u);
  const HostSummary& a = summary.hosts[0];
  EXPECT_EQ(a.requests_before_robots_txt, 1u);
  EXPECT_EQ(a.max_in_flight, 1u);
  EXPECT_DOUBLE_EQ(a.min_interval_start_to_start_ms.value(), 20);
  EXPECT_DOUBLE_EQ(a.min_interval_end_to_start_ms.value(), 10);
  const HostSummary& b = summary.hosts[1];
  EXPECT_EQ(b.max_in_flight, 2u);
  EXPECT_DOUBLE_EQ(b.min_interval_end_to_start_ms.value(), -20);
  EXPECT_EQ(b.requests_before_robots_txt, 2u) << "a host never asked for robots.txt";
  EXPECT_EQ(summary.max_in_flight_per_host, 2u);
  EXPECT_EQ(summary.duplicate_fetches, 0u);
  EXPECT_FALSE(summarize({request("c", "http://c/", 0, 1, 1, false)}).hosts[0].min_interval_start_to_start_ms);
}

TEST(SiteTruth, UsesCanonicalUrlsOnTheDefaultPortAndLowercaseHosts) {
  const Site site(SiteOptions{.hosts = {"LOCALHOST", "127.0.0.3"}, .port = 80, .pages_per_host = 10});
  const auto urls = compute_ground_truth(site, {"HTTP://localhost:80"}, 3).urls();
  EXPECT_GT(urls.size(), 20u);
  for (const auto& url : urls) {
    EXPECT_EQ(url.find(":80"), std::string::npos) << url;
    EXPECT_EQ(url.find("LOCALHOST"), std::string::npos) << url;
  }
  EXPECT_TRUE(std::count(urls.begin(), urls.end(), "http://127.0.0.3/"));
}

TEST(SiteRobots, MatchesRfc9309Patterns) {
  EXPECT_TRUE(robots_pattern_matches("/private/", "/private/x.html"));
  EXPECT_FALSE(robots_pattern_matches("/private/", "/privat"));
  EXPECT_TRUE(robots_pattern_matches("/*.cgi$", "/a/b.cgi"));
  EXPECT_FALSE(robots_pattern_matches("/*.cgi$", "/a/b.cgi?x=1"));
  EXPECT_TRUE(robots_pattern_matches("/a*b*c", "/a-x-b-y-c-z"));
  EXPECT_FALSE(robots_pattern_matches("/a*b*c", "/a-x-c-y-b"));
  const SiteRobots robots(true);
  EXPECT_TRUE(robots.allowed("/private/open.html"));
  EXPECT_FALSE(robots.allowed("/private/open.htm"));
  EXPECT_TRUE(SiteRobots(false).allowed("/private/0.html"));
}

TEST(SiteUrl, ResolvesAndCanonicalizesEveryFormTheSiteWrites) {
  const std::string base = "http://127.0.0.2:8080/sec1/page3.html";
  const std::string want = "http://127.0.0.2:8080/sec2/page7.html";
  for (const char* href :
       {"http://127.0.0.2:8080/sec2/page7.html", "HTTP://127.0.0.2:8080/sec2/page7.html",
        "//127.0.0.2:8080/sec2/page7.html", "/sec2/page7.html", "../sec2/page7.html", "/sec2/./page7.html",
        "/sec2/zz/../page7.html", "/sec2/p%61ge7.html", "/se%63%32/page7.html#s1", "  ../sec2/page7.html#\n "}) {
    EXPECT_EQ(resolve_url(base, href).value_or("none"), want) << href;
  }
  EXPECT_EQ(resolve_url(base, "?id=1&lang=en").value_or(""), "http://127.0.0.2:8080/sec1/page3.html?id=1&lang=en");
  EXPECT_EQ(resolve_url(base, "#top").value_or(""), base);
  EXPECT_EQ(resolve_url(base, "../../..").value_or(""), "http://127.0.0.2:8080/");
  EXPECT_EQ(resolve_url(base, "http://127.0.0.2:8080").value_or(""), "http://127.0.0.2:8080/");
  EXPECT_EQ(resolve_url(base, "/a/%2f%7e").value_or(""), "http://127.0.0.2:8080/a/%2F~");
  EXPECT_FALSE(resolve_url(base, "mailto:x@example.invalid"));
  EXPECT_FALSE(resolve_url(base, "http://127.0.0.2:99999/"));
}

}  // namespace
}  // namespace bloomcrawl::testweb
