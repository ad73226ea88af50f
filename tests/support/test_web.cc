#include "tests/support/test_web.h"

#include <httplib.h>
#include <sys/socket.h>

#include <stdexcept>

#include "tests/support/listen_backlog.h"
#include "tests/support/site_render.h"
#include "tests/support/site_url.h"

namespace bloomcrawl::testweb {
namespace {

constexpr std::string_view kControlPrefix = "/__testweb/";
constexpr int kBindAttempts = 20;

// httplib's default sets SO_REUSEPORT, which would let two test webs share a port silently and
// split the requests between them; plain SO_REUSEADDR makes a taken port fail to bind.
void reuse_address_only(int sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

TestWeb::TestWeb(TestWebOptions options) : options_(std::move(options)) {
  // Building the site model validates the options now rather than after the sockets are bound.
  const Site validated(SiteOptions{.hosts = options_.hosts, .pages_per_host = options_.pages_per_host});
  if (options_.threads_per_host == 0) throw std::invalid_argument("test web: threads_per_host must be >= 1");
}

TestWeb::~TestWeb() { stop(); }

std::string TestWeb::seed_url() const { return url(0, "/"); }

std::string TestWeb::url(size_t host, const std::string& path_query) const {
  return to_string(HttpUrl{options_.hosts.at(host), port_, path_query});
}

const Site& TestWeb::site() const {
  if (!site_) throw std::logic_error("test web: site() before start()");
  return *site_;
}

void TestWeb::bind_all() {
  for (int attempt = 0; attempt < kBindAttempts; ++attempt) {
    servers_.clear();
    int port = options_.port;
    std::string failed;
    for (const std::string& host : options_.hosts) {
      auto server = std::make_unique<httplib::Server>();
      server->set_socket_options(reuse_address_only);
      const bool first = servers_.empty();
      if (first && options_.port == 0) {
        port = server->bind_to_any_port(host);
        if (port < 0) failed = host + ":0";
      } else if (!server->bind_to_port(host, port)) {
        failed = host + ":" + std::to_string(port);
      }
      if (!failed.empty()) break;
      servers_.push_back(std::move(server));
    }
    if (failed.empty()) {
      port_ = static_cast<uint16_t>(port);
      testing::widen_listen_backlog(port);
      return;
    }
    // An ephemeral port free on the first host may be taken on another: try a new one.
    if (options_.port != 0 || failed.ends_with(":0") || attempt + 1 == kBindAttempts) {
      servers_.clear();
      throw std::runtime_error("test web: cannot listen on " + failed + " (address not local, or port taken)");
    }
  }
}

void TestWeb::start() {
  if (!servers_.empty()) throw std::logic_error("test web: start() called twice");
  bind_all();
  SiteOptions site_options{.hosts = options_.hosts,
                           .port = port_,
                           .pages_per_host = options_.pages_per_host,
                           .seed = options_.seed,
                           .robots = options_.robots,
                           .trap = options_.trap,
                           .dynamic = true};
  site_.emplace(std::move(site_options));
  {
    std::lock_guard lock(hold_mutex_);
    stopping_ = false;
  }
  started_at_ = std::chrono::steady_clock::now();
  for (size_t h = 0; h < servers_.size(); ++h) {
    httplib::Server& server = *servers_[h];
    const size_t threads = options_.threads_per_host;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server.set_keep_alive_timeout(options_.keep_alive_timeout.count());
    server.set_keep_alive_max_count(1000);  // reuse is the crawler's business, not a server limit
    server.set_pre_routing_handler([this, h](const httplib::Request& request, httplib::Response& response) {
      handle(h, request, response);
      return httplib::Server::HandlerResponse::Handled;
    });
    threads_.emplace_back([&server] { server.listen_after_bind(); });
  }
  // The sockets already accept connections (they were bound and listening); but httplib's stop()
  // is a no-op until its accept loop has started, so wait for that before returning. httplib 0.11
  // offers no notification for it, hence the short poll.
  for (auto& server : servers_) {
    while (!server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void TestWeb::stop() {
  {
    std::lock_guard lock(hold_mutex_);
    stopping_ = true;
  }
  hold_changed_.notify_all();
  for (auto& server : servers_) server->stop();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  servers_.clear();
}

void TestWeb::handle(size_t host, const httplib::Request& request, httplib::Response& response) {
  if (request.path.starts_with(kControlPrefix)) {
    handle_control(request, response);
    return;
  }
  const Site& site = *site_;
  const std::string path_query = canonical_path_query(request.target);
  LoggedRequest entry;
  entry.host = options_.hosts[host];
  entry.target = request.target;
  entry.canonical_url = site.url(host, path_query);
  entry.method = request.method;
  entry.start = std::chrono::steady_clock::now();
  entry.robots_txt = path_query == "/robots.txt";
  entry.robots_violation = !entry.robots_txt && !site.robots(host).allowed(path_query);
  entry.nofollow_violation = Site::is_nofollow_only(path_query);
  entry.trap = Site::is_trap(path_query);
  entry.unknown_url = !entry.robots_txt && !path_query.starts_with("/missing/") &&
                      site.page(host, path_query).type == PageType::kNotFound;
  const bool page_request = !entry.robots_txt;
  FetchLog::Ticket ticket{};
  {
    std::unique_lock lock(hold_mutex_);  // the log and the count of its page requests change together
    ticket = log_.begin(std::move(entry));
    if (page_request && ++page_requests_begun_ >= hold_from_page_request_.value_or(UINT64_MAX)) {
      holding_ = true;
      hold_began_at_host_ = options_.hosts[host];
      hold_from_page_request_.reset();
    }
    hold_changed_.notify_all();  // wait_for_in_flight() watches the log through this condition
    hold_changed_.wait(lock, [this] { return !holding_ || stopping_; });
  }
  if (options_.response_delay.count() > 0) std::this_thread::sleep_for(options_.response_delay);

  SiteResponse answer = render_site_path(site, host, path_query);
  response.status = answer.status;
  for (const auto& [name, value] : answer.headers) response.set_header(name, value);
  response.set_content(answer.body, answer.content_type);
  log_.end(ticket, answer.status);
  std::lock_guard lock(hold_mutex_);  // taken after the log changed, so no waiter misses it
  hold_changed_.notify_all();         // wait_for_requests() watches request ends through this condition
}

void TestWeb::handle_control(const httplib::Request& request, httplib::Response& response) const {
  const std::string what = request.path.substr(kControlPrefix.size());
  nlohmann::json body;
  if (what == "summary") {
    body = to_json(summary());
  } else if (what == "requests") {
    body = nlohmann::json::array();
    for (const auto& logged : requests()) body.push_back(to_json(logged, started_at_));
  } else if (what == "ground-truth") {
    uint32_t depth = options_.max_depth_for_truth;
    if (request.has_param("max_depth")) {
      const std::string text = request.get_param_value("max_depth");
      const bool digits =
          !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoul(text) > kMaxTrapDepth) {
        response.status = 400;
        response.set_content(
            "max_depth must be an integer from 0 to " + std::to_string(kMaxTrapDepth) + ", got '" + text + "'\n",
            "text/plain");
        return;
      }
      depth = static_cast<uint32_t>(std::stoul(text));
    }
    body = ground_truth_json(depth);
  } else {
    response.status = 404;
    response.set_content("unknown control endpoint; try summary, requests, ground-truth\n", "text/plain");
    return;
  }
  response.set_content(body.dump(2) + "\n", "application/json");
}

std::vector<std::string> TestWeb::ground_truth(uint32_t max_depth) const {
  return ground_truth_detail(max_depth).urls();
}

GroundTruth TestWeb::ground_truth_detail(uint32_t max_depth) const {
  return compute_ground_truth(site(), {seed_url()}, max_depth);
}

nlohmann::json TestWeb::ground_truth_json(uint32_t max_depth) const {
  const GroundTruth truth = ground_truth_detail(max_depth);
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : truth.entries)
    entries.push_back({{"url", e.url}, {"depth", e.depth}, {"status", e.status}, {"trap", e.trap}});
  return {{"seed_url", seed_url()},
          {"max_depth", max_depth},
          {"site_depth", site_depth()},
          {"urls", truth.urls()},
          {"entries", std::move(entries)}};
}

uint32_t TestWeb::site_depth() const { return bloomcrawl::testweb::site_depth(site(), {seed_url()}); }

void TestWeb::hold_responses() {
  std::lock_guard lock(hold_mutex_);
  holding_ = true;
}

void TestWeb::release_responses() {
  {
    std::lock_guard lock(hold_mutex_);
    holding_ = false;
    hold_from_page_request_.reset();
  }
  hold_changed_.notify_all();
}

void TestWeb::hold_responses_from_page_request(uint64_t n) {
  std::lock_guard lock(hold_mutex_);
  hold_from_page_request_ = n;
  hold_began_at_host_.reset();
}

std::optional<std::string> TestWeb::wait_for_hold(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(hold_mutex_);
  hold_changed_.wait_for(lock, timeout, [&] { return hold_began_at_host_.has_value(); });
  return hold_began_at_host_;
}

bool TestWeb::wait_for_in_flight(uint32_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(hold_mutex_);
  return hold_changed_.wait_for(lock, timeout, [&] { return log_.in_flight() >= n; });
}

bool TestWeb::wait_for_requests(const std::function<bool(const std::vector<LoggedRequest>&)>& ready,
                                std::chrono::milliseconds timeout) const {
  std::unique_lock lock(hold_mutex_);
  return hold_changed_.wait_for(lock, timeout, [&] { return ready(log_.requests()); });
}

bool TestWeb::wait_for_page_requests(uint64_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(hold_mutex_);
  return hold_changed_.wait_for(lock, timeout, [&] { return page_requests_begun_ >= n; });
}

void TestWeb::clear_log() {
  std::lock_guard lock(hold_mutex_);
  log_.clear();
  page_requests_begun_ = 0;
}

}  // namespace bloomcrawl::testweb
