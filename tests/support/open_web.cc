#include "tests/support/open_web.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "tests/support/host_header_server.h"
#include "tests/support/site_random.h"

namespace bloomcrawl::testweb {
namespace {

constexpr std::string_view kRobots = "User-agent: *\nDisallow: /private/\n";

// The number n in "<prefix>n<suffix>", when n < limit.
std::optional<size_t> number_in(std::string_view text, std::string_view prefix, std::string_view suffix, size_t limit) {
  if (text.size() <= prefix.size() + suffix.size() || !text.starts_with(prefix) || !text.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
  size_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n >= limit) return std::nullopt;
  return n;
}

// "h<i>.test[:port]" -> i, when i < hosts.
std::optional<size_t> host_index(std::string_view host, size_t hosts) {
  return number_in(host.substr(0, host.find(':')), "h", ".test", hosts);
}

// "/p<j>.html" -> j, when j < pages.
std::optional<size_t> page_index(std::string_view path, size_t pages) { return number_in(path, "/p", ".html", pages); }

// Leaves the counter as it found it however the handler ends.
class InProgress {
 public:
  explicit InProgress(std::atomic<uint32_t>& counter) : counter_(counter), now_(counter.fetch_add(1) + 1) {}
  ~InProgress() { counter_.fetch_sub(1); }
  InProgress(const InProgress&) = delete;
  InProgress& operator=(const InProgress&) = delete;
  uint32_t now() const { return now_; }

 private:
  std::atomic<uint32_t>& counter_;
  uint32_t now_;
};

}  // namespace

OpenWeb::OpenWeb(OpenWebOptions options) : options_(options) {
  if (options_.hosts == 0 || options_.pages_per_host == 0 || options_.threads == 0) {
    throw std::invalid_argument("open web: hosts, pages_per_host and threads must be >= 1");
  }
}

OpenWeb::~OpenWeb() { stop(); }

// Appends, not `"literal" + std::string`: GCC 12 warns falsely (-Wrestrict) on that at -O3.
std::string OpenWeb::host(size_t i) {
  std::string name = "h";
  name.append(std::to_string(i)).append(".test");
  return name;
}

std::string OpenWeb::page_url(size_t host_number, size_t page) const {
  std::string url = "http://";
  url.append(host(host_number)).append(":").append(std::to_string(port_));
  url.append("/p").append(std::to_string(page)).append(".html");
  return url;
}

std::string OpenWeb::resolve_entry() const {
  std::string entry = "*:";
  entry.append(std::to_string(port_)).append(":127.0.0.1");
  return entry;
}

std::vector<std::string> OpenWeb::ground_truth() const {
  std::vector<std::string> urls;
  urls.reserve(options_.hosts * options_.pages_per_host);
  for (size_t i = 0; i < options_.hosts; ++i) {
    for (size_t j = 0; j < options_.pages_per_host; ++j) urls.push_back(page_url(i, j));
  }
  std::sort(urls.begin(), urls.end());
  return urls;
}

std::string OpenWeb::page_html(size_t i, size_t j) const {
  std::string html = "<!doctype html><html><head><title>";
  html.append(host(i)).append(" page ").append(std::to_string(j)).append("</title></head><body>\n");
  const auto link = [&](const std::string& href) { html.append("<a href=\"").append(href).append("\">link</a>\n"); };
  if (j + 1 < options_.pages_per_host) link(std::string("/p").append(std::to_string(j + 1)).append(".html"));
  link(std::string("/private/").append(std::to_string(j)).append(".html"));
  if (j == 0) {
    for (size_t child : {2 * i + 1, 2 * i + 2}) {
      if (child < options_.hosts) link(page_url(child, 0));
    }
  }
  SiteRandom random(page_seed(options_.seed, i, std::to_string(j)));
  for (size_t n = 0; n < options_.cross_links; ++n) {
    link(page_url(random.below(uint32_t(options_.hosts)), random.below(uint32_t(options_.pages_per_host))));
  }
  return html + "</body></html>\n";
}

void OpenWeb::start() {
  if (server_) throw std::logic_error("open web: start() called twice");
  server_ = testing::host_header_server(options_.threads);
  server_->Get(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
    const std::optional<size_t> i = host_index(request.get_header_value("Host"), options_.hosts);
    if (!i) {
      response.status = 404;
      return;
    }
    if (request.path == "/robots.txt") {
      const InProgress robots(robots_in_progress_);
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++log_.robots_requests;
        log_.robots_peak = std::max(log_.robots_peak, robots.now());
      }
      std::this_thread::sleep_for(options_.robots_delay);  // a slow robots.txt, not synchronisation
      response.set_content(std::string(kRobots), "text/plain");
      return;
    }
    const std::optional<size_t> j = page_index(request.path, options_.pages_per_host);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (robots_in_progress_.load() > 0) ++log_.pages_during_robots;
      if (request.path.starts_with("/private/")) ++log_.private_requests;
      if (j) {
        ++log_.page_requests;
        ++log_.fetches[page_url(*i, *j)];
      }
    }
    if (!j) {
      response.status = 404;
      return;
    }
    response.set_content(page_html(*i, *j), "text/html");
  });
  port_ = testing::listen_on_loopback(*server_, options_.port, thread_, "open web");
}

void OpenWeb::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

OpenWebLog OpenWeb::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

}  // namespace bloomcrawl::testweb
